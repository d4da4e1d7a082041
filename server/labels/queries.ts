// SQL for the labelling flow: the queue, annotations with their label values, adjudications, progress.
import type { DB } from '../db/connection.ts';
import { PREVIEW_CHARS } from '../samples/queries.ts';
import { SHOWN_COLUMNS, SHOWN_FROM, type ResponseWithSample } from '../responses/queries.ts';

export interface AnnotationRow {
  id: number;
  response_id: number;
  dataset_id: number;
  annotator_id: number;
  annotator_email?: string;
  state: 'draft' | 'submitted';
  rationale: string;
  corrected_answer: string;
  version: number;
  updated_at: string;
  submitted_at: string | null;
}

/** A submitted label as the agreement reads it (raw row): response id, context index, annotator id, value. */
export type SubmittedValue = [responseId: number, contextIndex: number, annotatorId: number, value: string];

/** A dataset's labelling progress with one expert's own count, as progressOf and shown read it. */
export interface ProgressRow { overlap: number; slots_filled: number; n_responses: number; mine: number }

export interface LabelValueRow { annotation_id: number; criterion_id: number; context_index: number; value: string }

export interface AdjudicationRow {
  id: number; response_id: number; criterion_id: number; context_index: number; value: string; reason: string;
  adjudicator_id: number; adjudicator_email: string; version: number; updated_at: string;
}

export interface DisagreementRow { response_id: number; criterion_id: number; context_index: number; n: number; values: string; question: string; system: string }

/** A draft this recent counts as someone working on the item, so the queue hands it to others last. */
export const CLAIM_MINUTES = 30;

/** The queue's condition on a response `r`: not submitted by @me, and not taken by fresh drafts of others. */
const OPEN_TO_ME = `NOT EXISTS (SELECT 1 FROM annotation a WHERE a.response_id = r.id AND a.annotator_id = @me AND a.state = 'submitted')
        AND r.n_submitted + (SELECT count(*) FROM annotation c WHERE c.response_id = r.id AND c.state = 'draft'
              AND c.annotator_id <> @me AND c.updated_at > @cutoff) < @overlap`;

