// An example expert's labels on one response, as the workspace form would send them.
import { valueKey, type AnnotationInput } from '../../labels/service.ts';

export function labelsFromForm(correctId: number, relevantId: number, v: { correct: boolean; relevant: boolean[] }, rationale: string): AnnotationInput {
  const values = new Map<string, string>([[valueKey(correctId, -1), v.correct ? '1' : '0']]);
  v.relevant.forEach((yes, i) => values.set(valueKey(relevantId, i), yes ? '1' : '0'));
  return { values, rationale, corrected_answer: '' };
}
