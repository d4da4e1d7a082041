// Expert labels from files: `human.<criterion>` columns become submitted annotations of one expert.
// Runs inside the import's transaction; a value a criterion does not allow aborts the whole import.
import type { DB } from '../db/connection.ts';
import type { CriterionService } from '../criteria/service.ts';
import type { Criterion } from '../criteria/queries.ts';
import { canonicalValue, inferShape, type CriterionKind, type CriterionShape } from '../criteria/values.ts';

export interface LabelImportError { line: number; criterion: string; value: string; kind: CriterionKind }

export class LabelImportAbort extends Error {
  constructor(readonly errors: LabelImportError[]) { super('label values not allowed'); }
}

/** The criterion for each label column: existing ones as they are, missing ones created with a declared or inferred shape. */
export function resolveCriteria(criteria: CriterionService, actorId: number | null, datasetId: number,
  seen: Map<string, Set<string>>, declared: Record<string, CriterionKind>): Map<string, Criterion> {
  const out = new Map<string, Criterion>();
  for (const [name, values] of seen) {
    const existing = criteria.queries.byName(datasetId, name);
    if (existing) { out.set(name, existing); continue; }
    const inferred = inferShape([...values]);
    const kind = declared[name] ?? inferred.kind;
    const shape: CriterionShape = kind === inferred.kind ? inferred
      : kind === 'ordinal' ? { kind, options: [], scale_min: 1, scale_max: 5 }
      : kind === 'categorical' ? { kind, options: [...values].sort().map((v) => ({ value: v, label: v })), scale_min: null, scale_max: null }
      : { kind, options: [], scale_min: null, scale_max: null };
    out.set(name, criteria.create(actorId, datasetId, { name, target: 'response', guidelines: '', ...shape }));
  }
  return out;
}

/** Writes the labels of every row of the staging table (see import-service.ts); returns how many label values were written. */
export function writeLabels(db: DB, staging: string, datasetId: number, annotatorId: number, criteria: Map<string, Criterion>): number {
  const rows = db.prepare<{ after: number }, { seq: number; line: number; labels: string; response_id: number | null }>(`
    SELECT st.seq, st.line, st.labels, st.response_id FROM ${staging} st
    WHERE st.seq > @after AND st.labels IS NOT NULL ORDER BY st.seq LIMIT 1000`);
  const findAnnotation = db.prepare<[number, number], { id: number; state: string }>('SELECT id, state FROM annotation WHERE response_id = ? AND annotator_id = ?');
  const insertAnnotation = db.prepare(`INSERT INTO annotation (response_id, dataset_id, annotator_id, state, submitted_at)
    VALUES (?, ?, ?, 'submitted', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);
  const submitDraft = db.prepare(`UPDATE annotation SET state = 'submitted', submitted_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
    version = version + 1 WHERE id = ?`);
  const upsertLabel = db.prepare(`INSERT INTO label (annotation_id, criterion_id, context_index, value) VALUES (?, ?, -1, ?)
    ON CONFLICT (annotation_id, criterion_id, context_index) DO UPDATE SET value = excluded.value`);

  const errors: LabelImportError[] = [];
  let written = 0, after = 0;
  for (;;) {
    const batch = rows.all({ after });
    if (!batch.length) break;
    for (const row of batch) {
      after = row.seq;
      if (row.response_id === null) continue; // labels need an answer to be about; counted by the caller
      const labels = JSON.parse(row.labels) as Record<string, string>;
      let annotation = findAnnotation.get(row.response_id, annotatorId);
      if (!annotation) {
        insertAnnotation.run(row.response_id, datasetId, annotatorId);
        annotation = findAnnotation.get(row.response_id, annotatorId)!;
      } else if (annotation.state === 'draft') submitDraft.run(annotation.id);
      for (const [name, raw] of Object.entries(labels)) {
        const criterion = criteria.get(name)!;
        const value = canonicalValue(criterion, raw);
        if (value === null) { if (errors.length < 50) errors.push({ line: row.line, criterion: name, value: raw, kind: criterion.kind }); continue; }
        upsertLabel.run(annotation.id, criterion.id, value);
        written++;
      }
    }
  }
  if (errors.length) throw new LabelImportAbort(errors);
  return written;
}
