// Brings judge scores and expert gold labels together for one criterion, one run and one part of the
// holdout split; records calibrations (what the CI gate reads) and reviewers' verdicts.
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { DerivedCache, Follow } from '../db/derived-cache.ts';
import type { Criterion } from '../criteria/queries.ts';
import { choices } from '../criteria/values.ts';
import { goldValue } from '../labels/gold.ts';
import type { RunRow } from '../judge/run-queries.ts';
import type { PromptInUse } from '../judge/types.ts';
import { holdoutPart, type HoldoutPart } from './holdout.ts';
import { identityChanges, identityOfRun, type IdentityChange, type JudgeIdentity } from './judge-identity.ts';
import { calibrationReport, type CalibrationPair, type CalibrationReport } from './report.ts';
import { writableGuard } from '../datasets/archived.ts';

export type Part = 'all' | HoldoutPart;
export const PARTS: Part[] = ['calibration', 'held_out', 'all'];

export interface CalibrationInput { criterion: Criterion; run: RunRow; part: Part; threshold?: number | undefined; holdoutSeed: number }

/** The figure a calibration is judged by: κ where the scales match, else Spearman's ρ. */
export function strengthOf(report: CalibrationReport): { name: string; value: number | null } {
  switch (report.kind) {
    case 'binary': return { name: 'cohen_kappa', value: report.cohen_kappa };
    case 'categorical': return report.categorical.kappa !== null ? { name: 'cohen_kappa', value: report.categorical.kappa } : { name: 'spearman', value: report.spearman };
    case 'ordinal': return report.quadratic_kappa !== null ? { name: 'quadratic_kappa', value: report.quadratic_kappa } : { name: 'spearman', value: report.spearman };
    case 'numeric': return { name: 'spearman', value: report.spearman };
  }
}

/** Items used as few-shot examples by the prompts a run used: never counted in its figures. */
export function exampleItems(run: RunRow): Set<number> {
  const used = (JSON.parse(run.prompts) as { used?: Record<string, PromptInUse> }).used ?? {};
  const ids = new Set<number>();
  for (const p of Object.values(used)) {
    for (const ex of p.examples ?? []) {
      const id = (ex as { response_id?: unknown }).response_id;
      if (typeof id === 'number') ids.add(id);
    }
  }
  return ids;
}

/** A recorded calibration with the run it was computed from (what the judge was). */
export interface RecordedCalibration {
  id: number; metric_key: string; criterion_id: number; criterion: string; run_id: number; run: string; part: string;
  strength: number | null; strength_name: string; report: string; item_ids: string; created_at: string;
  source: 'goldset' | 'imported'; model: string; embedding_model: string; prompts: string;
}

/** The newest calibration of exactly the given judge, or why there is none: the newest one's differences. */
export type CalibrationMatch =
  | { found: RecordedCalibration; identity: JudgeIdentity }
  | { found: null; latest: RecordedCalibration | null; changes: IdentityChange[] };

export interface VerdictRow { response_id: number; verdict: 'judge_right' | 'expert_right' | 'ambiguous'; note: string; reviewer_email: string; updated_at: string; version: number }

/** Someone recorded a verdict on this item since the form was read. */
export class VerdictConflict extends Error {
  constructor() { super('conflict'); }
}

