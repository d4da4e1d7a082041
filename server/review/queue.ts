// The audit queue: the items of one run where the judge and the experts' gold value for one criterion
// disagree, worst first, with reviewers' verdicts. How "disagree" and "worst" are read per kind:
//   binary       the judge passes when score >= threshold; a disagreement is a pass against gold '0' or a
//                fail against gold '1'; the gap is |score − gold| with gold as 1/0.
//   ordinal      scores are put on the unit interval: 0..1 scores as they are, scores on the criterion's
//                scale as (s − min)/(max − min) (which scale is decided from all of the run's scores, as the
//                calibration report does); the gap is |score_unit − (gold − min)/(max − min)|, and an item
//                disagrees when the nearest scale point to the score is not the gold value.
//   numeric      the gap is |score − gold|; any difference is a disagreement (the list is worst first).
//   categorical  the judge's category against the gold value; the gap is 1 or 0.
// Only items with a score (status ok) and a readable gold value are compared. An item that has a verdict
// stays in the queue under that verdict even when it agrees now (e.g. after its gold value was corrected).
import type { DB } from '../db/connection.ts';
import { PREVIEW_CHARS } from '../samples/queries.ts';
import type { Criterion } from '../criteria/queries.ts';
import { scoreScaleOf, type CalibrationPair } from '../calibration/report.ts';
import { pairById, type CalibrationService, type VerdictRow } from '../calibration/service.ts';
import type { DerivedCache, Follow } from '../db/derived-cache.ts';
import type { RunRow } from '../judge/run-queries.ts';

export const VERDICTS = ['judge_right', 'expert_right', 'ambiguous'] as const;
export type Verdict = (typeof VERDICTS)[number];
export const VERDICT_FILTERS = ['none', ...VERDICTS, 'any'] as const;
export type VerdictFilter = (typeof VERDICT_FILTERS)[number];
export const PARTS = ['all', 'calibration', 'held_out'] as const;
export type QueuePart = (typeof PARTS)[number];

export type QueuePair = CalibrationPair & { system: string };

/** The judge against the gold value for one item. */
export interface Comparison {
  /** How far apart they are (see the header); null when they cannot be compared. */
  gap: number | null;
  disagrees: boolean;
  /** The judge's score read as a value of the criterion (binary '1'/'0', nearest scale point, category, number). */
  judgeValue: string | null;
}

export interface QueueItem extends QueuePair, Comparison {
  verdict: VerdictRow | undefined;
}

export interface QueueFilters {
  verdict: VerdictFilter;
  system: string;
  /** Response ids whose sample has the chosen tag; null = no tag filter. */
  tagged: ReadonlySet<number> | null;
  /** Whether an item is in the chosen part of the holdout split; null = every item. */
  inPart: ((id: number) => boolean) | null;
}

export interface Queue {
  /** The items passing every filter, worst first. */
  items: QueueItem[];
  /** Items per verdict (after the part, system and tag filters, before the verdict filter). */
  counts: Record<VerdictFilter, number>;
  /** Ordinal criteria whose scores are on no comparable scale: nothing can be compared. */
  comparable: boolean;
}

const EPS = 1e-9;
const NOT_COMPARED: Comparison = { gap: null, disagrees: false, judgeValue: null };

/** A comparer for one criterion and one run's scores; `scores` decides the scale of ordinal criteria. */
export function comparer(criterion: Criterion, scores: readonly number[], threshold: number): { comparable: boolean; compare: (p: QueuePair) => Comparison } {
  const scored = (p: QueuePair) => p.scoreStatus === 'ok' && p.score !== null && p.gold !== null;
  switch (criterion.kind) {
    case 'binary':
      return { comparable: true, compare(p) {
        if (!scored(p) || (p.gold !== '1' && p.gold !== '0')) return NOT_COMPARED;
        const judgeValue = p.score! >= threshold ? '1' : '0';
        return { gap: Math.abs(p.score! - Number(p.gold)), disagrees: judgeValue !== p.gold, judgeValue };
      } };
    case 'ordinal': {
      const min = criterion.scale_min ?? 0, max = criterion.scale_max ?? 0;
      const on = max > min ? scoreScaleOf(scores, { min, max }) : 'other';
      if (on === 'other') return { comparable: scores.length === 0, compare: () => NOT_COMPARED };
      const unit = (v: number) => (v - min) / (max - min);
      return { comparable: true, compare(p) {
        const g = Number(p.gold);
        if (!scored(p) || !Number.isInteger(g) || g < min || g > max) return NOT_COMPARED;
        const s = on === 'unit' ? p.score! : unit(p.score!);
        const nearest = Math.min(max, Math.max(min, Math.round(s * (max - min) + min)));
        return { gap: Math.abs(s - unit(g)), disagrees: nearest !== g, judgeValue: String(nearest) };
      } };
    }
    case 'numeric':
      return { comparable: true, compare(p) {
        const g = Number(p.gold);
        if (!scored(p) || p.gold!.trim() === '' || !Number.isFinite(g)) return NOT_COMPARED;
        const gap = Math.abs(p.score! - g);
        return { gap, disagrees: gap > EPS, judgeValue: String(p.score) };
      } };
    case 'categorical':
      return { comparable: true, compare(p) {
        if (!scored(p) || p.label === null || p.label === undefined || p.label === '') return NOT_COMPARED;
        const disagrees = p.label !== p.gold;
        return { gap: disagrees ? 1 : 0, disagrees, judgeValue: p.label };
      } };
  }
}

