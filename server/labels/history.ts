// An expert's labelling history in one dataset: the items handed to or saved by them, in the order
// they first came to them (annotation id), so B and N walk it the same way every time, and a
// filterable list of it. Read-only: nothing here writes.
import type { DB } from '../db/connection.ts';

export type HistoryState = 'draft' | 'submitted';

export interface HistoryFilter { q: string; state: HistoryState | ''; criterionId: number | null; value: string }

export interface HistoryRow {
  annotation_id: number; response_id: number; state: HistoryState; updated_at: string; submitted_at: string | null;
  question: string; system: string;
}

export interface HistoryPage { rows: HistoryRow[]; total: number; values: Map<number, Map<number, string>> }

const likePattern = (term: string): string => `%${term.replace(/[\\%_]/g, (c) => '\\' + c)}%`;

export function labelHistory(db: DB) {
  // Each state is its own range of the (annotator_id, dataset_id, state) index, ordered by id within it,
  // so the neighbour in the history is the nearer of two index seeks.
  const neighbour = (op: '<' | '>', agg: 'max' | 'min') => db.prepare<{ me: number; ds: number; from: number }, number | null>(`
    SELECT ${agg}(id) FROM (
      SELECT ${agg}(id) AS id FROM annotation WHERE annotator_id = @me AND dataset_id = @ds AND state = 'draft' AND id ${op} @from
      UNION ALL
      SELECT ${agg}(id) FROM annotation WHERE annotator_id = @me AND dataset_id = @ds AND state = 'submitted' AND id ${op} @from)`).pluck();
  const s = {
    before: neighbour('<', 'max'),
    after: neighbour('>', 'min'),
    mineId: db.prepare<[number, number], number>('SELECT id FROM annotation WHERE response_id = ? AND annotator_id = ?').pluck(),
    responseOf: db.prepare<[number], number>('SELECT response_id FROM annotation WHERE id = ?').pluck(),
    page: db.prepare<{ me: number; ds: number; state: string | null; q: string | null; cid: number | null; value: string; limit: number; offset: number }, HistoryRow>(`
      SELECT a.id AS annotation_id, a.response_id, a.state, a.updated_at, a.submitted_at, s.question, r.system
      FROM annotation a JOIN response r ON r.id = a.response_id JOIN sample s ON s.id = r.sample_id
      WHERE a.annotator_id = @me AND a.dataset_id = @ds AND (@state IS NULL OR a.state = @state)
        AND (@q IS NULL OR s.question LIKE @q ESCAPE '\\' OR r.answer LIKE @q ESCAPE '\\')
        AND (@cid IS NULL OR EXISTS (SELECT 1 FROM label l WHERE l.annotation_id = a.id AND l.criterion_id = @cid AND l.context_index = -1 AND l.value = @value))
      ORDER BY a.id DESC LIMIT @limit OFFSET @offset`),
    count: db.prepare<{ me: number; ds: number; state: string | null; q: string | null; cid: number | null; value: string }, number>(`
      SELECT count(*) FROM annotation a JOIN response r ON r.id = a.response_id JOIN sample s ON s.id = r.sample_id
      WHERE a.annotator_id = @me AND a.dataset_id = @ds AND (@state IS NULL OR a.state = @state)
        AND (@q IS NULL OR s.question LIKE @q ESCAPE '\\' OR r.answer LIKE @q ESCAPE '\\')
        AND (@cid IS NULL OR EXISTS (SELECT 1 FROM label l WHERE l.annotation_id = a.id AND l.criterion_id = @cid AND l.context_index = -1 AND l.value = @value))`).pluck(),
    values: db.prepare<[string], { annotation_id: number; criterion_id: number; value: string }>(`SELECT annotation_id, criterion_id, value FROM label
      WHERE annotation_id IN (SELECT value FROM json_each(?)) AND context_index = -1`),
  };

  /** Where an item sits in the expert's history: its annotation id, or past the end when they have none. */
  const position = (me: number, responseId: number) => s.mineId.get(responseId, me) ?? Number.MAX_SAFE_INTEGER;

  return {
    /** The item before this one in the expert's history (the newest one when this item is not in it); null at the start. */
    previous(me: number, datasetId: number, responseId: number): number | null {
      const id = s.before.get({ me, ds: datasetId, from: position(me, responseId) });
      return id == null ? null : s.responseOf.get(id) ?? null;
    },
    /** The item after this one in the expert's history; null at its end. */
    next(me: number, datasetId: number, responseId: number): number | null {
      const from = position(me, responseId);
      if (from === Number.MAX_SAFE_INTEGER) return null;
      const id = s.after.get({ me, ds: datasetId, from });
      return id == null ? null : s.responseOf.get(id) ?? null;
    },
    /** One page of the history, newest first, with the response-level values of its rows (one query for all of them). */
    page(me: number, datasetId: number, filter: HistoryFilter, limit: number, offset: number): HistoryPage {
      const params = { me, ds: datasetId, state: filter.state || null, q: filter.q ? likePattern(filter.q) : null, cid: filter.criterionId, value: filter.value };
      const rows = s.page.all({ ...params, limit, offset });
      const values = new Map<number, Map<number, string>>();
      for (const v of s.values.all(JSON.stringify(rows.map((r) => r.annotation_id)))) {
        let m = values.get(v.annotation_id);
        if (!m) values.set(v.annotation_id, (m = new Map()));
        m.set(v.criterion_id, v.value);
      }
      return { rows, total: s.count.get(params) as number, values };
    },
  };
}

export type LabelHistory = ReturnType<typeof labelHistory>;
