// Output-format text for custom rubric metrics, generated from the rubric's output type so a
// rubric author only writes the instruction. The reply is always {"reason": ..., "value": ...}.

import type { Language } from '../types.ts';

export type RubricOutput = 'binary' | 'categorical' | 'scale_1_5' | 'score_0_1';

export interface RubricCategory {
  /** What the judge answers (and what an expert's categorical label is compared with). */
  value: string;
  /** The category's score in [0, 1]. */
  score: number;
}

export function rubricOutputFormat(output: RubricOutput, language: Language, categories: readonly RubricCategory[] = []): string {
  const values = categories.map((c) => JSON.stringify(c.value)).join(language === 'zh' ? '、' : ', ');
  if (language === 'zh') {
    switch (output) {
      case 'binary': return '只输出一个 JSON 对象 {"reason": "评估理由", "value": 1 或 0}：满足评估标准为 1，不满足为 0。先写理由，再给结论。';
      case 'scale_1_5': return '只输出一个 JSON 对象 {"reason": "评估理由", "value": 1 到 5 的整数}：5 为最好，1 为最差。先写理由，再给分数。';
      case 'score_0_1': return '只输出一个 JSON 对象 {"reason": "评估理由", "value": 0 到 1 之间的数}：1 为最好，0 为最差。先写理由，再给分数。';
      case 'categorical': return `只输出一个 JSON 对象 {"reason": "评估理由", "value": 类别}，value 必须是以下之一：${values}。先写理由，再给类别。`;
    }
  }
  switch (output) {
    case 'binary': return 'Reply with one JSON object {"reason": "<your reasoning>", "value": 1 or 0}: 1 if the criterion is met, 0 if it is not. Give the reason first, then the value.';
    case 'scale_1_5': return 'Reply with one JSON object {"reason": "<your reasoning>", "value": an integer from 1 to 5}: 5 is best, 1 is worst. Give the reason first, then the value.';
    case 'score_0_1': return 'Reply with one JSON object {"reason": "<your reasoning>", "value": a number from 0 to 1}: 1 is best, 0 is worst. Give the reason first, then the value.';
    case 'categorical': return `Reply with one JSON object {"reason": "<your reasoning>", "value": <category>} where value is one of ${values}. Give the reason first, then the value.`;
  }
}