/** Queue order: largest gap first, items that cannot be compared last, then by id. */
export function queueOrder(a: { gap: number | null; id: number }, b: { gap: number | null; id: number }): number {
  if (a.gap !== b.gap) {
    if (a.gap === null) return 1;
    if (b.gap === null) return -1;
    if (Math.abs(a.gap - b.gap) > EPS) return b.gap - a.gap;
  }
  return a.id - b.id;
}

/**
 * What the queue of a run is built from and what no verdict changes: how the judge compares with the
 * gold value, and the pairs where they disagree as queue items (without verdicts), in queue order.
 * Kept per dataset version (review/routes.ts), following label writes (followCompared).
 */
export interface Compared {
  comparable: boolean;
  compare: (p: QueuePair) => Comparison;
  /** Every disagreeing pair, in queue order; `verdict` undefined (verdicts are read per view). */
  disagreeing: readonly QueueItem[];
  /** The pairs it was built from, in id order: their scores, statuses, labels and systems (no label write changes them). */
  pairs: readonly QueuePair[];
}

/** Compares every pair of the run (see CalibrationService.pairs with part 'all': an ordinal scale is read from all of the run's scores). */
export function compareAll(criterion: Criterion, pairs: readonly QueuePair[], threshold: number): Compared {
  const scores = pairs.filter((p) => p.scoreStatus === 'ok' && p.score !== null).map((p) => p.score!);
  const { comparable, compare } = comparer(criterion, scores, threshold);
  const disagreeing: QueueItem[] = [];
  for (const p of pairs) {
    const c = compare(p);
    if (c.disagrees) disagreeing.push({ ...p, ...c, verdict: undefined });
  }
  disagreeing.sort(queueOrder);
  return { comparable, compare, disagreeing, pairs };
}

/**
 * Brings a Compared up to date with new gold values of some pairs (response id → gold): each one's
 * item leaves the list and, if it disagrees now, goes in again where it sorts. A new list: the kept
 * one is frozen.
 */
export function withGold(compared: Compared, gold: ReadonlyMap<number, string | null>): Compared {
  const changed = [...gold].map(([id, g]) => ({ id, pair: pairById(compared.pairs, id) })).filter((x) => x.pair !== undefined);
  if (changed.length === 0) return compared;
  const ids = new Set(changed.map((x) => x.id));
  const disagreeing = compared.disagreeing.filter((x) => !ids.has(x.id));
  for (const { id, pair } of changed) {
    const p = { ...pair!, gold: gold.get(id)! };
    const c = compared.compare(p);
    if (c.disagrees) disagreeing.splice(sortedIndex(disagreeing, { gap: c.gap, id }), 0, { ...p, ...c, verdict: undefined });
  }
  return { ...compared, disagreeing };
}

/**
 * The queue the filters select: the disagreeing items and the items with a verdict (which stay in the
 * queue even when they agree now), worst first. `pairs` are the run's current pairs (for the gold
 * value of an item that agrees).
 */
