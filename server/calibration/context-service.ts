// Per-context calibration from the database: the gold value of every retrieved context for a
// per-context criterion, each response's verdicts from a context_precision run's traces, and the
// report over them (report-context.ts). Kept with the dataset's data version, like the response-level
// report: at 100,000 responses the first view reads every label and trace once, the next ones nothing.
// During active labelling the label service's writes are followed (derived-cache.ts: follow): the gold
// values and the rows take the touched responses' values again; the report and the comparison of two
// runs stay as they are when those gold values did not change, and are computed again otherwise.
import type { DB } from '../db/connection.ts';
import type { DerivedCache, Follow } from '../db/derived-cache.ts';
import type { Criterion } from '../criteria/queries.ts';
import { goldValue } from '../labels/gold.ts';
import type { RunRow } from '../judge/run-queries.ts';
import { holdoutPart } from './holdout.ts';
import { compareContextRuns, type ContextComparison } from './compare-context.ts';
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

/** A response's gold value by context index, with holes where there is none. */
type Gold = readonly (string | undefined)[];

interface SlotValue { response_id: number; context_index: number; value: string }

/** The gold value of each of a response's `contexts` contexts, null where there is none. */
const goldOfContexts = (gold: Gold | undefined, contexts: number): (string | null)[] => Array.from({ length: contexts }, (_, i) => gold?.[i] ?? null);

