// SQL for datasets and their per-status sample counts.
import type { DB } from '../db/connection.ts';

export interface DatasetRow {
  id: number;
  name: string;
  description: string;
  language: 'zh' | 'en';
  domain: string;
  archived: 0 | 1;
  holdout_seed: number;
  overlap: number;
  slots_filled: number;
  n_responses: number;
  /** Moves with every change of the settings or the labelling assignment (migration 0015). */
  version: number;
  /** A new random value whenever the dataset's criteria change (migration 0023): what their kept list is kept under. */
  criteria_stamp: number;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

export interface DatasetListRow extends DatasetRow {
  n_samples: number;
  n_approved: number;
  n_in_review: number;
}

export function datasetQueries(db: DB) {
  const s = {
    byId: db.prepare<[number], DatasetRow>('SELECT * FROM dataset WHERE id = ?'),
    byName: db.prepare<[string], DatasetRow>('SELECT * FROM dataset WHERE name = ?'),
    list: db.prepare<[number], DatasetListRow>(`SELECT d.*,
        (SELECT count(*) FROM sample s WHERE s.dataset_id = d.id) AS n_samples,
        (SELECT count(*) FROM sample s WHERE s.dataset_id = d.id AND s.status = 'approved') AS n_approved,
        (SELECT count(*) FROM sample s WHERE s.dataset_id = d.id AND s.status = 'in_review') AS n_in_review
      FROM dataset d WHERE d.archived = 0 OR ? = 1 ORDER BY d.archived, d.updated_at DESC`),
    insert: db.prepare<{ name: string; description: string; language: string; domain: string; seed: number; by: number | null }>(
      `INSERT INTO dataset (name, description, language, domain, holdout_seed, created_by)
       VALUES (@name, @description, @language, @domain, @seed, @by)`),
    update: db.prepare<{ id: number; name: string; description: string; language: string; domain: string; archived: number; version: number }>(
      `UPDATE dataset SET name = @name, description = @description, language = @language, domain = @domain,
       archived = @archived, version = version + 1, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = @id AND version = @version`),
    touch: db.prepare<[number]>("UPDATE dataset SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?"),
  };
  return {
    byId: (id: number) => s.byId.get(id),
    byName: (name: string) => s.byName.get(name),
    list: (includeArchived: boolean) => s.list.all(includeArchived ? 1 : 0),
    insert: (d: { name: string; description: string; language: string; domain: string; seed: number; by: number | null }) =>
      Number(s.insert.run(d).lastInsertRowid),
    update: (d: { id: number; name: string; description: string; language: string; domain: string; archived: number; version: number }) =>
      s.update.run(d).changes,
    touch: (id: number) => s.touch.run(id),
  };
}
