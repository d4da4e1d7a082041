// The audit queue's query string: which criterion, which verdicts, systems and tags, and the page; read
// leniently (a bad value falls back to its default) and written back the same way for links and forms.
import { z } from 'zod';
import type { Criterion } from '../criteria/queries.ts';
import { PARTS, VERDICT_FILTERS, type QueuePart, type VerdictFilter } from './queue.ts';
import { LIMITS } from '../limits.ts';
import { pageNumber } from '../http/forms.ts';

export const DEFAULT_THRESHOLD = 0.5;

const Query = z.object({
  criterion: z.coerce.number().int().positive().optional().catch(undefined),
  verdict: z.enum(VERDICT_FILTERS).catch('none'),
  system: z.string().max(LIMITS.system).catch(''),
  tag: z.string().max(LIMITS.tag).catch(''),
  threshold: z.string().regex(/^(0|1|0?\.\d+|1\.0*)$/).transform(Number).catch(DEFAULT_THRESHOLD),
  part: z.enum(PARTS).catch('all'),
  page: pageNumber,
});

export interface QueueState {
  criterion: Criterion;
  verdict: VerdictFilter;
  system: string;
  tag: string;
  threshold: number;
  part: QueuePart;
  page: number;
}

/** The state a query asks for; the criterion falls back to the first of `criteria` (null when there is none). */
export function readState(query: unknown, criteria: readonly Criterion[]): QueueState | null {
  const q = Query.parse(query ?? {});
  const criterion = criteria.find((c) => c.id === q.criterion) ?? criteria[0];
  if (!criterion) return null;
  return { criterion, verdict: q.verdict, system: q.system, tag: q.tag, threshold: q.threshold, part: q.part, page: q.page };
}

/** Query string for the state (defaults left out), with `page` only when asked for. */
export function stateQuery(s: QueueState, change: Partial<Omit<QueueState, 'criterion'>> = {}, withPage = false): string {
  const v = { ...s, ...change };
  const p = new URLSearchParams({ criterion: String(v.criterion.id) });
  if (v.verdict !== 'none') p.set('verdict', v.verdict);
  if (v.system) p.set('system', v.system);
  if (v.tag) p.set('tag', v.tag);
  if (v.threshold !== DEFAULT_THRESHOLD) p.set('threshold', String(v.threshold));
  if (v.part !== 'all') p.set('part', v.part);
  if (withPage && v.page > 1) p.set('page', String(v.page));
  return p.toString();
}
