// The audit queue of retrieved contexts: where the judge's verdict on a context (context_precision's
// verify step) and the experts' gold value of a per-context criterion differ, in both directions
// ("judge relevant, experts not" and the reverse), with reviewers' verdicts on single contexts.
// Order: by rank, then response: a wrong verdict high in the list moves context precision the most.
// A context that has a verdict stays in the queue under it, even when it agrees now (after its gold
// value was corrected). Verdicts are read on every view, never kept (they do not move data_version).
import { z } from 'zod';
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { ContextRow } from '../calibration/context-service.ts';
import { compareContext } from '../calibration/report-context.ts';
import type { Verdict, VerdictFilter } from './queue.ts';
import { readState, stateQuery, type QueueState } from './state.ts';

export const DIRECTIONS = ['both', 'judge_relevant', 'experts_relevant'] as const;
export type Direction = (typeof DIRECTIONS)[number];

export interface ContextVerdictRow {
  response_id: number; context_index: number; verdict: Verdict; note: string; reviewer_email: string; updated_at: string; version: number;
}

export interface ContextQueueItem {
  responseId: number;
  /** 0-based index of the context in the response's retrieved contexts; rank = index + 1. */
  index: number;
  system: string;
  gold: '1' | '0';
  judge: 0 | 1;
  disagrees: boolean;
  verdict: ContextVerdictRow | undefined;
}

export interface ContextQueueFilters {
  verdict: VerdictFilter;
  direction: Direction;
  system: string;
  tagged: ReadonlySet<number> | null;
  inPart: ((id: number) => boolean) | null;
}

export interface ContextQueueState extends QueueState { direction: Direction }

export function readContextState(query: unknown, criteria: Parameters<typeof readState>[1]): ContextQueueState | null {
  const state = readState(query, criteria);
  const direction = z.enum(DIRECTIONS).catch('both').parse((query as Record<string, unknown> | undefined)?.direction);
  return state && { ...state, direction };
}

/** The state's query string (defaults left out); see review/state.ts. */
export function contextStateQuery(s: ContextQueueState, change: Partial<Omit<ContextQueueState, 'criterion'>> = {}, withPage = false): string {
  const direction = change.direction ?? s.direction;
  const q = stateQuery(s, change, withPage);
  return direction === 'both' ? q : `${q}&direction=${direction}`;
}

export const contextKey = (responseId: number, index: number) => `${responseId}:${index}`;

export function contextQueueOrder(a: { index: number; responseId: number }, b: { index: number; responseId: number }): number {
  return a.index - b.index || a.responseId - b.responseId;
}

export function buildContextQueue(rows: readonly ContextRow[], verdicts: ReadonlyMap<string, ContextVerdictRow>, filters: ContextQueueFilters) {
  const counts: Record<VerdictFilter, number> = { none: 0, judge_right: 0, expert_right: 0, ambiguous: 0, any: 0 };
  const directions: Record<Direction, number> = { both: 0, judge_relevant: 0, experts_relevant: 0 };
  const items: ContextQueueItem[] = [];
  for (const row of rows) {
    if (filters.system && row.system !== filters.system) continue;
    if (filters.tagged && !filters.tagged.has(row.id)) continue;
    if (filters.inPart && !filters.inPart(row.id)) continue;
    for (let index = 0; index < row.gold.length; index++) {
      const c = compareContext(row, index);
      const verdict = verdicts.get(contextKey(row.id, index));
      if (!c || (!c.disagrees && !verdict)) continue;
      const direction: Direction = c.judge === 1 ? 'judge_relevant' : 'experts_relevant';
      const kind: VerdictFilter = verdict ? verdict.verdict : 'none';
      if (c.disagrees) { directions.both++; directions[direction]++; }
      if (filters.direction !== 'both' && (!c.disagrees || filters.direction !== direction)) continue;
      counts[kind]++;
      counts.any++;
      if (filters.verdict === 'any' || filters.verdict === kind) items.push({ responseId: row.id, index, system: row.system, ...c, verdict });
    }
  }
  items.sort(contextQueueOrder);
  return { items, counts, directions };
}