export function queueFrom(compared: Compared, pairs: readonly QueuePair[], verdicts: ReadonlyMap<number, VerdictRow>, filters: QueueFilters): Queue {
  const counts: Record<VerdictFilter, number> = { none: 0, judge_right: 0, expert_right: 0, ambiguous: 0, any: 0 };
  const keep = (x: QueueItem): QueueItem | null => {
    if (filters.system && x.system !== filters.system) return null;
    if (filters.tagged && !filters.tagged.has(x.id)) return null;
    if (filters.inPart && !filters.inPart(x.id)) return null;
    const kind: VerdictFilter = x.verdict ? x.verdict.verdict : 'none';
    counts[kind]++;
    counts.any++;
    return filters.verdict === 'any' || filters.verdict === kind ? x : null;
  };
  const items: QueueItem[] = [];
  for (const x of compared.disagreeing) {
    const verdict = verdicts.get(x.id);
    const kept = keep(verdict ? { ...x, verdict } : x);
    if (kept) items.push(kept);
  }
  // Items with a verdict that agree: few, sorted and merged in.
  const agreeing: QueueItem[] = [];
  for (const [id, verdict] of verdicts) {
    const p = pairById(pairs, id);
    if (!p) continue;
    const c = compared.compare(p);
    if (c.disagrees) continue;
    const kept = keep({ ...p, ...c, verdict });
    if (kept) agreeing.push(kept);
  }
  return { items: agreeing.length ? merge(items, agreeing.sort(queueOrder)) : items, counts, comparable: compared.comparable };
}

/**
 * The Compared of a run's pairs (part 'all'), kept until the dataset's data changes and following the
 * label service's writes: the touched items' gold read again inside the write, their items moved (withGold).
 */
export function keptComparison(app: { derived: DerivedCache; calibration: CalibrationService },
  input: { criterion: Criterion; run: RunRow; threshold: number; holdoutSeed: number }, pairs: readonly QueuePair[]): Readonly<Compared> {
  const { criterion, threshold } = input;
  const follow: Follow<Compared> = (kept, touched) => {
    const gold = new Map(touched.map((id) => [id, app.calibration.goldOfResponse(criterion, id)]));
    return () => withGold(kept, gold);
  };
  return app.derived.get(input.run.dataset_id, `review-compared:${criterion.id}:${input.run.id}:${threshold}:${input.holdoutSeed}`,
    () => compareAll(criterion, pairs, threshold), follow);
}

/** Builds the queue from all of the run's pairs and the verdicts recorded for it (compareAll, then queueFrom). */
export function buildQueue(criterion: Criterion, pairs: readonly QueuePair[], verdicts: ReadonlyMap<number, VerdictRow>, threshold: number, filters: QueueFilters): Queue {
  return queueFrom(compareAll(criterion, pairs, threshold), pairs, verdicts, filters);
}

/** Two lists in queue order as one. */
function merge(a: readonly QueueItem[], b: readonly QueueItem[]): QueueItem[] {
  const out: QueueItem[] = [];
  let i = 0, j = 0;
  while (i < a.length && j < b.length) out.push(queueOrder(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** Where `at` goes in a list in queue order. */
function sortedIndex(items: readonly QueueItem[], at: { gap: number | null; id: number }): number {
  let lo = 0, hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (queueOrder(items[mid]!, at) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The items just before and after a position in queue order; the item itself need not be in the queue. */
export function neighbours(items: readonly QueueItem[], at: { gap: number | null; id: number }): { prev: QueueItem | undefined; next: QueueItem | undefined; index: number } {
  const index = items.findIndex((x) => x.id === at.id);
  if (index >= 0) return { prev: items[index - 1], next: items[index + 1], index };
  const after = items.findIndex((x) => queueOrder(x, at) > 0);
  return after < 0 ? { prev: items[items.length - 1], next: undefined, index: -1 } : { prev: items[after - 1], next: items[after], index: -1 };
}

/** SQL the queue needs besides the calibration service: one query per filter or page, never one per item. */
export function reviewQueries(db: DB) {
  const s = {
    tagged: db.prepare<[number, string], number>(`SELECT r.id FROM response r JOIN sample_tag t ON t.sample_id = r.sample_id
      WHERE r.dataset_id = ? AND t.tag = ?`).pluck(),
    questions: db.prepare<[string], { id: number; question: string }>(`SELECT r.id, substr(s.question, 1, ${PREVIEW_CHARS}) AS question
      FROM response r JOIN sample s ON s.id = r.sample_id
      WHERE r.id IN (SELECT value FROM json_each(?))`),
  };
  return {
    /** Responses of a dataset whose sample carries the tag. */
    tagged: (datasetId: number, tag: string) => new Set(s.tagged.all(datasetId, tag)),
    /** Which of the listed responses this expert has submitted a label for, in one query. */
    /** Question of each listed response, in one query. */
    questions: (ids: readonly number[]) => new Map(s.questions.all(JSON.stringify(ids)).map((r) => [r.id, r.question])),
  };
}

export type ReviewQueries = ReturnType<typeof reviewQueries>;
