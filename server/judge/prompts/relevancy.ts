// Default prompts for answer_relevancy's question generation: the question the answer most plausibly
// replies to, plus a noncommittal flag (Ragas's response relevance prompt: same output keys, goldset's
// own wording). Ragas asks for n = 3 generations; goldset makes three calls whose inputs differ only in
// `variant` (1, 2, 3), so each is a distinct request: the cache keeps all three, and a judge at
// temperature 0 is still asked for three phrasings rather than returning one question thrice.
// Input: { answer, variant }. Output: { question, noncommittal: 0 | 1 }.

import type { Language, PromptTemplate } from '../types.ts';

export const QUESTION_PROMPTS: Record<Language, PromptTemplate> = {
  en: {
    language: 'en',
    instruction:
      'Read the answer and write the question it most plausibly replies to. ' +
      'Also say whether the answer is noncommittal: noncommittal 1 if it evades, hedges or declines to give a substantive answer ' +
      '(for example "I don\'t know", "I\'m not sure", "it depends"), noncommittal 0 if it commits to a substantive answer. ' +
      'Several variants are requested independently: for variant 1 write the most natural question; for a higher variant, word the question the way a different user might ask it.',
    output_format: 'Reply with one JSON object {"question": "<the question>", "noncommittal": 0 or 1}, with the question in the language of the answer.',
    examples: [
      {
        input: { answer: 'The Amazon river flows through Peru, Colombia and Brazil before reaching the Atlantic Ocean.', variant: 1 },
        output: { question: 'Which countries does the Amazon river flow through?', noncommittal: 0 },
      },
      {
        input: { answer: "I'm not sure which feature the 2031 model introduced; I have no information about products released after 2029.", variant: 1 },
        output: { question: 'Which feature did the 2031 model introduce?', noncommittal: 1 },
      },
    ],
  },
  zh: {
    language: 'zh',
    instruction:
      '阅读下面的回答，写出它最可能在回答的那个问题。' +
      '同时判断这个回答是否在回避：如果它含糊其辞、推脱或没有给出实质性的回答（例如“我不知道”“我不确定”“要看情况”），noncommittal 为 1；给出了明确、实质性的回答，noncommittal 为 0。' +
      '同一个回答会被独立地请求多个变体（variant）：variant 为 1 时写最自然的问法；variant 更大时，换一种其他用户可能采用的问法。',
    output_format: '只输出一个 JSON 对象 {"question": "生成的问题", "noncommittal": 0 或 1}，问题使用回答的语言。',
    examples: [
      {
        input: { answer: '张伟是教研部的工程师，最近在负责课程研发。', variant: 1 },
        output: { question: '张伟在哪个部门，负责什么工作？', noncommittal: 0 },
      },
      {
        input: { answer: '根据提供的信息，没有提到张伟所在的部门。如果您能提供更多关于张伟的信息，我可能能够帮助您找到答案。', variant: 1 },
        output: { question: '张伟是哪个部门的？', noncommittal: 1 },
      },
    ],
  },
};