export function calibrationService(db: DB, audit: AuditQueries, derived: DerivedCache) {
  const writable = writableGuard(db);
  const s = {
    scores: db.prepare<{ run: number; ds: number }, { id: number; status: string | null; value: number | null; label: string | null; system: string }>(`
      SELECT r.id, sc.status, sc.value, json_extract(sc.trace, '$.values.raw_value') AS label, r.system
      FROM response r LEFT JOIN score sc ON sc.response_id = r.id AND sc.run_id = @run WHERE r.dataset_id = @ds ORDER BY r.id`),
    // Only a categorical criterion reads the judge's label, which lies in the trace: the other kinds do not parse every trace.
    numericScores: db.prepare<{ run: number; ds: number }, { id: number; status: string | null; value: number | null; label: string | null; system: string }>(`
      SELECT r.id, sc.status, sc.value, NULL AS label, r.system
      FROM response r LEFT JOIN score sc ON sc.response_id = r.id AND sc.run_id = @run WHERE r.dataset_id = @ds ORDER BY r.id`),
    // In annotation order, here and for one response: a numeric mean adds the values in the same order either way.
    // For one response, CROSS JOIN reads its annotations first (else sqlite reads every label of the criterion).
    values: db.prepare<[number], { response_id: number; value: string }>(`SELECT a.response_id, l.value FROM label l JOIN annotation a ON a.id = l.annotation_id
      WHERE l.criterion_id = ? AND l.context_index = -1 AND a.state = 'submitted' ORDER BY l.annotation_id`),
    adjudications: db.prepare<[number], { response_id: number; value: string }>('SELECT response_id, value FROM adjudication WHERE criterion_id = ? AND context_index = -1'),
    valuesOf: db.prepare<[number, number], string>(`SELECT l.value FROM annotation a CROSS JOIN label l ON l.annotation_id = a.id
      WHERE a.response_id = ? AND l.criterion_id = ? AND l.context_index = -1 AND a.state = 'submitted' ORDER BY a.id`).pluck(),
    adjudicationOf: db.prepare<[number, number], string>('SELECT value FROM adjudication WHERE response_id = ? AND criterion_id = ? AND context_index = -1').pluck(),
    insert: db.prepare(`INSERT INTO calibration (dataset_id, criterion_id, run_id, metric_key, part, threshold, strength, strength_name, report, item_ids, created_by)
      VALUES (@dataset_id, @criterion_id, @run_id, @metric_key, @part, @threshold, @strength, @strength_name, @report, @item_ids, @created_by)`),
    latest: db.prepare<[number, string], { id: number; criterion_id: number; criterion: string; run_id: number; run: string; part: string; strength: number | null; strength_name: string; report: string; item_ids: string; created_at: string }>(`
      SELECT c.id, c.criterion_id, k.name AS criterion, c.run_id, r.name AS run, c.part, c.strength, c.strength_name, c.report, c.item_ids, c.created_at
      FROM calibration c JOIN criterion k ON k.id = c.criterion_id JOIN run r ON r.id = c.run_id
      WHERE c.dataset_id = ? AND c.metric_key = ? ORDER BY c.id DESC LIMIT 1`),
    recorded: db.prepare<[number, string], RecordedCalibration>(`
      SELECT c.id, c.metric_key, c.criterion_id, k.name AS criterion, c.run_id, r.name AS run, c.part, c.strength, c.strength_name, c.report, c.item_ids,
        c.created_at, r.source, r.model, r.embedding_model, r.prompts
      FROM calibration c JOIN criterion k ON k.id = c.criterion_id JOIN run r ON r.id = c.run_id
      WHERE c.dataset_id = ? AND c.metric_key = ? ORDER BY c.id DESC LIMIT 500`),
    recordedInDataset: db.prepare<[number], RecordedCalibration>(`
      SELECT c.id, c.metric_key, c.criterion_id, k.name AS criterion, c.run_id, r.name AS run, c.part, c.strength, c.strength_name, '{}' AS report,
        '[]' AS item_ids, c.created_at, r.source, r.model, r.embedding_model, r.prompts
      FROM calibration c JOIN criterion k ON k.id = c.criterion_id JOIN run r ON r.id = c.run_id
      WHERE c.dataset_id = ? ORDER BY c.id DESC LIMIT 200`),
    upsertVerdict: db.prepare(`INSERT INTO review_verdict (dataset_id, run_id, response_id, criterion_id, verdict, note, reviewer_id)
      VALUES (@dataset_id, @run_id, @response_id, @criterion_id, @verdict, @note, @reviewer_id)
      ON CONFLICT (run_id, response_id, criterion_id) DO UPDATE SET verdict = excluded.verdict, note = excluded.note,
        reviewer_id = excluded.reviewer_id, version = version + 1, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`),
    verdict: db.prepare<[number, number, number], VerdictRow>(`SELECT v.response_id, v.verdict, v.note, u.email AS reviewer_email, v.updated_at, v.version
      FROM review_verdict v JOIN user u ON u.id = v.reviewer_id WHERE v.run_id = ? AND v.response_id = ? AND v.criterion_id = ?`),
    calibratedPairs: db.prepare<[number], { criterion_id: number; metric_key: string }>('SELECT DISTINCT criterion_id, metric_key FROM calibration WHERE dataset_id = ?'),
    verdicts: db.prepare<[number, number], VerdictRow>(`SELECT v.response_id, v.verdict, v.note, u.email AS reviewer_email, v.updated_at, v.version
      FROM review_verdict v JOIN user u ON u.id = v.reviewer_id WHERE v.run_id = ? AND v.criterion_id = ?`),
  };

  /**
   * Gold values of a response-level criterion: adjudicated, else unanimous, else (numeric) the mean.
   * Kept until the dataset's data changes, and following the label service's writes (the touched
   * responses' gold worked out again); callers must not change the map.
   */
  function goldFor(criterion: Criterion): ReadonlyMap<number, string> {
    return derived.get(criterion.dataset_id, `gold:${criterion.id}`, () => computeGold(criterion), followGold(criterion));
  }

  function computeGold(criterion: Criterion): Map<number, string> {
    const byResponse = new Map<number, string[]>();
    for (const v of s.values.all(criterion.id)) {
      const values = byResponse.get(v.response_id);
      if (values) values.push(v.value);
      else byResponse.set(v.response_id, [v.value]);
    }
    const adjudicated = new Map(s.adjudications.all(criterion.id).map((a) => [a.response_id, a.value]));
    const out = new Map<number, string>();
    const put = (id: number) => {
      const g = goldValue(criterion.kind, byResponse.get(id) ?? [], adjudicated.get(id) ?? null);
      if (g !== null) out.set(id, g);
    };
    for (const id of byResponse.keys()) put(id);
    for (const id of adjudicated.keys()) if (!byResponse.has(id)) put(id);
    return out;
  }

  /** The gold value of one response now (two queries): what computeGold gives it. */
  function goldOfResponse(criterion: Criterion, responseId: number): string | null {
    return goldValue(criterion.kind, s.valuesOf.all(responseId, criterion.id), s.adjudicationOf.get(responseId, criterion.id) ?? null);
  }

  /** Follows a tracked write: the touched responses' gold read again inside it, set in the kept map once it has committed. */
  const followGold = (criterion: Criterion): Follow<Map<number, string>> => (gold, touched) => {
    const now = touched.map((id) => [id, goldOfResponse(criterion, id)] as const);
    return () => {
      for (const [id, g] of now) {
        if (g === null) gold.delete(id);
        else gold.set(id, g);
      }
      return gold;
    };
  };

  type Pair = CalibrationPair & { system: string };

  /**
   * Every response of the dataset in the chosen part (in id order), with its score in the run and
   * its gold value (kept while the dataset is unchanged; following the label service's writes).
   */
  function pairs(input: CalibrationInput): readonly Pair[] {
    return derived.get(input.run.dataset_id, `pairs:${input.criterion.id}:${input.run.id}:${input.part}:${input.holdoutSeed}`,
      () => computePairs(input), followPairs(input.criterion));
  }

  function computePairs(input: CalibrationInput): Pair[] {
    const gold = goldFor(input.criterion);
    return (input.criterion.kind === 'categorical' ? s.scores : s.numericScores).all({ run: input.run.id, ds: input.run.dataset_id })
      .filter((r) => input.part === 'all' || holdoutPart(input.holdoutSeed, r.id) === input.part)
      .map((r) => ({
        id: r.id, system: r.system,
        scoreStatus: (r.status ?? 'missing') as CalibrationPair['scoreStatus'],
        score: r.value, gold: gold.get(r.id) ?? null, label: r.label,
      }));
  }

  /** The touched responses among `pairs` whose gold value the write changed (read inside it), as (index, gold now). */
  function goldChanges(criterion: Criterion, pairs: readonly Pair[], touched: readonly number[]): (readonly [number, string | null])[] {
    return touched.map((id) => [indexById(pairs, id), id] as const).filter(([i]) => i >= 0)
      .map(([i, id]) => [i, goldOfResponse(criterion, id)] as const).filter(([i, g]) => pairs[i]!.gold !== g);
  }

  /**
   * Follows a tracked write for a value computed from `pairs` alone (the report, its charts): kept
   * as it is when no gold value among them changed (a save of another criterion or of a context, an
   * expert agreeing with the gold), else computed again on the next view — its bootstrap cannot be
   * updated exactly from one item.
   */
  const unlessGoldChanged = <T,>(criterion: Criterion, pairsOf: (value: T) => readonly Pair[]): Follow<T> => (value, touched) =>
    (goldChanges(criterion, pairsOf(value), touched).length === 0 ? () => value : null);

  /**
   * Follows a tracked write: a label write changes only gold values, so the touched responses that
   * are in the list (found by id: it is in id order) get their gold read again. The kept list and
   * its items are frozen: a changed list is a copy with the changed items replaced.
   */
  const followPairs = (criterion: Criterion): Follow<Pair[]> => (pairs, touched) => {
    const changed = goldChanges(criterion, pairs, touched);
    return () => {
      if (changed.length === 0) return pairs;
      const next = pairs.slice();
      for (const [i, gold] of changed) next[i] = { ...pairs[i]!, gold };
      return next;
    };
  };

  return {
    goldFor,
    goldOfResponse,
    pairs,
    unlessGoldChanged,
    /** The report of a criterion, run and part (kept while the dataset is unchanged: 1,000 bootstrap resamples take a while). */
    report(input: CalibrationInput & { resamples?: number }): Readonly<{ report: CalibrationReport; pairs: readonly Pair[] }> {
      const key = `report:${input.criterion.id}:${input.run.id}:${input.part}:${input.holdoutSeed}:${input.threshold ?? ''}:${input.resamples ?? ''}`;
      return derived.get(input.run.dataset_id, key, () => {
        const p = pairs(input);
        const categories = input.criterion.kind === 'categorical' || input.criterion.kind === 'ordinal' ? choices(input.criterion).map((o) => o.value) : undefined;
        const report = calibrationReport({
          kind: input.criterion.kind, pairs: p, threshold: input.threshold, exclude: exampleItems(input.run),
          ...(categories ? { categories } : {}), ...(input.resamples !== undefined ? { resamples: input.resamples } : {}),
        });
        return { report, pairs: p };
      }, unlessGoldChanged(input.criterion, (value) => value.pairs));
    },
    record(actorId: number | null, input: CalibrationInput, report: CalibrationReport, itemIds: number[]): number {
      const strength = strengthOf(report);
      return db.transaction(() => {
        writable(input.run.dataset_id);
        const id = Number(s.insert.run({
          dataset_id: input.run.dataset_id, criterion_id: input.criterion.id, run_id: input.run.id, metric_key: input.run.metric_key, part: input.part,
          threshold: report.kind === 'binary' ? report.threshold : (input.threshold ?? 0.5), strength: strength.value, strength_name: strength.name,
          report: JSON.stringify(report), item_ids: JSON.stringify(itemIds), created_by: actorId,
        }).lastInsertRowid);
        audit.record({ actorId, entityType: 'run', entityId: input.run.id, datasetId: input.run.dataset_id, action: 'calibration',
          after: { criterion: input.criterion.name, part: input.part, n: report.n, [strength.name]: strength.value } });
        return id;
      })();
    },
    latestFor: (datasetId: number, metricKey: string) => s.latest.get(datasetId, metricKey),
    /**
     * The newest calibration of a metric recorded with exactly this judge: model, embedding model,
     * prompt versions and settings ('judge', what the gate needs), or the prompt versions alone
     * ('prompts', what an export of prompts needs; its model is reported with it).
     */
    matching(datasetId: number, metricKey: string, identity: JudgeIdentity, scope: 'judge' | 'prompts' = 'judge'): CalibrationMatch {
      const all = s.recorded.all(datasetId, metricKey);
      const relevant = (changes: IdentityChange[]) => (scope === 'judge' ? changes : changes.filter((c) => c.what === 'prompt_version' || c.what === 'prompt_text'));
      for (const c of all) {
        const recorded = identityOfRun(c);
        if (relevant(identityChanges(recorded, identity)).length === 0) return { found: c, identity: recorded };
      }
      const latest = all[0] ?? null;
      return { found: null, latest, changes: latest ? relevant(identityChanges(identityOfRun(latest), identity)) : [] };
    },
    /** The dataset's newest calibrations (without their reports), for the Metrics page. */
    recordedInDataset: (datasetId: number) => s.recordedInDataset.all(datasetId),
    /** "criterionId:metricKey" of every pair recorded as a calibration in the dataset. */
    calibratedPairs: (datasetId: number) => new Set(s.calibratedPairs.all(datasetId).map((p) => `${p.criterion_id}:${p.metric_key}`)),
    /** Records a reviewer's verdict; `expectedVersion` is the verdict version the form showed (0: none yet). */
    setVerdict(reviewerId: number, v: { dataset_id: number; run_id: number; response_id: number; criterion_id: number; verdict: string; note: string },
      expectedVersion: number): void {
      db.transaction(() => {
        writable(v.dataset_id);
        const before = s.verdict.get(v.run_id, v.response_id, v.criterion_id);
        if ((before?.version ?? 0) !== expectedVersion) throw new VerdictConflict();
        s.upsertVerdict.run({ ...v, reviewer_id: reviewerId });
        audit.record({ actorId: reviewerId, entityType: 'run', entityId: v.run_id, datasetId: v.dataset_id, action: 'review_verdict',
          before: before ? { verdict: before.verdict, note: before.note } : undefined, after: { response: v.response_id, criterion: v.criterion_id, verdict: v.verdict, note: v.note } });
      })();
    },
    verdict: (runId: number, responseId: number, criterionId: number) => s.verdict.get(runId, responseId, criterionId),
    verdicts: (runId: number, criterionId: number) => new Map(s.verdicts.all(runId, criterionId).map((v) => [v.response_id, v])),
  };
}

export type CalibrationService = ReturnType<typeof calibrationService>;

/** The item `id` of a list in ascending id order (the pairs), if there. */
export function pairById<P extends { id: number }>(items: readonly P[], id: number): P | undefined {
  const i = indexById(items, id);
  return i < 0 ? undefined : items[i];
}

/** Where the item `id` is in a list in ascending id order, or -1. */
function indexById(items: readonly { id: number }[], id: number): number {
  let lo = 0, hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < items.length && items[lo]!.id === id ? lo : -1;
}
