// SQL for releases and their records (migration 0022 keeps both unchangeable).
import type { DB } from '../db/connection.ts';
import type { RecordKind } from './content.ts';

export interface ReleaseRow {
  id: number; dataset_id: number; tag: string; hash: string; with_responses: number; n_samples: number; n_responses: number;
  n_records: number; longest_text: number; note: string; dataset_name: string; language: string; author_email: string | null;
  created_by: number | null; created_at: string;
}

export interface StoredRecord { position: number; kind: RecordKind; sample_id: number | null; response_id: number | null; item_key: string; body: string }

export function releaseQueries(db: DB) {
  return {
    byTag: db.prepare<[number, string], ReleaseRow>('SELECT * FROM release WHERE dataset_id = ? AND tag = ?'),
    byId: db.prepare<[number], ReleaseRow>('SELECT * FROM release WHERE id = ?'),
    forDataset: db.prepare<[number], ReleaseRow>('SELECT * FROM release WHERE dataset_id = ? ORDER BY id DESC'),
    insert: db.prepare<{ dataset_id: number; tag: string; hash: string; with_responses: number; n_samples: number; n_responses: number; n_records: number;
      longest_text: number; note: string; dataset_name: string; language: string; author_email: string | null; created_by: number | null }>(`
      INSERT INTO release (dataset_id, tag, hash, with_responses, n_samples, n_responses, n_records, longest_text, note, dataset_name, language, author_email, created_by)
      VALUES (@dataset_id, @tag, @hash, @with_responses, @n_samples, @n_responses, @n_records, @longest_text, @note, @dataset_name, @language, @author_email, @created_by)`),
    /** Records after a position, in order, a page at a time. */
    records: db.prepare<{ release: number; after: number; limit: number }, StoredRecord>(`SELECT position, kind, sample_id, response_id, item_key, body
      FROM release_record WHERE release_id = @release AND position > @after ORDER BY position LIMIT @limit`),
    recordOfResponse: db.prepare<[number, number], StoredRecord>(`SELECT position, kind, sample_id, response_id, item_key, body
      FROM release_record WHERE release_id = ? AND response_id = ?`),
    recordOfSample: db.prepare<[number, number], StoredRecord>(`SELECT position, kind, sample_id, response_id, item_key, body
      FROM release_record WHERE release_id = ? AND sample_id = ? AND kind = 'sample'`),
    responseIds: db.prepare<[number], number>("SELECT response_id FROM release_record WHERE release_id = ? AND kind = 'response' ORDER BY position").pluck(),
    sampleIds: db.prepare<[number], number>("SELECT sample_id FROM release_record WHERE release_id = ? AND kind = 'sample' ORDER BY position").pluck(),
    /** The responses of the dataset now whose sample is in the release (a release without responses is scored on these). */
    responsesOfSamples: db.prepare<[number, number], number>(`SELECT r.id FROM release_record rr JOIN response r ON r.sample_id = rr.sample_id
      WHERE rr.release_id = ? AND rr.kind = 'sample' AND r.dataset_id = ? ORDER BY r.id`).pluck(),
    markDeletion: db.prepare<[number]>('INSERT INTO release_deletion (release_id) VALUES (?)'),
    deleteRecords: db.prepare<[number]>('DELETE FROM release_record WHERE release_id = ?'),
    deleteRelease: db.prepare<[number]>('DELETE FROM release WHERE id = ?'),
    unmarkDeletion: db.prepare<[number]>('DELETE FROM release_deletion WHERE release_id = ?'),
  };
}

export type ReleaseQueries = ReturnType<typeof releaseQueries>;
