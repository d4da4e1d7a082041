// Per-context calibration from the database: the gold value of every retrieved context for a
// per-context criterion, each response's verdicts from a context_precision run's traces, and the
// report over them (report-context.ts). Kept with the dataset's data version, like the response-level
// report: at 100,000 responses the first view reads every label and trace once, the next ones nothing.
import type { DB } from '../db/connection.ts';
import type { DerivedCache } from '../db/derived-cache.ts';
import type { Criterion } from '../criteria/queries.ts';
import { goldValue } from '../labels/gold.ts';
import type { RunRow } from '../judge/run-queries.ts';
import { holdoutPart } from './holdout.ts';
import { contextReport, type ContextReport, type ContextResponse } from './report-context.ts';
import type { ScoreStatus } from './report.ts';
import { exampleItems, type CalibrationInput } from './service.ts';

/**
 * Metrics whose score of a response is Ragas's context precision over its retrieved contexts (goldset's
 * two, Ragas's llm_/non_llm_/id_based_ variants); migration 0019's trigger uses the same rule.
 */
export function isContextPrecisionMetric(metricKey: string): boolean {
  return metricKey.includes('context_precision');
}

export type ContextRow = ContextResponse & { system: string };

/** The verdicts a context_precision trace keeps (`values.verdicts`), or null when they are not a list of 0/1. */
export function parseVerdicts(json: string | null): (0 | 1)[] | null {
  if (!json) return null;
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) && v.every((x) => x === 0 || x === 1) ? (v as (0 | 1)[]) : null;
  } catch {
    return null;
  }
}

export function contextCalibrationService(db: DB, derived: DerivedCache) {
  const s = {
    // Two scans merged in id order rather than a join: a join looks up each score on its own.
    responses: db.prepare<[number], { id: number; contexts: number; system: string }>(`
      SELECT id, json_array_length(retrieved_contexts) AS contexts, system FROM response WHERE dataset_id = ? ORDER BY id`),
    scores: db.prepare<[number], { response_id: number; status: string; value: number | null; verdicts: string | null }>(
      'SELECT response_id, status, value, verdicts FROM context_precision_score WHERE run_id = ? ORDER BY response_id'),
    values: db.prepare<[number], { response_id: number; context_index: number; value: string }>(`
      SELECT a.response_id, l.context_index, l.value FROM label l JOIN annotation a ON a.id = l.annotation_id
      WHERE l.criterion_id = ? AND l.context_index >= 0 AND a.state = 'submitted'`),
    adjudications: db.prepare<[number], { response_id: number; context_index: number; value: string }>(
      'SELECT response_id, context_index, value FROM adjudication WHERE criterion_id = ? AND context_index >= 0'),
  };

  /**
   * Gold values of a per-context criterion: response id → the gold value by context index (adjudicated,
   * else unanimous; a hole where there is none). Kept until the dataset's data changes.
   */
  function goldFor(criterion: Criterion): ReadonlyMap<number, readonly (string | undefined)[]> {
    return derived.get(criterion.dataset_id, `context-gold:${criterion.id}`, () => {
      // Submitted values per response and index: most slots have one expert's value, kept without a list.
      const submitted = new Map<number, (string | string[] | undefined)[]>();
      for (const v of s.values.all(criterion.id)) {
        let slots = submitted.get(v.response_id);
        if (!slots) submitted.set(v.response_id, (slots = []));
        const had = slots[v.context_index];
        slots[v.context_index] = had === undefined ? v.value : typeof had === 'string' ? [had, v.value] : (had.push(v.value), had);
      }
      const adjudicated = new Map<number, string[]>();
      for (const a of s.adjudications.all(criterion.id)) {
        let slots = adjudicated.get(a.response_id);
        if (!slots) adjudicated.set(a.response_id, (slots = []));
        slots[a.context_index] = a.value;
      }
      const out = new Map<number, (string | undefined)[]>();
      for (const rid of new Set([...submitted.keys(), ...adjudicated.keys()])) {
        const values = submitted.get(rid) ?? [];
        const decided = adjudicated.get(rid) ?? [];
        const gold: (string | undefined)[] = [];
        for (let i = 0; i < Math.max(values.length, decided.length); i++) {
          const v = values[i];
          gold[i] = goldValue(criterion.kind, v === undefined ? [] : typeof v === 'string' ? [v] : v, decided[i] ?? null) ?? undefined;
        }
        if (gold.some((g) => g !== undefined)) out.set(rid, gold);
      }
      return out;
    });
  }

  /** Every response of the dataset in the part, with its verdicts in the run and the gold value of each context. */
  function responses(input: CalibrationInput): readonly ContextRow[] {
    const key = `context-responses:${input.criterion.id}:${input.run.id}:${input.part}:${input.holdoutSeed}`;
    return derived.get(input.run.dataset_id, key, () => {
      const gold = goldFor(input.criterion);
      const scores = s.scores.all(input.run.id);
      let k = 0;
      const out: ContextRow[] = [];
      for (const r of s.responses.all(input.run.dataset_id)) {
        while (k < scores.length && scores[k]!.response_id < r.id) k++;
        const sc = scores[k]?.response_id === r.id ? scores[k] : undefined;
        if (input.part !== 'all' && holdoutPart(input.holdoutSeed, r.id) !== input.part) continue;
        const g = gold.get(r.id);
        out.push({
          id: r.id, system: r.system, scoreStatus: (sc?.status ?? 'missing') as ScoreStatus, score: sc?.value ?? null,
          verdicts: parseVerdicts(sc?.verdicts ?? null), gold: Array.from({ length: r.contexts }, (_, i) => g?.[i] ?? null),
        });
      }
      return out;
    });
  }

  return {
    goldFor,
    responses,
    /** The per-context report of a criterion, run and part (kept while the dataset is unchanged). */
    report(input: CalibrationInput & { resamples?: number }): Readonly<{ report: ContextReport; responses: readonly ContextRow[] }> {
      const key = `context-report:${input.criterion.id}:${input.run.id}:${input.part}:${input.holdoutSeed}:${input.resamples ?? ''}`;
      return derived.get(input.run.dataset_id, key, () => {
        const rows = responses(input);
        const report = contextReport({ responses: rows, exclude: exampleItems(input.run), ...(input.resamples !== undefined ? { resamples: input.resamples } : {}) });
        return { report, responses: rows };
      });
    },
  };
}

export type ContextCalibrationService = ReturnType<typeof contextCalibrationService>;

/** Runs a per-context criterion can be calibrated against. */
export const contextRuns = (runs: readonly RunRow[]): RunRow[] => runs.filter((r) => isContextPrecisionMetric(r.metric_key));
