// Default prompts for statement extraction: a text (an answer or a ground truth) split into short,
// self-contained factual statements. Used by answer_correctness (once per text, as Ragas does) and
// faithfulness. Same task and output shape as Ragas's statement generator; goldset's own wording.
// Input: { question, text }. Output: { statements: string[] }.

import type { Language, PromptTemplate } from '../types.ts';

export const STATEMENTS_PROMPTS: Record<Language, PromptTemplate> = {
  en: {
    language: 'en',
    instruction:
      'You split a text into short, self-contained factual statements. The text is a reply to the question given with it. ' +
      'Go through the text sentence by sentence and rewrite each sentence as one or more statements that can be understood on their own: ' +
      'replace pronouns and vague references ("he", "it", "this department") with the names they stand for, and keep each statement to a single fact. ' +
      'Do not add anything the text does not say, and do not leave out any fact it does say. ' +
      'If the text states no facts at all (for example it declines to answer or only says it does not know), return an empty list.',
    output_format:
      'Reply with one JSON object of the form {"statements": ["...", "..."]}: the statements in the order they occur in the text, written in the language of the text.',
    examples: [
      {
        input: {
          question: 'Who was Marie Curie and what is she known for?',
          text: 'She was a Polish-born physicist and chemist who did her research in Paris. She won two Nobel Prizes, one in physics and one in chemistry.',
        },
        output: {
          statements: [
            'Marie Curie was a Polish-born physicist and chemist.',
            'Marie Curie did her research in Paris.',
            'Marie Curie won a Nobel Prize in physics.',
            'Marie Curie won a Nobel Prize in chemistry.',
          ],
        },
      },
      {
        input: { question: 'What is the staff number of Zhang Wei?', text: 'Sorry, I cannot find that in the documents I have.' },
        output: { statements: [] },
      },
    ],
  },
  zh: {
    language: 'zh',
    instruction:
      '请把一段文字拆解成简短、独立、单独拿出来也能读懂的事实陈述。这段文字是对随附问题的回答。' +
      '逐句阅读原文，把每句话改写成一条或多条陈述：把“他”“该部门”“这个”之类的代词和指代换成它们所指的具体名称，每条陈述只讲一个事实。' +
      '不要添加原文没有说的内容，也不要漏掉原文说过的任何事实。' +
      '如果原文没有陈述任何事实（例如拒绝回答，或者只说不知道），返回空列表。',
    output_format: '只输出一个 JSON 对象，格式为 {"statements": ["……", "……"]}：陈述按在原文中出现的先后排列，使用原文的语言。',
    examples: [
      {
        input: { question: '张伟是哪个部门的？', text: '张伟是教研部的工程师，他最近在负责课程研发。' },
        output: { statements: ['张伟是教研部的工程师', '张伟最近在负责课程研发'] },
      },
      {
        input: { question: '张伟的工号是多少？', text: '抱歉，根据现有资料，我无法回答这个问题。' },
        output: { statements: [] },
      },
    ],
  },
};
