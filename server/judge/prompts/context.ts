// Default prompts for the retrieval metrics.
//
// context_precision (one call per retrieved context, as Ragas does): was this context useful for
// arriving at the answer? Input { question, context, answer } where `answer` is the ground truth
// (with reference) or the response (without reference). Output { reason, verdict: 0 | 1 }.
//
// context_recall (one call per item, as Ragas does): split the reference answer into statements and
// say for each whether the retrieved context supports it. Input { question, context: the contexts
// joined by newlines, reference }. Output { classifications: {statement, reason, attributed: 0 | 1}[] }.
//
// Same tasks and output keys as Ragas's prompts; goldset's own wording and examples.

import type { Language, PromptTemplate } from '../types.ts';

export const VERIFY_PROMPTS: Record<Language, PromptTemplate> = {
  en: {
    language: 'en',
    instruction:
      'You judge a single passage (the context) that a search system retrieved for a question. ' +
      'Given the question and the answer, decide whether the context was useful for arriving at that answer: ' +
      'verdict 1 if it contains information that helps to reach the answer, verdict 0 if it does not. Judge only this one context.',
    output_format: 'Reply with one JSON object {"reason": "<why the context is or is not useful>", "verdict": 0 or 1}.',
    examples: [
      {
        input: {
          question: "Who wrote the novel 'Pride and Prejudice'?",
          context: 'Pride and Prejudice is an 1813 novel of manners by Jane Austen. It follows Elizabeth Bennet as she deals with matters of upbringing, marriage and social standing.',
          answer: 'Jane Austen wrote Pride and Prejudice.',
        },
        output: { reason: 'The context names Jane Austen as the author of the novel, which is exactly what the answer states.', verdict: 1 },
      },
      {
        input: {
          question: 'What is the highest mountain in Africa?',
          context: 'The Nile flows north through eleven countries and is usually described as the longest river in Africa.',
          answer: 'Mount Kilimanjaro.',
        },
        output: { reason: 'The context is about the Nile and says nothing about mountains, so it does not help to reach the answer.', verdict: 0 },
      },
    ],
  },
  zh: {
    language: 'zh',
    instruction:
      '检索系统针对一个问题召回了一段参考资料（context），请只评估这一段。' +
      '结合问题和答案，判断这段资料对得出该答案是否有用：资料中包含有助于得出答案的信息，verdict 为 1；没有，verdict 为 0。',
    output_format: '只输出一个 JSON 对象 {"reason": "这段资料有用或无用的理由", "verdict": 0 或 1}。',
    examples: [
      {
        input: { question: '张伟是哪个部门的？', context: '张伟 教研部工程师，他最近在负责课程研发', answer: '张伟是教研部的成员' },
        output: { reason: '资料写明张伟是教研部工程师，直接支持答案中“张伟是教研部的成员”。', verdict: 1 },
      },
      {
        input: { question: '张伟是哪个部门的？', context: '牛顿发现了万有引力', answer: '张伟是教研部的成员' },
        output: { reason: '资料讲的是牛顿和万有引力，与张伟及其部门无关。', verdict: 0 },
      },
    ],
  },
};

export const ATTRIBUTE_PROMPTS: Record<Language, PromptTemplate> = {
  en: {
    language: 'en',
    instruction:
      'You check how much of a reference answer is covered by retrieved context. ' +
      'Split the reference answer into its individual statements (usually one per sentence or clause) and decide for each whether it can be attributed to the context: ' +
      'attributed 1 if the context contains the information the statement gives, attributed 0 if it does not. Explain each decision briefly.',
    output_format:
      'Reply with one JSON object {"classifications": [{"statement": "<a statement of the reference answer>", "reason": "<why>", "attributed": 0 or 1}, ...]} ' +
      'covering every statement of the reference answer, in order.',
    examples: [
      {
        input: {
          question: 'What do you know about the Great Wall of China?',
          context: 'The Great Wall of China is a series of fortifications built across the historical northern borders of China. Its best-known sections were built during the Ming dynasty (1368–1644).',
          reference: 'The Great Wall runs across northern China. Most of its famous sections date from the Ming dynasty. It can be seen from the Moon with the naked eye.',
        },
        output: {
          classifications: [
            { statement: 'The Great Wall runs across northern China.', reason: 'The context says it was built across the northern borders of China.', attributed: 1 },
            { statement: 'Most of its famous sections date from the Ming dynasty.', reason: 'The context says its best-known sections were built during the Ming dynasty.', attributed: 1 },
            { statement: 'It can be seen from the Moon with the naked eye.', reason: 'The context says nothing about seeing the wall from the Moon.', attributed: 0 },
          ],
        },
      },
    ],
  },
  zh: {
    language: 'zh',
    instruction:
      '请检查参考答案中的内容有多少能在检索到的资料中找到依据。' +
      '先把参考答案拆分成一条条独立的陈述（通常每句或每个分句一条），再逐条判断能否归因于给定资料：' +
      '资料中包含这条陈述所说的信息，attributed 为 1；找不到，attributed 为 0。每条都要简要说明理由。',
    output_format:
      '只输出一个 JSON 对象 {"classifications": [{"statement": "参考答案中的一条陈述", "reason": "判断理由", "attributed": 0 或 1}, ...]}，' +
      '按顺序覆盖参考答案的全部陈述。',
    examples: [
      {
        input: {
          question: '张伟是哪个部门的？',
          context: '牛顿发现了万有引力\n张伟 教研部工程师，他最近在负责课程研发',
          reference: '张伟是教研部的成员，负责大数据方向。',
        },
        output: {
          classifications: [
            { statement: '张伟是教研部的成员', reason: '资料写明“张伟 教研部工程师”。', attributed: 1 },
            { statement: '张伟负责大数据方向', reason: '资料只说张伟在负责课程研发，没有提到大数据方向。', attributed: 0 },
          ],
        },
      },
    ],
  },
};
