// SQL for samples: the list with search and filters, single rows, revisions and tags.
import type { DB } from '../db/connection.ts';
import type { Statement } from 'better-sqlite3';
import { questionKey } from './key.ts';
import { LIMITS, sqlClippedList, sqlListOverLimit } from '../limits.ts';

export type SampleStatus = 'draft' | 'in_review' | 'approved';
export const STATUSES: SampleStatus[] = ['draft', 'in_review', 'approved'];

export interface SampleRow {
  id: number;
  dataset_id: number;
  question: string;
  ground_truth: string;
  reference_contexts: string;
  tags: string;
  source: string;
  notes: string;
  status: SampleStatus;
  author_id: number | null;
  author_email: string | null;
  /** Who last changed the content, when someone other than the author did (migration 0016). */
  last_editor_id: number | null;
  approved_by: number | null;
  approver_email: string | null;
  approved_at: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface SampleFilter {
  datasetId: number;
  q?: string | undefined;
  status?: SampleStatus | undefined;
  tag?: string | undefined;
  authorId?: number | undefined;
}

export interface RevisionRow { version: number; snapshot: string; edited_by: number | null; editor_email: string | null; edited_at: string }

const SELECT = `SELECT s.*, a.email AS author_email, p.email AS approver_email FROM sample s
  LEFT JOIN user a ON a.id = s.author_id LEFT JOIN user p ON p.id = s.approved_by`;

/** Characters of each text a list of samples carries: the page shows less. */
export const PREVIEW_CHARS = 300;

/**
 * The samples of a list page: texts cut to PREVIEW_CHARS and reference contexts to the limits, so
 * that a sample stored before the limits (a 100,000,000-character question) costs a list no more
 * than the others.
 */
const LIST_SELECT = `SELECT s.id, s.dataset_id, s.question_key, substr(s.question, 1, ${PREVIEW_CHARS}) AS question,
    substr(s.ground_truth, 1, ${PREVIEW_CHARS}) AS ground_truth, ${sqlClippedList('s.reference_contexts', LIMITS.contexts, PREVIEW_CHARS)} AS reference_contexts,
    ${sqlClippedList('s.tags', LIMITS.tags, LIMITS.tag)} AS tags, substr(s.source, 1, ${LIMITS.source}) AS source, substr(s.notes, 1, ${PREVIEW_CHARS}) AS notes,
    s.status, s.author_id, s.approved_by, s.approved_at, s.last_editor_id, s.version, s.created_at, s.updated_at,
    a.email AS author_email, p.email AS approver_email FROM sample s
  LEFT JOIN user a ON a.id = s.author_id LEFT JOIN user p ON p.id = s.approved_by`;

/**
 * One sample as its page shows it: texts within the limits, and whether any was cut (only data
 * stored before the limits is; such a sample is shown, not edited, on its page).
 */
const SHOWN_SELECT = `SELECT s.id, s.dataset_id, s.question_key, substr(s.question, 1, ${LIMITS.question}) AS question,
    substr(s.ground_truth, 1, ${LIMITS.groundTruth}) AS ground_truth, ${sqlClippedList('s.reference_contexts', LIMITS.contexts, LIMITS.context)} AS reference_contexts,
    ${sqlClippedList('s.tags', LIMITS.tags, LIMITS.tag)} AS tags, substr(s.source, 1, ${LIMITS.source}) AS source, substr(s.notes, 1, ${LIMITS.notes}) AS notes,
    s.status, s.author_id, s.approved_by, s.approved_at, s.last_editor_id, s.version, s.created_at, s.updated_at,
    a.email AS author_email, p.email AS approver_email,
    (length(s.question) > ${LIMITS.question} OR length(s.ground_truth) > ${LIMITS.groundTruth} OR length(s.notes) > ${LIMITS.notes}
      OR length(s.source) > ${LIMITS.source} OR ${sqlListOverLimit('s.reference_contexts', LIMITS.contexts, LIMITS.context)}
      OR ${sqlListOverLimit('s.tags', LIMITS.tags, LIMITS.tag)}) AS oversized
  FROM sample s LEFT JOIN user a ON a.id = s.author_id LEFT JOIN user p ON p.id = s.approved_by`;

export { questionKey } from './key.ts';

/** Splits a search into FTS5 trigram phrases (3+ characters) and short terms matched with LIKE. */
export function searchTerms(q: string): { fts: string | null; likes: string[]; longLikes: string[] } {
  const terms = q.trim().split(/\s+/).filter(Boolean).slice(0, 8);
  const long = terms.filter((t) => [...t].length >= 3);
  const short = terms.filter((t) => [...t].length < 3);
  return {
    fts: long.length ? long.map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ') : null,
    likes: short.map(likePattern),
    /** The long terms as LIKE patterns, for rows the trigram index does not hold yet. */
    longLikes: long.map(likePattern),
  };
}

const likePattern = (term: string): string => `%${term.replace(/[\\%_]/g, (c) => '\\' + c)}%`;

/** The parameter `param` occurs in the question, ground truth or notes (columns prefixed with `alias`). */
const anyTextLike = (param: string, alias: string): string =>
  `(${['question', 'ground_truth', 'notes'].map((c) => `${alias}${c} LIKE @${param} ESCAPE '\\'`).join(' OR ')})`;

export function sampleQueries(db: DB) {
  // One prepared statement per filter shape (at most a few dozen), reused across requests.
  const cache = new Map<string, Statement>();
  const prepared = (sql: string) => {
    let st = cache.get(sql);
    if (!st) { st = db.prepare(sql); cache.set(sql, st); }
    return st;
  };

  function where(f: SampleFilter): { sql: string; params: Record<string, unknown> } {
    const parts = ['s.dataset_id = @datasetId'];
    const params: Record<string, unknown> = { datasetId: f.datasetId };
    if (f.status) { parts.push('s.status = @status'); params.status = f.status; }
    if (f.authorId) { parts.push('s.author_id = @authorId'); params.authorId = f.authorId; }
    if (f.tag) { parts.push('s.id IN (SELECT sample_id FROM sample_tag WHERE tag = @tag)'); params.tag = f.tag; }
    if (f.q) {
      const { fts, likes, longLikes } = searchTerms(f.q);
      if (fts) {
        // Rows above the index mark (an import's, until the background indexer reaches them) are scanned.
        const unindexed = longLikes.map((_, i) => anyTextLike(`long${i}`, '')).join(' AND ');
        parts.push(`s.id IN (SELECT rowid FROM sample_fts WHERE sample_fts MATCH @fts
          UNION ALL SELECT id FROM sample WHERE id > (SELECT indexed_upto FROM search_index_state) AND ${unindexed})`);
        params.fts = fts;
        longLikes.forEach((like, i) => { params[`long${i}`] = like; });
      }
      likes.forEach((like, i) => {
        parts.push(anyTextLike(`like${i}`, 's.'));
        params[`like${i}`] = like;
      });
    }
    return { sql: parts.join(' AND '), params };
  }

  const s = {
    byId: db.prepare<[number], SampleRow>(`${SELECT} WHERE s.id = ?`),
    shown: db.prepare<[number], SampleRow & { oversized: 0 | 1 }>(`${SHOWN_SELECT} WHERE s.id = ?`),
    byKey: db.prepare<[number, string], { id: number }>('SELECT id FROM sample WHERE dataset_id = ? AND question_key = ?'),
    insert: db.prepare(`INSERT INTO sample (dataset_id, question_key, question, ground_truth, reference_contexts, tags, source, notes, author_id)
      VALUES (@datasetId, @questionKey, @question, @groundTruth, @referenceContexts, @tags, @source, @notes, @authorId)`),
    update: db.prepare(`UPDATE sample SET question_key = @questionKey, question = @question, ground_truth = @groundTruth,
      reference_contexts = @referenceContexts, tags = @tags, source = @source, notes = @notes, status = @status,
      approved_by = @approvedBy, approved_at = @approvedAt, last_editor_id = @lastEditorId, version = version + 1,
      updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = @id AND version = @version`),
    insertRevision: db.prepare(`INSERT INTO sample_revision (sample_id, version, snapshot, edited_by, edited_at)
      VALUES (@sampleId, @version, @snapshot, @editedBy, @editedAt)`),
    revisions: db.prepare<[number], RevisionRow>(`SELECT r.version, r.snapshot, r.edited_by, u.email AS editor_email, r.edited_at
      FROM sample_revision r LEFT JOIN user u ON u.id = r.edited_by WHERE r.sample_id = ? ORDER BY r.version DESC`),
    deleteTags: db.prepare<[number]>('DELETE FROM sample_tag WHERE sample_id = ?'),
    insertTag: db.prepare<[number, string]>('INSERT OR IGNORE INTO sample_tag (sample_id, tag) VALUES (?, ?)'),
    // Counts kept by triggers (migration 0010).
    tags: db.prepare<[number], { tag: string; n: number }>('SELECT tag, n FROM dataset_tag WHERE dataset_id = ? AND n > 0 ORDER BY n DESC, tag LIMIT 200'),
    authors: db.prepare<[number], { id: number; email: string }>(`SELECT DISTINCT u.id, u.email FROM user u
      WHERE u.id IN (SELECT DISTINCT author_id FROM sample WHERE dataset_id = ?) ORDER BY u.email`),
  };

  return {
    byId: (id: number) => s.byId.get(id),
    /** The sample as its page shows it (see SHOWN_SELECT). */
    shown: (id: number) => s.shown.get(id),
    idByQuestion: (datasetId: number, question: string) => s.byKey.get(datasetId, questionKey(question))?.id,
    insert: (row: Record<string, unknown>) => Number(s.insert.run(row).lastInsertRowid),
    update: (row: Record<string, unknown>) => s.update.run(row).changes,
    insertRevision: (row: Record<string, unknown>) => s.insertRevision.run(row),
    revisions: (sampleId: number) => s.revisions.all(sampleId),
    setTags(sampleId: number, tags: string[]): void {
      s.deleteTags.run(sampleId);
      for (const tag of tags) s.insertTag.run(sampleId, tag);
    },
    tags: (datasetId: number) => s.tags.all(datasetId),
    authors: (datasetId: number) => s.authors.all(datasetId),

    /** A page of samples, texts cut to PREVIEW_CHARS (see LIST_SELECT). */
    list(f: SampleFilter, page: { limit: number; offset: number }): { rows: SampleRow[]; total: number } {
      const w = where(f);
      const total = prepared(`SELECT count(*) FROM sample s WHERE ${w.sql}`).pluck().get(w.params) as number;
      const rows = prepared(`${LIST_SELECT} WHERE ${w.sql} ORDER BY s.id DESC LIMIT @limit OFFSET @offset`)
        .all({ ...w.params, ...page }) as SampleRow[];
      return { rows, total };
    },

    /** The next batch of a filter in id order; exports page with this instead of holding a cursor open. */
    batchAfter(f: SampleFilter, afterId: number, limit: number): SampleRow[] {
      const w = where(f);
      return prepared(`${SELECT} WHERE ${w.sql} AND s.id > @afterId ORDER BY s.id LIMIT @limit`)
        .all({ ...w.params, afterId, limit }) as SampleRow[];
    },
  };
}

export type SampleQueries = ReturnType<typeof sampleQueries>;
