// SQL for criteria: what experts judge in a dataset.
import type { DB } from '../db/connection.ts';
import type { CriterionKind, CriterionOption, CriterionTarget } from './values.ts';

export interface CriterionRow {
  id: number;
  dataset_id: number;
  name: string;
  kind: CriterionKind;
  target: CriterionTarget;
  options: string;
  scale_min: number | null;
  scale_max: number | null;
  guidelines: string;
  position: number;
  archived: 0 | 1;
  version: number;
}

export interface Criterion extends Omit<CriterionRow, 'options'> { options: CriterionOption[] }

export function toCriterion(row: CriterionRow): Criterion {
  return { ...row, options: JSON.parse(row.options) as CriterionOption[] };
}

/** How many datasets' criteria lists are kept (forDatasetRow); each is a few rows. */
const KEPT_DATASETS = 256;

function frozenCriterion(row: CriterionRow): Criterion {
  const c = toCriterion(row);
  for (const o of c.options) Object.freeze(o);
  Object.freeze(c.options);
  return Object.freeze(c);
}

export function criterionQueries(db: DB) {
  /** Each dataset's active criteria as last read, with the dataset's criteria_stamp then (see forDatasetRow). */
  const kept = new Map<number, { stamp: number; list: readonly Criterion[] }>();
  const s = {
    byId: db.prepare<[number], CriterionRow>('SELECT * FROM criterion WHERE id = ?'),
    byName: db.prepare<[number, string], CriterionRow>('SELECT * FROM criterion WHERE dataset_id = ? AND name = ?'),
    forDataset: db.prepare<[number], CriterionRow>('SELECT * FROM criterion WHERE dataset_id = ? AND archived = 0 ORDER BY position, id'),
    allForDataset: db.prepare<[number], CriterionRow>('SELECT * FROM criterion WHERE dataset_id = ? ORDER BY archived, position, id'),
    insert: db.prepare(`INSERT INTO criterion (dataset_id, name, kind, target, options, scale_min, scale_max, guidelines, position)
      VALUES (@dataset_id, @name, @kind, @target, @options, @scale_min, @scale_max, @guidelines,
        (SELECT coalesce(max(position), 0) + 1 FROM criterion WHERE dataset_id = @dataset_id))`),
    update: db.prepare(`UPDATE criterion SET guidelines = @guidelines, options = @options, archived = @archived, version = version + 1
      WHERE id = @id AND version = @version`),
    labelCount: db.prepare<[number]>('SELECT count(*) FROM label WHERE criterion_id = ?').pluck(),
  };
  return {
    byId: (id: number) => { const r = s.byId.get(id); return r ? toCriterion(r) : undefined; },
    byName: (datasetId: number, name: string) => { const r = s.byName.get(datasetId, name); return r ? toCriterion(r) : undefined; },
    forDataset: (datasetId: number) => s.forDataset.all(datasetId).map(toCriterion),
    /**
     * As forDataset, for a dataset row read in the same transaction: the list kept under the row's
     * criteria_stamp when there is one (every change of the dataset's criteria sets a new stamp,
     * migration 0023), else read and kept. Frozen, shared between requests: do not change it.
     */
    forDatasetRow(dataset: { id: number; criteria_stamp: number }): readonly Criterion[] {
      const hit = kept.get(dataset.id);
      if (hit && hit.stamp === dataset.criteria_stamp) return hit.list;
      const list = Object.freeze(s.forDataset.all(dataset.id).map(frozenCriterion));
      // A row read without the column (a query naming its columns) says nothing: keep nothing.
      if (typeof dataset.criteria_stamp !== 'number') return list;
      kept.delete(dataset.id);
      kept.set(dataset.id, { stamp: dataset.criteria_stamp, list });
      if (kept.size > KEPT_DATASETS) kept.delete(kept.keys().next().value!);
      return list;
    },
    allForDataset: (datasetId: number) => s.allForDataset.all(datasetId).map(toCriterion),
    insert: (c: Omit<Criterion, 'id' | 'position' | 'archived' | 'version'>) =>
      Number(s.insert.run({ ...c, options: JSON.stringify(c.options) }).lastInsertRowid),
    update: (id: number, c: { guidelines: string; options: CriterionOption[]; archived: boolean; version: number }) =>
      s.update.run({ id, guidelines: c.guidelines, options: JSON.stringify(c.options), archived: c.archived ? 1 : 0, version: c.version }).changes,
    labelCount: (id: number) => s.labelCount.get(id) as number,
  };
}

export type CriterionQueries = ReturnType<typeof criterionQueries>;
