// The gold value of a label slot: an adjudication if there is one, else the experts' unanimous value,
// and for numeric criteria the mean of their values. Disagreement without adjudication has no gold.
import type { CriterionKind } from '../criteria/values.ts';

export function goldValue(kind: CriterionKind, submitted: string[], adjudicated: string | null): string | null {
  if (adjudicated !== null) return adjudicated;
  if (submitted.length === 0) return null;
  if (kind === 'numeric') {
    const mean = submitted.reduce((sum, v) => sum + Number(v), 0) / submitted.length;
    return String(Math.round(mean * 1e9) / 1e9);
  }
  return submitted.every((v) => v === submitted[0]) ? submitted[0]! : null;
}
