// The prompt lab for the verify step of context_precision: few-shot examples from the experts' labels of
// single retrieved contexts of the calibration part (question, the context, ground truth or answer → the
// gold verdict, the expert's rationale as the reason; editable in the draft), in the step's own schema.
import type { DB } from '../db/connection.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { VERIFY_REFERENCE, verifyExampleFromLabel } from '../judge/metrics/context-precision.ts';
import type { Language, PromptExample } from '../judge/types.ts';
import type { RunRow } from '../judge/run-queries.ts';
import type { ContextCalibrationService, ContextRow } from './context-service.ts';
import { compareContext } from './report-context.ts';
import { holdoutPart } from './holdout.ts';

/** A context of the calibration part with its gold value, offered as an example. */
export interface ContextCandidate {
  response_id: number; index: number; question: string; context: string; gold: string;
  /** The verdict of the metric's newest run on this context; null without one. */
  judge: 0 | 1 | null;
  rationale: string;
}

interface Picked { id: number; index: number; gold: string; judge: 0 | 1 | null }

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

  /**
   * Labelled contexts of the calibration part, at most `limit`: with a run of the metric (its newest), the
   * contexts it judged against the experts come first (rank 1 first), since those are the examples that
   * teach the step something; then the others, answer by answer. Only answers `offered` accepts are
   * listed (the caller leaves out sampled items and those whose labels the user may not read).
   */
  function candidates(dataset: DatasetRow, criterion: Criterion, run: RunRow | undefined, offered: (responseId: number) => boolean, limit = 40): ContextCandidate[] {
    const wrong: Picked[] = [];
    const rest: Picked[] = [];
    for (const { id, gold, row } of labelledAnswers(dataset, criterion, run)) {
      if (!offered(id)) continue;
      gold.forEach((value, index) => {
        if (value === undefined || value === null) return;
        const cmp = row ? compareContext(row, index) : null;
        (cmp?.disagrees ? wrong : rest).push({ id, index, gold: value, judge: cmp?.judge ?? null });
      });
      if (rest.length >= limit && wrong.length >= limit) break;
    }
    const picked = [...wrong.sort((a, b) => a.index - b.index || a.id - b.id), ...rest].slice(0, limit);
    const texts = new Map(rows.all(JSON.stringify([...new Set(picked.map((p) => p.id))])).map((r) => [r.id, r]));
    const out: ContextCandidate[] = [];
    for (const p of picked) {
      const r = texts.get(p.id);
      const context = r && (JSON.parse(r.contexts) as string[])[p.index];
      if (r && context !== undefined) out.push({ response_id: p.id, index: p.index, question: r.question, context, gold: p.gold, judge: p.judge, rationale: r.rationale ?? '' });
    }
    return out;
  }

  /**
   * The answers of the calibration part in id order with the gold value of each context: with a run,
   * its kept rows (each context's gold value beside the verdict, no lookup per answer), else the gold
   * values alone.
   */
  function* labelledAnswers(dataset: DatasetRow, criterion: Criterion, run: RunRow | undefined):
    Generator<{ id: number; gold: readonly (string | null | undefined)[]; row: ContextRow | undefined }> {
    if (run) {
      for (const row of contextCalibration.responses({ criterion, run, part: 'calibration', holdoutSeed: dataset.holdout_seed })) yield { id: row.id, gold: row.gold, row };
      return;
    }
    const gold = contextCalibration.goldFor(criterion);
    for (const id of [...gold.keys()].filter((k) => holdoutPart(dataset.holdout_seed, k) === 'calibration').sort((a, b) => a - b)) {
      yield { id, gold: gold.get(id)!, row: undefined };
    }
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
