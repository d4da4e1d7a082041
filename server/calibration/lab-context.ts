// The prompt lab for the verify step of context_precision: few-shot examples from the experts' labels of
// single retrieved contexts of the calibration part (question, the context, ground truth or answer → the
// gold verdict, the expert's rationale as the reason; editable in the draft), in the step's own schema.
import type { DB } from '../db/connection.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { VERIFY_REFERENCE, verifyExampleFromLabel } from '../judge/metrics/context-precision.ts';
import type { Language, PromptExample } from '../judge/types.ts';
import type { ContextCalibrationService } from './context-service.ts';
import { holdoutPart } from './holdout.ts';

/** A context of the calibration part with its gold value, offered as an example. */
export interface ContextCandidate { response_id: number; index: number; question: string; context: string; gold: string; rationale: string }

/** Steps whose examples come from per-context labels: the verify step of the context precision metrics. */
export function isContextStep(metricKey: string, step: string): boolean {
  return step === 'verify' && metricKey in VERIFY_REFERENCE;
}

/** The value of an example button: response id and context index. */
export const candidateValue = (c: { response_id: number; index: number }) => `${c.response_id}:${c.index}`;

export function parseCandidateValue(value: unknown): { responseId: number; index: number } | null {
  const m = /^(\d{1,15}):(\d{1,4})$/.exec(String(value ?? ''));
  return m ? { responseId: Number(m[1]), index: Number(m[2]) } : null;
}

export function labContext(db: DB, contextCalibration: ContextCalibrationService) {
  // Question, answer, ground truth, contexts and the first expert note of each listed response, in one query.
  const rows = db.prepare<[string], { id: number; question: string; ground_truth: string; answer: string; contexts: string; rationale: string | null }>(`
    SELECT r.id, s.question, s.ground_truth, r.answer, r.retrieved_contexts AS contexts, f.rationale FROM response r JOIN sample s ON s.id = r.sample_id
    LEFT JOIN annotation f ON f.id = (SELECT a.id FROM annotation a WHERE a.response_id = r.id AND a.state = 'submitted' AND a.rationale <> ''
      ORDER BY a.submitted_at LIMIT 1)
    WHERE r.id IN (SELECT value FROM json_each(?))`);

  /** Labelled contexts of the calibration part, response by response, relevant and not alike; at most `limit`. */
  function candidates(dataset: DatasetRow, criterion: Criterion, limit = 40): ContextCandidate[] {
    const gold = contextCalibration.goldFor(criterion);
    const ids = [...gold.keys()].filter((id) => holdoutPart(dataset.holdout_seed, id) === 'calibration').sort((a, b) => a - b);
    const out: ContextCandidate[] = [];
    const picked: { id: number; index: number; gold: string }[] = [];
    for (const id of ids) {
      gold.get(id)!.forEach((value, index) => { if (value !== undefined) picked.push({ id, index, gold: value }); });
      if (picked.length >= limit) break;
    }
    const texts = new Map(rows.all(JSON.stringify([...new Set(picked.map((p) => p.id))])).map((r) => [r.id, r]));
    for (const p of picked.slice(0, limit)) {
      const r = texts.get(p.id);
      const context = r && (JSON.parse(r.contexts) as string[])[p.index];
      if (r && context !== undefined) out.push({ response_id: p.id, index: p.index, question: r.question, context, gold: p.gold, rationale: r.rationale ?? '' });
    }
    return out;
  }

  /** The verify example of one labelled context of the calibration part; null when it is not one. */
  function example(dataset: DatasetRow, metricKey: string, criterion: Criterion, responseId: number, index: number, language: Language): PromptExample | null {
    const reference = VERIFY_REFERENCE[metricKey];
    if (!reference || holdoutPart(dataset.holdout_seed, responseId) !== 'calibration') return null;
    const gold = contextCalibration.goldFor(criterion).get(responseId)?.[index];
    const r = rows.all(JSON.stringify([responseId]))[0];
    if (gold === undefined || !r) return null;
    return verifyExampleFromLabel(reference, {
      response_id: responseId, index, gold, rationale: r.rationale ?? '', language,
      item: { question: r.question, answer: r.answer, ground_truth: r.ground_truth, retrieved_contexts: JSON.parse(r.contexts) as string[] },
    });
  }

  return { candidates, example };
}

export type LabContext = ReturnType<typeof labContext>;