/** The row of a response in rows sorted by id (as `responses` keeps them), if it is there. */
function rowOf(rows: readonly ContextRow[], id: number): ContextRow | undefined {
  let lo = 0, hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = rows[mid]!.id;
    if (at === id) return rows[mid];
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

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
    values: db.prepare<[number], SlotValue>(`
      SELECT a.response_id, l.context_index, l.value FROM label l JOIN annotation a ON a.id = l.annotation_id
      WHERE l.criterion_id = ? AND l.context_index >= 0 AND a.state = 'submitted'`),
    adjudications: db.prepare<[number], SlotValue>(
      'SELECT response_id, context_index, value FROM adjudication WHERE criterion_id = ? AND context_index >= 0'),
    // The same, of the listed responses only (what a tracked write touched): CROSS JOIN keeps SQLite from
    // scanning every label of the criterion (label_criterion) instead of looking up the few annotations.
    valuesOf: db.prepare<{ criterion: number; ids: string }, SlotValue>(`
      SELECT a.response_id, l.context_index, l.value FROM json_each(@ids) j CROSS JOIN annotation a ON a.response_id = j.value
      CROSS JOIN label l ON l.annotation_id = a.id
      WHERE l.criterion_id = @criterion AND l.context_index >= 0 AND a.state = 'submitted'`),
    adjudicationsOf: db.prepare<{ criterion: number; ids: string }, SlotValue>(`SELECT response_id, context_index, value FROM adjudication
      WHERE response_id IN (SELECT value FROM json_each(@ids)) AND criterion_id = @criterion AND context_index >= 0`),
  };

  /**
   * Gold values by response from submitted values and adjudications of a per-context criterion: the gold
   * value by context index (adjudicated, else unanimous; a hole where there is none); responses with none
   * are left out.
   */
  function goldOfRows(kind: Criterion['kind'], values: readonly SlotValue[], adjudications: readonly SlotValue[]): Map<number, Gold> {
    // Submitted values per response and index: most slots have one expert's value, kept without a list.
    const submitted = new Map<number, (string | string[] | undefined)[]>();
    for (const v of values) {
      let slots = submitted.get(v.response_id);
      if (!slots) submitted.set(v.response_id, (slots = []));
      const had = slots[v.context_index];
      slots[v.context_index] = had === undefined ? v.value : typeof had === 'string' ? [had, v.value] : (had.push(v.value), had);
    }
    const adjudicated = new Map<number, string[]>();
    for (const a of adjudications) {
      let slots = adjudicated.get(a.response_id);
      if (!slots) adjudicated.set(a.response_id, (slots = []));
      slots[a.context_index] = a.value;
    }
    const out = new Map<number, Gold>();
    for (const rid of new Set([...submitted.keys(), ...adjudicated.keys()])) {
      const slots = submitted.get(rid) ?? [];
      const decided = adjudicated.get(rid) ?? [];
      const gold: (string | undefined)[] = [];
      for (let i = 0; i < Math.max(slots.length, decided.length); i++) {
        const v = slots[i];
        gold[i] = goldValue(kind, v === undefined ? [] : typeof v === 'string' ? [v] : v, decided[i] ?? null) ?? undefined;
      }
      if (gold.some((g) => g !== undefined)) out.set(rid, gold);
    }
    return out;
  }

  // The gold values of the responses a tracked write touched, read once per write and criterion
  // however many kept values follow it (the cache hands each follow the same list of touched ids).
  const touchedGoldOfWrite = new WeakMap<readonly number[], Map<number, Map<number, Gold>>>();
  function touchedGold(criterion: Criterion, touched: readonly number[]): ReadonlyMap<number, Gold> {
    let ofWrite = touchedGoldOfWrite.get(touched);
    if (!ofWrite) touchedGoldOfWrite.set(touched, (ofWrite = new Map()));
    let gold = ofWrite.get(criterion.id);
    if (!gold) {
      const which = { criterion: criterion.id, ids: JSON.stringify(touched) };
      ofWrite.set(criterion.id, (gold = goldOfRows(criterion.kind, s.valuesOf.all(which), s.adjudicationsOf.all(which))));
    }
    return gold;
  }

  /**
   * Gold values of a per-context criterion: response id → the gold value by context index. Kept; a
   * tracked label write re-reads the touched responses' values (follow: derived-cache.ts).
   */
  function goldFor(criterion: Criterion): ReadonlyMap<number, Gold> {
    return derived.get(criterion.dataset_id, `context-gold:${criterion.id}`,
      () => goldOfRows(criterion.kind, s.values.all(criterion.id), s.adjudications.all(criterion.id)),
      (kept, touched) => {
        const now = touchedGold(criterion, touched);
        return () => {
          for (const id of touched) {
            const gold = now.get(id);
            if (gold) kept.set(id, gold);
            else kept.delete(id);
          }
          return kept;
        };
      });
  }

  /**
   * Every response of the dataset in the part, with its verdicts in the run and the gold value of each
   * context. Kept; a tracked label write changes only gold values (verdicts read no labels), which are
   * updated in place for the touched responses.
   */
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
        out.push({
          id: r.id, system: r.system, scoreStatus: (sc?.status ?? 'missing') as ScoreStatus, score: sc?.value ?? null,
          verdicts: parseVerdicts(sc?.verdicts ?? null), gold: goldOfContexts(gold.get(r.id), r.contexts),
        });
      }
      return out;
    }, (rows, touched) => {
      const now = touchedGold(input.criterion, touched);
      return () => {
        for (const id of touched) {
          const row = rowOf(rows, id);
          // The cache freezes the rows; their gold lists, one level further down, are what follows.
          if (row) (row.gold as (string | null)[]).splice(0, row.gold.length, ...goldOfContexts(now.get(id), row.gold.length));
        }
        return rows;
      };
    });
  }

  /**
   * Follows a write for a value computed from `rows` (the report, the comparison of two runs): unchanged
   * when no touched response's gold value changed (the write was to another criterion, or re-submitted
   * the same values), since the value reads nothing else a label write changes; otherwise it cannot follow
   * (its bootstrap draws whole responses, and is computed again when next asked).
   */
  function unlessGoldChanged<T>(criterion: Criterion, rowsOf: (kept: T) => readonly ContextRow[]): Follow<T> {
    return (kept, touched) => {
      const now = touchedGold(criterion, touched);
      const same = touched.every((id) => {
        const row = rowOf(rowsOf(kept), id);
        return !row || goldOfContexts(now.get(id), row.gold.length).every((g, i) => g === row.gold[i]);
      });
      return same ? () => kept : null;
    };
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
      }, unlessGoldChanged(input.criterion, (kept) => kept.responses));
    },
    /** Two runs against the criterion's gold over every answer (compare-context.ts), kept like the report. */
    compare(criterion: Criterion, a: RunRow, b: RunRow, holdoutSeed: number, exclude: ReadonlySet<number>): ContextComparison {
      const input = (run: RunRow) => ({ criterion, run, part: 'all' as const, holdoutSeed });
      const key = `context-compare:${criterion.id}:${a.id}:${b.id}:${holdoutSeed}`;
      return derived.get(criterion.dataset_id, key, () => {
        const rows = responses(input(a));
        return { cmp: compareContextRuns(rows, responses(input(b)), { exclude }), rows };
      }, unlessGoldChanged(criterion, (kept) => kept.rows)).cmp;
    },
  };
}

export type ContextCalibrationService = ReturnType<typeof contextCalibrationService>;

/** Runs a per-context criterion can be calibrated against. */
export const contextRuns = (runs: readonly RunRow[]): RunRow[] => runs.filter((r) => isContextPrecisionMetric(r.metric_key));
