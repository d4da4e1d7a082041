// Default prompts for faithfulness's NLI step: each statement of the answer judged against the
// retrieved contexts, verdict 1 (can be inferred directly from the context) or 0, with a reason
// (Ragas's NLI statement prompt: same verdicts and output keys, goldset's own wording).
// Input: { context: the retrieved contexts joined by newlines (as Ragas does), statements: string[] }.
// Output: { statements: {statement, reason, verdict: 0 | 1}[] }.

import type { Language, PromptTemplate } from '../types.ts';

export const NLI_PROMPTS: Record<Language, PromptTemplate> = {
  en: {
    language: 'en',
    instruction:
      'You check whether statements are backed by a context. For each statement decide whether it can be inferred directly from the context alone, ' +
      'without outside knowledge: verdict 1 if it can; verdict 0 if it cannot, either because the context says something different or because it does not say it at all. ' +
      'Judge every statement you are given, in the order given, and explain each verdict briefly.',
    output_format:
      'Reply with one JSON object {"statements": [{"statement": "<the statement, copied word for word>", "reason": "<why>", "verdict": 0 or 1}, ...]} ' +
      'with exactly one entry per input statement.',
    examples: [
      {
        input: {
          context:
            'Maria runs a bakery in Lisbon. She opens at 7 a.m. every weekday and sells sourdough bread and custard tarts.\nOn Saturdays the shop is open until noon.',
          statements: [
            "Maria's bakery is in Lisbon.",
            'Maria sells croissants.',
            'The bakery is open on Saturday mornings.',
            'Maria is the best baker in Lisbon.',
          ],
        },
        output: {
          statements: [
            { statement: "Maria's bakery is in Lisbon.", reason: 'The context says Maria runs a bakery in Lisbon.', verdict: 1 },
            { statement: 'Maria sells croissants.', reason: 'The context lists sourdough bread and custard tarts; croissants are not mentioned.', verdict: 0 },
            { statement: 'The bakery is open on Saturday mornings.', reason: 'The context says the shop is open until noon on Saturdays.', verdict: 1 },
            { statement: 'Maria is the best baker in Lisbon.', reason: 'The context says nothing about how good her baking is compared with others.', verdict: 0 },
          ],
        },
      },
    ],
  },
  zh: {
    language: 'zh',
    instruction:
      '请判断每条陈述能否从给定的参考资料中得到支持。对每条陈述，只依据参考资料本身、不借助资料以外的知识，判断能否直接推出：' +
      '能直接推出，verdict 为 1；推不出来，verdict 为 0——无论是资料说的与陈述不同，还是资料根本没有提到。' +
      '按给出的顺序逐条判断，不要遗漏，并简要说明每条判断的理由。',
    output_format:
      '只输出一个 JSON 对象 {"statements": [{"statement": "原样抄录的陈述", "reason": "判断理由", "verdict": 0 或 1}, ...]}，' +
      '每条输入陈述恰好对应一项。',
    examples: [
      {
        input: {
          context: '李凯 教研部主任\n张伟 教研部工程师，他最近在负责课程研发',
          statements: ['张伟是教研部的', '张伟负责大数据方向', '李凯是张伟所在部门的主任', '张伟入职已满三年'],
        },
        output: {
          statements: [
            { statement: '张伟是教研部的', reason: '资料写明张伟是教研部工程师。', verdict: 1 },
            { statement: '张伟负责大数据方向', reason: '资料只说张伟在负责课程研发，没有提到大数据方向。', verdict: 0 },
            { statement: '李凯是张伟所在部门的主任', reason: '资料说明李凯是教研部主任，张伟也在教研部。', verdict: 1 },
            { statement: '张伟入职已满三年', reason: '资料没有提到张伟的入职时间。', verdict: 0 },
          ],
        },
      },
    ],
  },
};
