// Ready-made custom metrics from the custom-metrics chapter, in English and Chinese:
// - completeness (答案完整性): LLM rubric, categories complete 1.0 / partial 0.5 / unanswered 0.0;
// - conciseness (答案简洁性): the chapter's non-LLM word-count rule, exactly;
// - customer_service_quality (客服质量): LLM rubric, 0–1 over solving the problem, a friendly tone and
//   follow-up advice.
// They are templates a dataset can adopt (and edit), not built-ins.

import type { MetricDefinition } from '../types.ts';
import { customRubricMetric } from './custom.ts';
import type { CustomRubricConfig } from './custom.ts';
import { defineMetric } from './pipeline.ts';
import { said } from '../computation.ts';

export const COMPLETENESS_CONFIG: CustomRubricConfig = {
  key: 'completeness',
  output: 'categorical',
  // Category values are language-neutral codes so labels and scores keep meaning if the prompt language changes.
  categories: [
    { value: 'complete', score: 1 },
    { value: 'partial', score: 0.5 },
    { value: 'unanswered', score: 0 },
  ],
  prompt: {
    en: {
      language: 'en',
      instruction:
        'Judge whether the answer fully answers the question.\n\nQuestion: {{question}}\nAnswer: {{answer}}\n\n' +
        'Categories:\n' +
        '- complete: every part of the question is answered clearly;\n' +
        '- partial: only some parts are answered, or the answer is vague or leaves out key information;\n' +
        '- unanswered: the question is not answered at all, or the answer is about something else.',
      output_format: '',
      examples: [
        {
          input: { question: 'How many days of annual leave do new employees get, and how do they apply?', answer: 'New employees get 5 days of annual leave.' },
          output: { reason: 'The answer gives the number of days but does not say how to apply.', value: 'partial' },
        },
      ],
    },
    zh: {
      language: 'zh',
      instruction:
        '评估回答是否完整地回答了用户的问题。\n\n问题：{{question}}\n回答：{{answer}}\n\n' +
        '类别：\n' +
        '- complete（完整回答）：问题的每一部分都得到了明确的回答；\n' +
        '- partial（部分回答）：只回答了一部分，或者回答含糊、缺少关键信息；\n' +
        '- unanswered（未回答）：完全没有回答问题，或者答非所问。',
      output_format: '',
      examples: [
        {
          input: { question: '张伟是哪个部门的？负责什么工作？', answer: '张伟是教研部的。' },
          output: { reason: '回答说明了张伟所在的部门，但没有说明他负责什么工作。', value: 'partial' },
        },
        {
          input: { question: '张伟是哪个部门的？', answer: '根据提供的信息，没有提到张伟所在的部门。' },
          output: { reason: '回答没有给出张伟所在的部门。', value: 'unanswered' },
        },
      ],
    },
  },
};

export const completenessMetric = customRubricMetric(COMPLETENESS_CONFIG);

// Python's str.split() separators (str.isspace), so the count matches the chapter's len(answer.split()).
const PY_WHITESPACE = /[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/** Python len(text.split()). Chinese text without spaces counts as one word per run of text. */
export function countWords(text: string): number {
  return text.split(PY_WHITESPACE).filter((w) => w !== '').length;
}

/** The chapter's rule: ≤ 50 words 1.0, ≤ 100 0.8, ≤ 200 0.6, otherwise 0.4. */
export function concisenessScore(words: number): number {
  if (words <= 50) return 1.0;
  if (words <= 100) return 0.8;
  if (words <= 200) return 0.6;
  return 0.4;
}

export const concisenessMetric: MetricDefinition = defineMetric({
  key: 'conciseness',
  kind: 'non_llm',
  needs: [],
  uses_embeddings: false,
  steps: [],
  async run(item, p) {
    const words = countWords(item.answer);
    const score = concisenessScore(words);
    p.values['words'] = words;
    return p.ok(score, said('comp.words', { words, value: score }));
  },
});

export const CUSTOMER_SERVICE_QUALITY_CONFIG: CustomRubricConfig = {
  key: 'customer_service_quality',
  output: 'score_0_1',
  prompt: {
    en: {
      language: 'en',
      instruction:
        'Judge the quality of a customer-service reply.\n\nCustomer question: {{question}}\nReply: {{answer}}\n\n' +
        'Consider three things:\n' +
        "1. Does the reply solve the customer's problem?\n" +
        '2. Is the tone friendly and patient?\n' +
        '3. Does it say what happens next or what the customer can do next?\n\n' +
        'Give one score from 0 to 1 for all three together: close to 1 when all three are done well, between 0.3 and 0.7 when only some are, ' +
        'close to 0 when the problem is not solved and the tone is curt.',
      output_format: '',
      examples: [
        {
          input: { question: 'My order is late, what should I do?', answer: 'Your order is being delivered, please wait.' },
          output: { reason: 'Polite enough, but it gives no tracking status, no expected delivery date and no option such as a refund or a complaint.', value: 0.3 },
        },
      ],
    },
    zh: {
      language: 'zh',
      instruction:
        '评估客服回复的质量。\n\n用户问题：{{question}}\n客服回复：{{answer}}\n\n' +
        '从三个方面考察：\n' +
        '1. 是否解决了用户的问题；\n' +
        '2. 语气是否友好、有耐心，是否先安抚了用户的情绪；\n' +
        '3. 是否给出了后续建议或下一步可以怎么做。\n\n' +
        '综合三个方面给出一个 0 到 1 之间的分数：三方面都做得好接近 1；只做到一部分在 0.3 到 0.7 之间；问题没有解决且语气生硬接近 0。',
      output_format: '',
      examples: [
        {
          input: { question: '订单延迟了怎么办？', answer: '您的订单正在派送中，请耐心等待。' },
          output: { reason: '语气尚可，但没有安抚情绪，没有给出物流状态、预计送达时间，也没有提供退款或投诉等后续处理的指引。', value: 0.3 },
        },
        {
          input: {
            question: '订单延迟了怎么办？',
            answer: '非常抱歉让您久等了！您的包裹因暴雨在转运中心滞留，目前已恢复发货，预计明天下午送达。如果明天仍未收到，您可以在订单页申请退款或联系我们优先处理。',
          },
          output: { reason: '先致歉安抚，说明了延误原因、物流状态和预计送达时间，并给出了退款与联系客服的后续选项。', value: 0.95 },
        },
      ],
    },
  },
};

export const customerServiceQualityMetric = customRubricMetric(CUSTOMER_SERVICE_QUALITY_CONFIG);

/** The rubric examples as configs, e.g. to save one as a dataset's custom metric (config minus key). */
export const EXAMPLE_RUBRIC_CONFIGS: Record<string, CustomRubricConfig> = {
  completeness: COMPLETENESS_CONFIG,
  customer_service_quality: CUSTOMER_SERVICE_QUALITY_CONFIG,
};

export const EXAMPLE_METRICS: Record<string, MetricDefinition> = {
  completeness: completenessMetric,
  conciseness: concisenessMetric,
  customer_service_quality: customerServiceQualityMetric,
};
