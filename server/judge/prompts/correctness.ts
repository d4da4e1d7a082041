// Default prompts for answer_correctness's classification step: the answer's statements and the
// ground truth's statements sorted into TP / FP / FN, each with a reason (Ragas's correctness
// classifier: same categories and output keys, goldset's own wording and examples).
// Input: { question, answer: string[], ground_truth: string[] }.
// Output: { TP: {statement, reason}[], FP: [...], FN: [...] }.

import type { Language, PromptTemplate } from '../types.ts';

export const CLASSIFY_PROMPTS: Record<Language, PromptTemplate> = {
  en: {
    language: 'en',
    instruction:
      'You compare two lists of statements about the same question: the statements of an answer, and the statements of the ground truth ' +
      '(the reference answer written by a domain expert). ' +
      'Put every answer statement into exactly one of two categories: TP (true positive) when one or more ground-truth statements directly support it; ' +
      'FP (false positive) when no ground-truth statement supports it, which includes answer statements that contradict the ground truth. ' +
      'Then put every ground-truth statement that the answer does not cover into FN (false negative); ground-truth statements the answer does cover are not listed again. ' +
      'Every statement belongs to one category only. Give a short reason for each classification.',
    output_format:
      'Reply with one JSON object {"TP": [...], "FP": [...], "FN": [...]} in which every list holds objects ' +
      '{"statement": "<the statement, copied word for word>", "reason": "<why it belongs in this category>"}. ' +
      'Use an empty list for a category that has no statements.',
    examples: [
      {
        input: {
          question: 'Where is the Eiffel Tower and when was it built?',
          answer: ['The Eiffel Tower is in Paris.', 'The Eiffel Tower was built in 1925.'],
          ground_truth: [
            'The Eiffel Tower is in Paris.',
            'The Eiffel Tower was completed in 1889.',
            "The Eiffel Tower was built for the 1889 World's Fair.",
          ],
        },
        output: {
          TP: [{ statement: 'The Eiffel Tower is in Paris.', reason: 'The ground truth gives the same location.' }],
          FP: [{ statement: 'The Eiffel Tower was built in 1925.', reason: 'The ground truth says the tower was completed in 1889, so 1925 contradicts it.' }],
          FN: [
            { statement: 'The Eiffel Tower was completed in 1889.', reason: 'The answer gives a different year and never states 1889.' },
            { statement: "The Eiffel Tower was built for the 1889 World's Fair.", reason: "The answer does not mention the World's Fair." },
          ],
        },
      },
      {
        input: {
          question: 'At what temperature does water boil at sea level?',
          answer: ['Water boils at 100 °C at sea level.'],
          ground_truth: ['At sea level, water boils at 100 degrees Celsius.'],
        },
        output: {
          TP: [{ statement: 'Water boils at 100 °C at sea level.', reason: 'The ground truth states the same temperature at sea level.' }],
          FP: [],
          FN: [],
        },
      },
    ],
  },
  zh: {
    language: 'zh',
    instruction:
      '你要比较针对同一个问题的两组陈述：一组来自待评估的回答，另一组来自标准答案（由业务专家撰写的参考答案）。' +
      '回答中的每条陈述只能归入以下两类之一：TP（真正例）——标准答案中有一条或多条陈述能直接支持它；' +
      'FP（假正例）——标准答案中找不到能支持它的陈述，与标准答案相矛盾的陈述也归入此类。' +
      '然后，把回答没有覆盖到的标准答案陈述归入 FN（假反例）；已经被回答覆盖的标准答案陈述不要再列出。' +
      '每条陈述只能属于一个类别，并为每一条分类简要说明理由。',
    output_format:
      '只输出一个 JSON 对象 {"TP": [...], "FP": [...], "FN": [...]}，每个列表中的元素形如 ' +
      '{"statement": "原样抄录的陈述", "reason": "归入该类别的理由"}。某个类别没有陈述时给出空列表。',
    examples: [
      {
        input: {
          question: '张伟是哪个部门的？',
          answer: ['张伟是教研部的', '张伟负责大模型课程'],
          ground_truth: ['张伟是教研部的', '张伟负责大数据方向'],
        },
        output: {
          TP: [{ statement: '张伟是教研部的', reason: '标准答案同样说明张伟属于教研部。' }],
          FP: [{ statement: '张伟负责大模型课程', reason: '标准答案说张伟负责的是大数据方向，没有提到大模型课程。' }],
          FN: [{ statement: '张伟负责大数据方向', reason: '回答没有提到张伟负责大数据方向。' }],
        },
      },
      {
        input: {
          question: '李凯是哪个部门的？',
          answer: ['李凯是人事部的'],
          ground_truth: ['李凯是教研部主任'],
        },
        output: {
          TP: [],
          FP: [{ statement: '李凯是人事部的', reason: '标准答案说明李凯在教研部任主任，与回答说的人事部相矛盾。' }],
          FN: [{ statement: '李凯是教研部主任', reason: '回答没有说出李凯是教研部主任。' }],
        },
      },
    ],
  },
};
