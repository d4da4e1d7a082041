// Estimation samples (draw, extend, which one an estimate uses) and the true-score estimate of a
// criterion and a run, per system or over all systems, with its bias diagnostics and comparisons.
import crypto from 'node:crypto';
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { DerivedCache, Follow } from '../db/derived-cache.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { RunRow } from '../judge/run-queries.ts';
import type { MessageKey } from '../i18n/index.ts';
import { goldValue } from '../labels/gold.ts';
import { exampleItems } from '../calibration/service.ts';
import { biasDiagnostics, type BiasReport } from './bias.ts';
import { compareScopes, estimateScope, goldNumber, predictionRule, type Comparison, type PredictionError, type SampledItem,
  type ScopeEstimate } from './compute.ts';
import { drawUniform, MAX_SEED } from './sampling.ts';
import { writableGuard } from '../datasets/archived.ts';
import { estimateQueries, RANK_BASE, type DrawRow, type SampleRow, type SampledRow } from './queries.ts';

/** The largest draw: a sample is for experts to label, and 20,000 labels is already more than a team gives. */
export const MAX_SAMPLE_SIZE = 20_000;
export const DEFAULT_HALF_WIDTH = 0.05;

export class EstimateError extends Error {
  constructor(readonly key: MessageKey, readonly params: Record<string, string | number> = {}) { super(key); }
}

export interface DrawResult { sample: SampleRow; draw: DrawRow; items: { response_id: number; question: string; system: string }[] }

export interface EstimateInput { criterion: Criterion; run: RunRow; system: string | null; threshold: number; halfWidth?: number }

export interface EstimateResult {
  /** The sample the estimate rests on; null when no sample covers the scope (then only the judge's figure). */
  sample: SampleRow | null;
  scope: ScopeEstimate | null;
  refusal: PredictionError | 'context_criterion' | null;
  bias: BiasReport | null;
  /** Responses of the scope the run scored that were added after the sample was drawn: not covered. */
  not_covered: number;
  half_width: number;
}

