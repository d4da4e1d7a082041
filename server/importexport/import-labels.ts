// Expert labels from files: `human.<criterion>` columns become submitted annotations of one expert.
// Runs inside the import's transaction; a value a criterion does not allow aborts the whole import.
// A per-context criterion's cell is a list with one value per retrieved context in rank order (null
// for an unlabelled rank), as the export with responses writes it; a list whose length is not the
// response's number of contexts aborts the import too, naming the row.
import type { DB } from '../db/connection.ts';
import { CriterionError, type CriterionService } from '../criteria/service.ts';
import type { MessageKey } from '../i18n/index.ts';
import type { Criterion } from '../criteria/queries.ts';
import { canonicalValue, inferShape, type CriterionKind, type CriterionShape } from '../criteria/values.ts';

/**
 * What is wrong with one label cell: a value the criterion does not allow, a per-context criterion
 * given a single value, a response-level one given a list, or a list of the wrong length.
 */
export type LabelProblem = 'value' | 'not_a_list' | 'unexpected_list' | 'list_length';

export interface LabelImportError {
  line: number; criterion: string; value: string; kind: CriterionKind;
  problem?: LabelProblem;
  /** list_length: the response's number of contexts, and the list's length. */
  expected?: number; got?: number;
}

/** What `--criterion-type NAME=TYPE` may say: a kind, or that the column is a per-context binary criterion. */
export const DECLARED_TYPES = ['binary', 'categorical', 'ordinal', 'numeric', 'context-binary'] as const;
export type DeclaredType = (typeof DECLARED_TYPES)[number];

export class LabelImportAbort extends Error {
  constructor(readonly errors: LabelImportError[]) { super('label values not allowed'); }
}

/** A criterion a label column needs cannot be created (e.g. over the limits of server/limits.ts). */
export interface CriterionImportError { criterion: string; key: MessageKey; params: Record<string, string | number> }

export class CriterionImportAbort extends Error {
  constructor(readonly error: CriterionImportError) { super(`criterion ${error.criterion}: ${error.key}`); }
}

/**
 * The criterion for each label column: existing ones as they are, missing ones created with a declared
 * or inferred shape; a column that held lists (`lists`) or is declared `context-binary` becomes a
 * per-context binary criterion.
 */
export function resolveCriteria(criteria: CriterionService, actorId: number | null, datasetId: number,
  seen: Map<string, Set<string>>, declared: Record<string, DeclaredType>, lists: ReadonlySet<string> = new Set()): Map<string, Criterion> {
  const out = new Map<string, Criterion>();
  for (const [name, values] of seen) {
    const existing = criteria.queries.byName(datasetId, name);
    if (existing) { out.set(name, existing); continue; }
    try {
      if (declared[name] === 'context-binary' || (lists.has(name) && declared[name] === undefined)) {
        out.set(name, criteria.create(actorId, datasetId, { name, target: 'context', guidelines: '', kind: 'binary', options: [], scale_min: null, scale_max: null }));
        continue;
      }
      const inferred = inferShape([...values]);
      const kind = (declared[name] as CriterionKind | undefined) ?? inferred.kind;
      const shape: CriterionShape = kind === inferred.kind ? inferred
        : kind === 'ordinal' ? { kind, options: [], scale_min: 1, scale_max: 5 }
        : kind === 'categorical' ? { kind, options: [...values].sort().map((v) => ({ value: v, label: v })), scale_min: null, scale_max: null }
        : { kind, options: [], scale_min: null, scale_max: null };
      out.set(name, criteria.create(actorId, datasetId, { name, target: 'response', guidelines: '', ...shape }));
    } catch (err) {
      if (err instanceof CriterionError) throw new CriterionImportAbort({ criterion: name, key: err.key, params: err.params });
      throw err;
    }
  }
  return out;
}

/** Writes the labels of every row of the staging table (see import-service.ts); returns how many label values were written. */
export function writeLabels(db: DB, staging: string, datasetId: number, annotatorId: number, criteria: Map<string, Criterion>): number {
  const rows = db.prepare<{ after: number }, { seq: number; line: number; labels: string; response_id: number | null; contexts: number | null }>(`
    SELECT st.seq, st.line, st.labels, st.response_id, json_array_length(r.retrieved_contexts) AS contexts FROM ${staging} st
    LEFT JOIN response r ON r.id = st.response_id
    WHERE st.seq > @after AND st.labels IS NOT NULL ORDER BY st.seq LIMIT 1000`);
  const findAnnotation = db.prepare<[number, number], { id: number; state: string }>('SELECT id, state FROM annotation WHERE response_id = ? AND annotator_id = ?');
  const insertAnnotation = db.prepare(`INSERT INTO annotation (response_id, dataset_id, annotator_id, state, submitted_at)
    VALUES (?, ?, ?, 'submitted', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);
  const submitDraft = db.prepare(`UPDATE annotation SET state = 'submitted', submitted_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
    version = version + 1 WHERE id = ?`);
  const upsertLabel = db.prepare(`INSERT INTO label (annotation_id, criterion_id, context_index, value) VALUES (?, ?, ?, ?)
    ON CONFLICT (annotation_id, criterion_id, context_index) DO UPDATE SET value = excluded.value`);

  const errors: LabelImportError[] = [];
  let written = 0, after = 0;
  for (;;) {
    const batch = rows.all({ after });
    if (!batch.length) break;
    for (const row of batch) {
      after = row.seq;
      if (row.response_id === null) continue; // labels need an answer to be about; counted by the caller
      const labels = JSON.parse(row.labels) as Record<string, string | (string | null)[]>;
      let annotation = findAnnotation.get(row.response_id, annotatorId);
      if (!annotation) {
        insertAnnotation.run(row.response_id, datasetId, annotatorId);
        annotation = findAnnotation.get(row.response_id, annotatorId)!;
      } else if (annotation.state === 'draft') submitDraft.run(annotation.id);
      for (const [name, raw] of Object.entries(labels)) {
        const criterion = criteria.get(name)!;
        const refuse = (problem: LabelProblem, value: string, extra: Partial<LabelImportError> = {}) => {
          if (errors.length < 50) errors.push({ line: row.line, criterion: name, value, kind: criterion.kind, problem, ...extra });
        };
        const cells = typeof raw === 'string' ? null : raw;
        if (criterion.target === 'context') {
          if (cells === null) { refuse('not_a_list', raw as string); continue; }
          if (cells.length !== row.contexts) { refuse('list_length', JSON.stringify(cells), { expected: row.contexts ?? 0, got: cells.length }); continue; }
        } else if (cells !== null) { refuse('unexpected_list', JSON.stringify(cells)); continue; }
        for (const [index, cell] of (cells ?? [raw as string]).entries()) {
          if (cell === null) continue;
          const value = canonicalValue(criterion, cell);
          if (value === null) { refuse('value', cell); continue; }
          upsertLabel.run(annotation.id, criterion.id, cells ? index : -1, value);
          written++;
        }
      }
    }
  }
  if (errors.length) throw new LabelImportAbort(errors);
  return written;
}
