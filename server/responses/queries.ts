// SQL for responses: what a system under test answered to a sample, with the contexts it retrieved.
import crypto from 'node:crypto';
import type { DB } from '../db/connection.ts';
import { unchangedByLabels, type DerivedCache } from '../db/derived-cache.ts';
import { LIMITS, sqlClippedList } from '../limits.ts';

export interface ResponseRow {
  id: number;
  sample_id: number;
  dataset_id: number;
  system: string;
  answer: string;
  retrieved_contexts: string;
  metadata: string;
  n_submitted: number;
  created_at: string;
}

/** A response with its sample, as shown (see SHOWN below). */
export interface ResponseWithSample extends ResponseRow {
  question: string;
  ground_truth: string;
  reference_contexts: string;
  tags: string;
  /** How many contexts the response has; retrieved_contexts holds at most LIMITS.contexts of them. */
  n_contexts: number;
}

/**
 * A response as a label is saved against it: its dataset and, when the caller has it at hand, how
 * many contexts it has (otherwise the label service reads it if a value needs it).
 */
export interface LabelTarget { id: number; dataset_id: number; nContexts?: number }

/** Identity of a response within its sample: the same system, answer and contexts are the same response. */
export function responseHash(system: string, answer: string, contexts: string[]): string {
  return crypto.createHash('sha256').update(JSON.stringify([system, answer, contexts])).digest('hex');
}

/**
 * A response with its sample as pages show it (SHOWN_COLUMNS of SHOWN_FROM): texts within the limits of server/limits.ts (data
 * stored before the limits is shown cut, its contexts beyond the limit left out), and how many
 * contexts it really has.
 */
export const SHOWN_COLUMNS = `r.id, r.sample_id, r.dataset_id, r.system, substr(r.answer, 1, ${LIMITS.answer}) AS answer,
    ${sqlClippedList('r.retrieved_contexts', LIMITS.contexts, LIMITS.context)} AS retrieved_contexts,
    json_array_length(r.retrieved_contexts) AS n_contexts, r.metadata, r.n_submitted, r.created_at,
    substr(s.question, 1, ${LIMITS.question}) AS question, substr(s.ground_truth, 1, ${LIMITS.groundTruth}) AS ground_truth,
    ${sqlClippedList('s.reference_contexts', LIMITS.contexts, LIMITS.context)} AS reference_contexts, s.tags`;
/** The tables of SHOWN_COLUMNS: a response `r` and its sample `s` (other columns may be joined on). */
export const SHOWN_FROM = 'response r JOIN sample s ON s.id = r.sample_id';
const SHOWN = `SELECT ${SHOWN_COLUMNS} FROM ${SHOWN_FROM}`;

export function responseQueries(db: DB) {
  const s = {
    byId: db.prepare<[number], ResponseWithSample>(`${SHOWN} WHERE r.id = ?`),
    forSample: db.prepare<[number], ResponseRow>('SELECT * FROM response WHERE sample_id = ? ORDER BY id'),
    countForDataset: db.prepare<[number]>('SELECT n_responses FROM dataset WHERE id = ?').pluck(),
    systems: db.prepare<[number], { system: string; n: number }>('SELECT system, count(*) AS n FROM response WHERE dataset_id = ? GROUP BY system ORDER BY system'),
    idByHash: db.prepare<[number, string], { id: number }>('SELECT id FROM response WHERE sample_id = ? AND content_hash = ?'),
  };
  return {
    byId: (id: number) => s.byId.get(id),
    forSample: (sampleId: number) => s.forSample.all(sampleId),
    countForDataset: (datasetId: number) => s.countForDataset.get(datasetId) as number,
    systems: (datasetId: number) => s.systems.all(datasetId),
    idByHash: (sampleId: number, hash: string) => s.idByHash.get(sampleId, hash)?.id,
  };
}

export type ResponseQueries = ReturnType<typeof responseQueries>;

/**
 * The names of the systems that answered in a dataset, kept until its data changes (a scan of every
 * response); label writes change no response, so the names follow them unchanged.
 */
export function systemNames(app: { derived: DerivedCache; responses: ResponseQueries }, datasetId: number): readonly string[] {
  return app.derived.get(datasetId, 'systems', () => app.responses.systems(datasetId).map((s) => s.system), unchangedByLabels);
}