export function labelQueries(db: DB) {
  const s = {
    // Items this expert has not submitted, fewest labels first: sampled ones (queue_rank < 0, see
    // migration 0014) before all others, in the order drawn; drafts of others that are fresh count as
    // taken. Each branch is a range of an index; @after_rank/@after say where a skip left off.
    next: db.prepare<{ ds: number; me: number; overlap: number; cutoff: string; after: number; after_rank: number }, { id: number }>(`
      SELECT id FROM (SELECT r.id FROM response r
        WHERE r.dataset_id = @ds AND r.queue_rank < 0 AND r.n_submitted < @overlap AND r.queue_rank > @after_rank AND ${OPEN_TO_ME}
        ORDER BY r.n_submitted, r.queue_rank LIMIT 1)
      UNION ALL SELECT id FROM (SELECT r.id FROM response r
        WHERE r.dataset_id = @ds AND r.queue_rank = 0 AND r.n_submitted < @overlap AND r.id > @after AND ${OPEN_TO_ME}
        ORDER BY r.n_submitted, r.id LIMIT 1)
      LIMIT 1`),
    queueRank: db.prepare<[number], number>('SELECT queue_rank FROM response WHERE id = ?').pluck(),
    mine: db.prepare<[number, number], AnnotationRow>('SELECT * FROM annotation WHERE response_id = ? AND annotator_id = ?'),
    insertAnnotation: db.prepare<{ response_id: number; dataset_id: number; annotator_id: number; state: string; rationale: string; corrected_answer: string;
      submitted_at: string | null }, AnnotationRow>(`INSERT INTO annotation (response_id, dataset_id, annotator_id, state, rationale, corrected_answer, submitted_at)
      VALUES (@response_id, @dataset_id, @annotator_id, @state, @rationale, @corrected_answer, @submitted_at) RETURNING *`),
    /** Returns the annotation as saved, or nothing when its version moved on. */
    updateAnnotation: db.prepare<{ id: number; version: number; bump: number; state: string; rationale: string; corrected_answer: string;
      submitted_at: string | null }, AnnotationRow>(`UPDATE annotation SET state = @state, rationale = @rationale, corrected_answer = @corrected_answer,
      submitted_at = @submitted_at, version = version + @bump, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
      WHERE id = @id AND version = @version RETURNING *`),
    contextCount: db.prepare<[number], number>('SELECT json_array_length(retrieved_contexts) FROM response WHERE id = ?').pluck(),
    labelsOf: db.prepare<[number], LabelValueRow>('SELECT * FROM label WHERE annotation_id = ?'),
    deleteLabels: db.prepare<[number]>('DELETE FROM label WHERE annotation_id = ?'),
    /** Deletes an annotation's labels and returns them (one statement where the audit needs the values before a change). */
    takeLabels: db.prepare<[number], LabelValueRow>('DELETE FROM label WHERE annotation_id = ? RETURNING *'),
    insertLabel: db.prepare('INSERT INTO label (annotation_id, criterion_id, context_index, value) VALUES (?, ?, ?, ?)'),
    submittedFor: db.prepare<[number], AnnotationRow>(`SELECT a.*, u.email AS annotator_email FROM annotation a JOIN user u ON u.id = a.annotator_id
      WHERE a.response_id = ? AND a.state = 'submitted' ORDER BY a.submitted_at`),
    labelsForResponse: db.prepare<[number], LabelValueRow>(`SELECT l.* FROM label l JOIN annotation a ON a.id = l.annotation_id
      WHERE a.response_id = ? AND a.state = 'submitted'`),
    /**
     * Counts a first submission in the response's running count (the queue's), and returns it with the
     * submitted annotations counted (what the kept open disagreements are told, derived-cache.ts Touched:
     * the running count only moves with the service's writes, and a change past it can leave it wrong).
     */
    bumpResponse: db.prepare<[number], { n_submitted: number; submitted: number }>(`UPDATE response SET n_submitted = n_submitted + 1 WHERE id = ?
      RETURNING n_submitted, (SELECT count(*) FROM annotation a WHERE a.response_id = response.id AND a.state = 'submitted') AS submitted`),
    /** A submission fills a label slot while the response has no more submissions than the overlap asks for. */
    bumpSlotsWithin: db.prepare<{ ds: number; n_submitted: number }>('UPDATE dataset SET slots_filled = slots_filled + 1 WHERE id = @ds AND @n_submitted <= overlap'),
    recountResponses: db.prepare<[number]>(`UPDATE response SET n_submitted =
      (SELECT count(*) FROM annotation a WHERE a.response_id = response.id AND a.state = 'submitted') WHERE dataset_id = ?`),
    recountSlots: db.prepare<[number]>(`UPDATE dataset SET slots_filled =
      (SELECT coalesce(sum(min(r.n_submitted, dataset.overlap)), 0) FROM response r WHERE r.dataset_id = dataset.id) WHERE id = ?`),
    progress: db.prepare<[number], { overlap: number; slots_filled: number; n_responses: number }>('SELECT overlap, slots_filled, n_responses FROM dataset WHERE id = ?'),
    /** The dataset's progress and the expert's own submitted annotations in it (a running count, see migration 0008). */
    progressOf: db.prepare<{ ds: number; me: number }, ProgressRow>(`
      SELECT d.overlap, d.slots_filled, d.n_responses, coalesce(p.n_submitted, 0) AS mine FROM dataset d
      LEFT JOIN annotator_progress p ON p.dataset_id = d.id AND p.annotator_id = @me WHERE d.id = @ds`),
    /**
     * A response as pages show it (responses/queries.ts SHOWN_COLUMNS) with its dataset's progress and the
     * expert's own count (progressOf's, prefixed), in one statement: what the workspace reads for every item.
     */
    shown: db.prepare<{ id: number; me: number }, ResponseWithSample & { [K in keyof ProgressRow as `progress_${K}`]: number }>(`
      SELECT ${SHOWN_COLUMNS}, d.overlap AS progress_overlap, d.slots_filled AS progress_slots_filled, d.n_responses AS progress_n_responses,
        coalesce(p.n_submitted, 0) AS progress_mine
      FROM ${SHOWN_FROM} JOIN dataset d ON d.id = r.dataset_id LEFT JOIN annotator_progress p ON p.dataset_id = d.id AND p.annotator_id = @me
      WHERE r.id = @id`),
    /**
     * Reserves an item for the expert it is shown to: a fresh draft keeps the queue from handing it
     * to others. Returns the expert's annotation, unless it is already submitted (then nothing), and
     * whether it has label values (a draft the expert saved before; a fresh one has none).
     */
    claim: db.prepare<{ response: number; ds: number; me: number }, AnnotationRow & { labelled: 0 | 1 }>(`
      INSERT INTO annotation (response_id, dataset_id, annotator_id, state) VALUES (@response, @ds, @me, 'draft')
      ON CONFLICT (response_id, annotator_id) DO UPDATE SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE state = 'draft'
      RETURNING *, EXISTS (SELECT 1 FROM label l WHERE l.annotation_id = annotation.id) AS labelled`),
    adjudications: db.prepare<[number], AdjudicationRow>(`SELECT j.*, u.email AS adjudicator_email FROM adjudication j
      JOIN user u ON u.id = j.adjudicator_id WHERE j.response_id = ?`),
    adjudication: db.prepare<[number, number, number], AdjudicationRow>(`SELECT j.*, u.email AS adjudicator_email FROM adjudication j
      JOIN user u ON u.id = j.adjudicator_id WHERE j.response_id = ? AND j.criterion_id = ? AND j.context_index = ?`),
    insertAdjudication: db.prepare(`INSERT INTO adjudication (response_id, criterion_id, context_index, value, reason, adjudicator_id)
      VALUES (@response_id, @criterion_id, @context_index, @value, @reason, @adjudicator_id)`),
    updateAdjudication: db.prepare(`UPDATE adjudication SET value = @value, reason = @reason, adjudicator_id = @adjudicator_id,
      version = version + 1, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = @id AND version = @version`),
    disagreements: db.prepare<{ ds: number; limit: number; offset: number }, DisagreementRow>(`
      SELECT a.response_id, l.criterion_id, l.context_index, count(*) AS n, json_group_array(l.value) AS "values",
        substr(s.question, 1, ${PREVIEW_CHARS}) AS question, r.system
      FROM label l JOIN annotation a ON a.id = l.annotation_id JOIN criterion c ON c.id = l.criterion_id
        JOIN response r ON r.id = a.response_id JOIN sample s ON s.id = r.sample_id
      WHERE a.dataset_id = @ds AND a.state = 'submitted' AND c.kind <> 'numeric' AND c.archived = 0
      GROUP BY a.response_id, l.criterion_id, l.context_index
      HAVING count(DISTINCT l.value) > 1 AND NOT EXISTS (SELECT 1 FROM adjudication j WHERE j.response_id = a.response_id
        AND j.criterion_id = l.criterion_id AND j.context_index = l.context_index)
      ORDER BY a.response_id, l.criterion_id, l.context_index LIMIT @limit OFFSET @offset`),
    /** The rows of `disagreements` for the responses first … last (a page found from the kept open slots, see open-disagreements.ts). */
    disagreementsBetween: db.prepare<{ ds: number; first: number; last: number }, DisagreementRow>(`
      SELECT a.response_id, l.criterion_id, l.context_index, count(*) AS n, json_group_array(l.value) AS "values",
        substr(s.question, 1, ${PREVIEW_CHARS}) AS question, r.system
      FROM label l JOIN annotation a ON a.id = l.annotation_id JOIN criterion c ON c.id = l.criterion_id
        JOIN response r ON r.id = a.response_id JOIN sample s ON s.id = r.sample_id
      WHERE a.dataset_id = @ds AND a.response_id BETWEEN @first AND @last AND a.state = 'submitted' AND c.kind <> 'numeric' AND c.archived = 0
      GROUP BY a.response_id, l.criterion_id, l.context_index
      HAVING count(DISTINCT l.value) > 1 AND NOT EXISTS (SELECT 1 FROM adjudication j WHERE j.response_id = a.response_id
        AND j.criterion_id = l.criterion_id AND j.context_index = l.context_index)
      ORDER BY a.response_id, l.criterion_id, l.context_index`),
    disagreementCount: db.prepare<[number], number>(`SELECT count(*) FROM (
      SELECT 1 FROM label l JOIN annotation a ON a.id = l.annotation_id JOIN criterion c ON c.id = l.criterion_id
      WHERE a.dataset_id = ? AND a.state = 'submitted' AND c.kind <> 'numeric' AND c.archived = 0
      GROUP BY a.response_id, l.criterion_id, l.context_index
      HAVING count(DISTINCT l.value) > 1 AND NOT EXISTS (SELECT 1 FROM adjudication j WHERE j.response_id = a.response_id
        AND j.criterion_id = l.criterion_id AND j.context_index = l.context_index))`).pluck(),
    /** Every submitted value of a criterion with who gave it: the input of agreement statistics and of gold labels. */
    // Raw rows of ids (response, context index, annotator, value), no email per row: the agreement
    // reads one row per label of the criterion, and strings and objects per row were most of its cost.
    criterionValues: db.prepare<[number], SubmittedValue>(`
      SELECT a.response_id, l.context_index, a.annotator_id, l.value FROM label l JOIN annotation a ON a.id = l.annotation_id
      WHERE l.criterion_id = ? AND a.state = 'submitted'`).raw(), // no ORDER BY: no figure depends on the order (sorting 200,000 rows took as long as reading them)
    /** The submitted labels of one response, every criterion (criterion id, then as criterionValues): what the kept agreement follows. */
    responseValues: db.prepare<[number], [criterionId: number, ...SubmittedValue]>(`
      SELECT l.criterion_id, a.response_id, l.context_index, a.annotator_id, l.value FROM annotation a JOIN label l ON l.annotation_id = a.id
      WHERE a.response_id = ? AND a.state = 'submitted'`).raw(),
    criterionAdjudications: db.prepare<[number], { response_id: number; context_index: number; value: string }>(
      'SELECT response_id, context_index, value FROM adjudication WHERE criterion_id = ?'),
    members: db.prepare<[number], { user_id: number; email: string; can_label: number; can_adjudicate: number }>(`
      SELECT m.user_id, u.email, m.can_label, m.can_adjudicate FROM dataset_member m JOIN user u ON u.id = m.user_id
      WHERE m.dataset_id = ? ORDER BY u.email`),
    member: db.prepare<[number, number], { can_label: number; can_adjudicate: number }>(
      'SELECT can_label, can_adjudicate FROM dataset_member WHERE dataset_id = ? AND user_id = ?'),
    labellerCount: db.prepare<[number]>('SELECT count(*) FROM dataset_member WHERE dataset_id = ? AND can_label = 1').pluck(),
    clearMembers: db.prepare<[number]>('DELETE FROM dataset_member WHERE dataset_id = ?'),
    insertMember: db.prepare('INSERT INTO dataset_member (dataset_id, user_id, can_label, can_adjudicate) VALUES (?, ?, ?, ?)'),
    setOverlap: db.prepare<[number, number]>('UPDATE dataset SET overlap = ? WHERE id = ?'),
    bumpDatasetVersion: db.prepare<[number, number]>('UPDATE dataset SET version = version + 1 WHERE id = ? AND version = ?'),
  };
  return s;
}

export type LabelQueries = ReturnType<typeof labelQueries>;