/** The queue's SQL besides the calibration services: verdicts, and what a page of rows shows, in one query each. */
export function contextReviewQueries(db: DB, audit: AuditQueries) {
  const s = {
    verdicts: db.prepare<[number, number], ContextVerdictRow>(`SELECT v.response_id, v.context_index, v.verdict, v.note, u.email AS reviewer_email, v.updated_at, v.version
      FROM context_verdict v JOIN user u ON u.id = v.reviewer_id WHERE v.run_id = ? AND v.criterion_id = ?`),
    verdict: db.prepare<[number, number, number, number], ContextVerdictRow>(`SELECT v.response_id, v.context_index, v.verdict, v.note, u.email AS reviewer_email, v.updated_at, v.version
      FROM context_verdict v JOIN user u ON u.id = v.reviewer_id WHERE v.run_id = ? AND v.criterion_id = ? AND v.response_id = ? AND v.context_index = ?`),
    insert: db.prepare(`INSERT INTO context_verdict (dataset_id, run_id, response_id, criterion_id, context_index, verdict, note, reviewer_id)
      VALUES (@dataset_id, @run_id, @response_id, @criterion_id, @context_index, @verdict, @note, @reviewer_id)`),
    update: db.prepare(`UPDATE context_verdict SET verdict = @verdict, note = @note, reviewer_id = @reviewer_id, version = version + 1,
      updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
      WHERE run_id = @run_id AND criterion_id = @criterion_id AND response_id = @response_id AND context_index = @context_index AND version = @version`),
    // What a queue page shows of each row: the question and the context itself.
    rows: db.prepare<[string], { id: number; question: string; contexts: string }>(`SELECT r.id, s.question, r.retrieved_contexts AS contexts
      FROM response r JOIN sample s ON s.id = r.sample_id WHERE r.id IN (SELECT value FROM json_each(?))`),
    // The judge's reason for each context: the verify steps of the trace, in context order.
    reasons: db.prepare<[number, string], { response_id: number; reason: string | null }>(`SELECT sc.response_id, json_extract(j.value, '$.parsed.reason') AS reason
      FROM score sc, json_each(sc.trace, '$.steps') j
      WHERE sc.run_id = ? AND sc.response_id IN (SELECT value FROM json_each(?)) AND json_extract(j.value, '$.step') = 'verify' ORDER BY sc.response_id, j.key`),
  };
  return {
    verdicts: (runId: number, criterionId: number) => new Map(s.verdicts.all(runId, criterionId).map((v) => [contextKey(v.response_id, v.context_index), v])),
    verdict: (runId: number, criterionId: number, responseId: number, index: number) => s.verdict.get(runId, criterionId, responseId, index),
    /** Question and contexts of each listed response. */
    rows: (ids: readonly number[]) => new Map(s.rows.all(JSON.stringify(ids)).map((r) => [r.id, { question: r.question, contexts: JSON.parse(r.contexts) as string[] }])),
    /** The judge's reason per context of each listed response in the run. */
    reasons(runId: number, ids: readonly number[]): Map<number, (string | null)[]> {
      const out = new Map<number, (string | null)[]>();
      for (const r of s.reasons.all(runId, JSON.stringify(ids))) {
        const list = out.get(r.response_id);
        if (list) list.push(r.reason);
        else out.set(r.response_id, [r.reason]);
      }
      return out;
    },
    /**
     * Records a reviewer's verdict on one context, `expectedVersion` being the version the form showed
     * (0: none yet); a verdict recorded meanwhile by someone else throws ContextVerdictConflict.
     */
    set(reviewerId: number, v: { dataset_id: number; run_id: number; response_id: number; criterion_id: number; context_index: number; verdict: Verdict; note: string },
      expectedVersion: number): void {
      db.transaction(() => {
        const before = s.verdict.get(v.run_id, v.criterion_id, v.response_id, v.context_index);
        if ((before?.version ?? 0) !== expectedVersion) throw new ContextVerdictConflict();
        if (before) s.update.run({ ...v, reviewer_id: reviewerId, version: expectedVersion });
        else s.insert.run({ ...v, reviewer_id: reviewerId });
        audit.record({ actorId: reviewerId, entityType: 'run', entityId: v.run_id, datasetId: v.dataset_id, action: 'context_verdict',
          before: before ? { verdict: before.verdict, note: before.note } : undefined,
          after: { response: v.response_id, criterion: v.criterion_id, context_index: v.context_index, verdict: v.verdict, note: v.note } });
      })();
    },
  };
}

/** Someone recorded a verdict on this context since the form was read. */
export class ContextVerdictConflict extends Error {
  constructor() { super('conflict'); }
}

export type ContextReviewQueries = ReturnType<typeof contextReviewQueries>;