export function estimateService(db: DB, audit: AuditQueries, derived: DerivedCache) {
  const q = estimateQueries(db);
  const writable = writableGuard(db);

  function checkSize(size: number): void {
    if (!Number.isInteger(size) || size < 1 || size > MAX_SAMPLE_SIZE) throw new EstimateError('est.err_size', { max: MAX_SAMPLE_SIZE });
  }

  function resolveSeed(seed: number | undefined): number {
    if (seed === undefined) return crypto.randomInt(0, MAX_SEED + 1);
    if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) throw new EstimateError('est.err_seed', { max: MAX_SEED });
    return seed;
  }

  // Runs inside a transaction: draws from the sample's frame (minus its items and every few-shot
  // example of the dataset), records the draw and its items, and queues the items after those
  // drawn before them.
  function drawInto(actorId: number | null, sample: SampleRow, size: number, seed: number): DrawResult {
    writable(sample.dataset_id);
    const examples = new Set(q.exampleIds.all({ ds: sample.dataset_id }));
    const frame = q.frame.all({ ds: sample.dataset_id, system: sample.system, max: sample.frame_max_id, sample: sample.id }).filter((id) => !examples.has(id));
    if (frame.length === 0) throw new EstimateError('est.err_empty_frame');
    const ids = drawUniform(frame, size, seed);
    const drawId = Number(q.insertDraw.run({ sample: sample.id, seed, requested: size, drawn: ids.length, frame_size: frame.length, by: actorId }).lastInsertRowid);
    const start = sample.n_items;
    let rank = Math.max(q.lastRank.get(sample.dataset_id) ?? RANK_BASE - 1, RANK_BASE - 1);
    ids.forEach((id, i) => {
      q.insertItem.run({ sample: sample.id, response: id, draw: drawId, position: start + i });
      if (q.rank.run({ id, rank: rank + 1 }).changes > 0) rank++;
    });
    audit.record({ actorId, entityType: 'dataset', entityId: sample.dataset_id, datasetId: sample.dataset_id, action: start === 0 ? 'estimation_sample_draw' : 'estimation_sample_extend',
      after: { sample: sample.id, system: sample.system, seed, requested: size, drawn: ids.length, frame: frame.length, response_ids: ids } });
    const draw = q.draws.all(sample.id).find((d) => d.id === drawId)!;
    return { sample: q.sample.get(sample.id)!, draw, items: q.drawnItems.all(drawId) };
  }

  const drawTx = db.transaction((actorId: number | null, datasetId: number, system: string | null, size: number, seed: number, systems: readonly string[]) => {
    if (system !== null && !systems.includes(system)) throw new EstimateError('est.err_system', { system });
    const maxId = q.maxResponseId.get(datasetId);
    if (maxId === null || maxId === undefined) throw new EstimateError('est.err_empty_frame');
    const id = Number(q.insertSample.run({ ds: datasetId, system, frame_max_id: maxId, by: actorId }).lastInsertRowid);
    return drawInto(actorId, q.sample.get(id)!, size, seed);
  });

  const extendTx = db.transaction((actorId: number | null, sampleId: number, size: number, seed: number, expectedItems: number | undefined) => {
    const sample = q.sample.get(sampleId);
    if (!sample) throw new EstimateError('est.err_no_such_sample', { id: sampleId });
    if (expectedItems !== undefined && sample.n_items !== expectedItems) throw new EstimateError('est.err_sample_changed', { id: sampleId, n: sample.n_items });
    return drawInto(actorId, sample, size, seed);
  });

  /** The newest sample that covers a scope: of that system, else of every system; for every system only the latter. */
  function sampleFor(all: readonly SampleRow[], system: string | null): SampleRow | null {
    return (system !== null ? all.find((x) => x.system === system) : undefined) ?? all.find((x) => x.system === null) ?? null;
  }

  /** The sample's items with each one's gold value for the criterion, or why it has none. */
  function sampleState(sample: SampleRow, criterion: Criterion) {
    const items = q.items.all(sample.id);
    const values = new Map<number, string[]>();
    for (const l of q.sampleLabels.all({ sample: sample.id, criterion: criterion.id })) {
      const v = values.get(l.response_id);
      if (v) v.push(l.value);
      else values.set(l.response_id, [l.value]);
    }
    const adjudicated = new Map(q.sampleAdjudications.all({ sample: sample.id, criterion: criterion.id }).map((a) => [a.response_id, a.value]));
    const states = new Map<number, { state: SampledItem['state']; gold: number | null }>();
    for (const it of items) {
      const submitted = values.get(it.response_id) ?? [];
      const g = goldValue(criterion.kind, submitted, adjudicated.get(it.response_id) ?? null);
      const gold = g === null ? null : goldNumber(criterion.kind, g);
      states.set(it.response_id, gold !== null ? { state: 'gold', gold } : { state: submitted.length > 0 && g === null ? 'disputed' : 'pending', gold: null });
    }
    return { items, states };
  }

  type SampleStates = Map<number, ReturnType<typeof sampleState>>;

  /** A run's ok scores as columns, questions numbered densely (the comparison's clusters), read once for every scope. */
  interface RunColumns { ids: Float64Array; questions: Uint32Array; systems: Uint16Array; systemNames: string[]; values: Float64Array; nQuestions: number }

  function runColumns(runId: number): RunColumns {
    const rows = q.runScores.all(runId);
    const n = rows.length;
    const cols: RunColumns = { ids: new Float64Array(n), questions: new Uint32Array(n), systems: new Uint16Array(n), systemNames: [], values: new Float64Array(n), nQuestions: 0 };
    const question = new Map<number, number>();
    const system = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const r = rows[i]!;
      cols.ids[i] = r.id;
      cols.values[i] = r.value;
      let qi = question.get(r.question_id);
      if (qi === undefined) question.set(r.question_id, (qi = question.size));
      cols.questions[i] = qi;
      let si = system.get(r.system);
      if (si === undefined) { system.set(r.system, (si = system.size)); cols.systemNames.push(r.system); }
      cols.systems[i] = si;
    }
    cols.nQuestions = question.size;
    return cols;
  }

  function compute(input: EstimateInput, cols: RunColumns, samples: readonly SampleRow[], states: SampleStates): EstimateResult {
    const halfWidth = input.halfWidth ?? DEFAULT_HALF_WIDTH * scaleRange(input.criterion);
    const empty = (refusal: EstimateResult['refusal']): EstimateResult => ({ sample: null, scope: null, refusal, bias: null, not_covered: 0, half_width: halfWidth });
    if (input.criterion.target !== 'response') return empty('context_criterion');
    const sys = input.system === null ? -1 : cols.systemNames.indexOf(input.system);
    const inScope = (i: number) => sys === -1 ? input.system === null : cols.systems[i] === sys;
    const scale = input.criterion.kind === 'ordinal' ? { min: input.criterion.scale_min!, max: input.criterion.scale_max! } : null;
    const scopeValues = () => cols.values.filter((_, i) => inScope(i));
    const rule = predictionRule(input.criterion.kind, input.threshold, scale, input.criterion.kind === 'ordinal' ? scopeValues() : []);
    if (typeof rule !== 'function') return empty(rule.error);
    const sample = sampleFor(samples, input.system);
    const frameMax = sample?.frame_max_id ?? Number.MAX_SAFE_INTEGER;
    const exclude = exampleItems(input.run);
    let count = 0;
    let notCovered = 0;
    for (let i = 0; i < cols.ids.length; i++) {
      if (!inScope(i) || exclude.has(cols.ids[i]!)) continue;
      if (cols.ids[i]! > frameMax) notCovered++;
      else count++;
    }
    const population = { ids: new Float64Array(count), questions: new Uint32Array(count), predictions: new Float64Array(count), nQuestions: cols.nQuestions };
    for (let i = 0, k = 0; i < cols.ids.length; i++) {
      if (!inScope(i) || exclude.has(cols.ids[i]!) || cols.ids[i]! > frameMax) continue;
      population.ids[k] = cols.ids[i]!;
      population.questions[k] = cols.questions[i]!;
      population.predictions[k++] = rule(cols.values[i]!);
    }
    let state = sample ? states.get(sample.id) : undefined;
    if (sample && !state) states.set(sample.id, (state = sampleState(sample, input.criterion)));
    const items: SampledRow[] = state ? state.items.filter((it) => input.system === null || it.system === input.system) : [];
    const sampled: SampledItem[] = items.map((it) => ({ id: it.response_id, ...state!.states.get(it.response_id)! }));
    const scope = estimateScope({ population, sampled, exclude, halfWidth });
    const byId = new Map(items.map((it) => [it.response_id, it]));
    const bias = biasDiagnostics(scope.completed.map((c) => {
      const it = byId.get(c.id)!;
      return { residual: c.gold - c.prediction, answer_chars: it.answer_chars, n_contexts: it.n_contexts, system: it.system };
    }), input.system === null && cols.systemNames.length > 1);
    return { sample, scope, refusal: null, bias, not_covered: notCovered, half_width: halfWidth };
  }

  /**
   * The estimate of every scope of a criterion and run at once — all systems ('') and each system
   * the run scored — kept as one value while the dataset is unchanged (one read of the run's scores),
   * following the label service's writes (followEstimates).
   */
  function estimates(input: Omit<EstimateInput, 'system'>): ReadonlyMap<string, EstimateResult> {
    const key = `true-score:${input.criterion.id}:${input.run.id}:${input.criterion.kind === 'binary' ? input.threshold : ''}:${input.halfWidth ?? ''}`;
    return derived.get(input.run.dataset_id, key, () => estimatesFrom(input, runColumns(input.run.id), q.samples.all(input.run.dataset_id), new Map()),
      followEstimates(input));
  }

  /** The run's columns each kept estimate was computed from: scores, which no label write changes. */
  const columnsOf = new WeakMap<object, RunColumns>();

  function estimatesFrom(input: Omit<EstimateInput, 'system'>, cols: RunColumns, samples: readonly SampleRow[], states: SampleStates): Map<string, EstimateResult> {
    const out = new Map<string, EstimateResult>([['', compute({ ...input, system: null }, cols, samples, states)]]);
    for (const system of cols.systemNames) out.set(system, compute({ ...input, system }, cols, samples, states));
    columnsOf.set(out, cols);
    return out;
  }

  /**
   * Follows a tracked write: labels enter an estimate only through the items of its samples (the
   * population is the run's scores), so a write touching no sampled item leaves every scope as it
   * is. Otherwise the samples' gold states are read again inside the write and the estimates worked
   * out from them and the kept run columns once it has committed.
   */
  const followEstimates = (input: Omit<EstimateInput, 'system'>): Follow<Map<string, EstimateResult>> => (kept, touched) => {
    const sampled = touched.some((id) => q.isSampled.get({ ds: input.run.dataset_id, id }) !== undefined);
    if (!sampled) return () => kept;
    const cols = columnsOf.get(kept);
    if (!cols) return null;
    const samples = q.samples.all(input.run.dataset_id);
    const states: SampleStates = new Map(samples.map((x) => [x.id, sampleState(x, input.criterion)]));
    return () => estimatesFrom(input, cols, samples, states);
  };

  return {
    queries: q,
    estimates,
    /** Draws a new sample of `size` responses (of one system, or every system's) uniformly at random. */
    draw(actorId: number | null, datasetId: number, opts: { system: string | null; size: number; seed?: number | undefined; systems: readonly string[] }): DrawResult {
      checkSize(opts.size);
      return drawTx(actorId, datasetId, opts.system, opts.size, resolveSeed(opts.seed), opts.systems);
    },
    /** Draws `size` more items into a sample, from the same frame by the same rule. */
    extend(actorId: number | null, sampleId: number, opts: { size: number; seed?: number | undefined; expectedItems?: number | undefined }): DrawResult {
      checkSize(opts.size);
      return extendTx(actorId, sampleId, opts.size, resolveSeed(opts.seed), opts.expectedItems);
    },
    samples: (datasetId: number) => q.samples.all(datasetId),
    /** Every response in any estimation sample of the dataset (never offered as a few-shot example). */
    sampledIds: (datasetId: number): ReadonlySet<number> => new Set(q.sampledIds.all(datasetId)),
    sample: (id: number) => q.sample.get(id),
    draws: (sampleId: number) => q.draws.all(sampleId),
    /** The estimate of one scope (a system the run did not score has nothing in it). */
    estimate(input: EstimateInput): Readonly<EstimateResult> {
      const all = estimates(input);
      return all.get(input.system ?? '') ?? compute(input, runColumns(-1), q.samples.all(input.run.dataset_id), new Map());
    },
    compare(a: Readonly<EstimateResult>, b: Readonly<EstimateResult>): Comparison | null {
      return a.scope && b.scope ? compareScopes(a.scope, b.scope) : null;
    },
    /** Stores the estimate with a recorded calibration (the CLI's JSON shape). */
    keepWithCalibration(calibrationId: number, estimate: Record<string, unknown> | null): void {
      q.keepEstimate.run(estimate === null ? null : JSON.stringify(estimate), calibrationId);
    },
  };
}

/** The criterion's range (max − min): planner widths are in its units, 0.05 of the range by default. */
export function scaleRange(c: Pick<Criterion, 'kind' | 'scale_min' | 'scale_max'>): number {
  return c.kind === 'ordinal' && c.scale_min !== null && c.scale_max !== null ? c.scale_max - c.scale_min : 1;
}

export type EstimateService = ReturnType<typeof estimateService>;
