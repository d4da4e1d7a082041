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
import type { Criterion } from '../criteria/queries.ts';
import { scoreScaleOf, type CalibrationPair } from '../calibration/report.ts';
import type { VerdictRow } from '../calibration/service.ts';

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
 * Builds the queue from all of the run's pairs (see CalibrationService.pairs with part 'all': the scale of an
 * ordinal criterion's scores is read from every score of the run) and the verdicts recorded for it.
 */
export function buildQueue(criterion: Criterion, pairs: readonly QueuePair[], verdicts: ReadonlyMap<number, VerdictRow>, threshold: number, filters: QueueFilters): Queue {
  const scores = pairs.filter((p) => p.scoreStatus === 'ok' && p.score !== null).map((p) => p.score!);
  const { comparable, compare } = comparer(criterion, scores, threshold);
  const counts: Record<VerdictFilter, number> = { none: 0, judge_right: 0, expert_right: 0, ambiguous: 0, any: 0 };
  const items: QueueItem[] = [];
  for (const p of pairs) {
    const verdict = verdicts.get(p.id);
    const c = compare(p);
    if (!c.disagrees && !verdict) continue;
    if (filters.system && p.system !== filters.system) continue;
    if (filters.tagged && !filters.tagged.has(p.id)) continue;
    if (filters.inPart && !filters.inPart(p.id)) continue;
    const kind: VerdictFilter = verdict ? verdict.verdict : 'none';
    counts[kind]++;
    counts.any++;
    if (filters.verdict === 'any' || filters.verdict === kind) items.push({ ...p, ...c, verdict });
  }
  items.sort(queueOrder);
  return { items, counts, comparable };
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
    submittedBy: db.prepare<[number, string], number>(`SELECT response_id FROM annotation WHERE annotator_id = ? AND state = 'submitted'
      AND response_id IN (SELECT value FROM json_each(?))`).pluck(),
    questions: db.prepare<[string], { id: number; question: string }>(`SELECT r.id, s.question FROM response r JOIN sample s ON s.id = r.sample_id
      WHERE r.id IN (SELECT value FROM json_each(?))`),
  };
  return {
    /** Responses of a dataset whose sample carries the tag. */
    tagged: (datasetId: number, tag: string) => new Set(s.tagged.all(datasetId, tag)),
    /** Which of the listed responses this expert has submitted a label for, in one query. */
    submittedBy: (userId: number, ids: readonly number[]) => new Set(s.submittedBy.all(userId, JSON.stringify(ids))),
    /** Question of each listed response, in one query. */
    questions: (ids: readonly number[]) => new Map(s.questions.all(JSON.stringify(ids)).map((r) => [r.id, r.question])),
  };
}

export type ReviewQueries = ReturnType<typeof reviewQueries>;
