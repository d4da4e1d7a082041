// Imports an eval-set file all-or-nothing: stream and check every row into a staging table, then
// move the rows into the dataset in one transaction. Memory stays bounded by one batch of rows.
import crypto from 'node:crypto';
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { DatasetService } from '../datasets/service.ts';
import { readImportFile, type ImportFormat } from '../io/read.ts';
import type { RowError } from '../io/errors.ts';
import type { ImportRow } from '../io/schema.ts';
import { questionKey } from '../samples/queries.ts';

const BATCH = 2000;
const MAX_ERRORS = 50;

export interface ImportSummary {
  ok: true;
  rows: number;
  created: number;
  matched: number;
  /** Rows whose question exists already with other content: the existing sample is kept. */
  differs: number[];
  ignoredColumns: string[];
}
export interface ImportFailure { ok: false; errors: RowError[]; totalErrors: number; rows: number }
export type ImportResult = ImportSummary | ImportFailure;

export interface ImportOptions { format?: ImportFormat | undefined; filename?: string | undefined; onProgress?: (rows: number) => void }

interface Staged { key: string; line: number; row: ImportRow }

export function importService(db: DB, audit: AuditQueries, datasets: DatasetService) {
  const stage = db.prepare('INSERT INTO import_staging (import_id, line, payload) VALUES (?, ?, ?)');
  const clear = db.prepare('DELETE FROM import_staging WHERE import_id = ?');
  const differing = db.prepare<{ id: string; ds: number }, { line: number }>(`
    SELECT st.line FROM import_staging st JOIN sample s
      ON s.dataset_id = @ds AND s.question_key = json_extract(st.payload, '$.key')
    WHERE st.import_id = @id AND (s.ground_truth IS NOT coalesce(json_extract(st.payload, '$.row.sample.ground_truth'), '')
      OR s.reference_contexts IS NOT json(json_extract(st.payload, '$.row.sample.reference_contexts')))
    ORDER BY st.line`);
  const maxSampleId = db.prepare('SELECT coalesce(max(id), 0) FROM sample').pluck();
  // First row wins for a question that appears twice in one file; later ones count as matched.
  const insertSamples = db.prepare<{ id: string; ds: number; author: number | null }>(`
    INSERT INTO sample (dataset_id, question_key, question, ground_truth, reference_contexts, tags, source, notes, author_id)
    SELECT @ds, json_extract(payload, '$.key'), json_extract(payload, '$.row.sample.question'),
      coalesce(json_extract(payload, '$.row.sample.ground_truth'), ''),
      json(json_extract(payload, '$.row.sample.reference_contexts')), json(json_extract(payload, '$.row.sample.tags')),
      coalesce(json_extract(payload, '$.row.sample.source'), ''), coalesce(json_extract(payload, '$.row.sample.notes'), ''), @author
    FROM import_staging WHERE import_id = @id ORDER BY line
    ON CONFLICT (dataset_id, question_key) DO NOTHING`);
  const insertTags = db.prepare<{ ds: number; after: number }>(`
    INSERT OR IGNORE INTO sample_tag (sample_id, tag)
    SELECT s.id, j.value FROM sample s, json_each(s.tags) j WHERE s.dataset_id = @ds AND s.id > @after`);

  function stageBatch(importId: string, batch: Staged[]): void {
    db.transaction(() => {
      for (const s of batch) stage.run(importId, s.line, JSON.stringify({ key: s.key, row: s.row }));
    })();
  }

  return {
    async importSamples(actorId: number | null, datasetId: number, file: string, options: ImportOptions = {}): Promise<ImportResult> {
      const dataset = datasets.get(datasetId);
      if (!dataset) throw new Error(`no dataset ${datasetId}`);
      const importId = crypto.randomUUID();
      const errors: RowError[] = [];
      let totalErrors = 0, rows = 0;
      const ignored = new Set<string>();
      let batch: Staged[] = [];
      try {
        for await (const item of readImportFile(file, { format: options.format, filename: options.filename })) {
          if ('error' in item) {
            totalErrors += item.errors.length;
            for (const e of item.errors) if (errors.length < MAX_ERRORS) errors.push(e);
            continue;
          }
          rows++;
          item.row.ignored.forEach((c) => ignored.add(c));
          if (totalErrors) continue; // keep reading to report every problem, but stage nothing more
          batch.push({ key: questionKey(item.row.sample.question), line: item.line, row: item.row });
          if (batch.length >= BATCH) { stageBatch(importId, batch); batch = []; options.onProgress?.(rows); }
        }
        if (totalErrors) return { ok: false, errors, totalErrors, rows };
        stageBatch(importId, batch);
        if (rows === 0) return { ok: false, errors: [], totalErrors: 0, rows: 0 };

        return db.transaction((): ImportSummary => {
          const differs = differing.all({ id: importId, ds: datasetId }).map((r) => r.line);
          const before = maxSampleId.get() as number;
          const created = insertSamples.run({ id: importId, ds: datasetId, author: actorId }).changes;
          insertTags.run({ ds: datasetId, after: before });
          datasets.queries.touch(datasetId);
          const summary = { rows, created, matched: rows - created, file: options.filename ?? null, differs: differs.length };
          audit.record({ actorId, entityType: 'import', entityId: null, datasetId, action: 'import_samples', after: summary });
          clear.run(importId);
          return { ok: true, rows, created, matched: rows - created, differs, ignoredColumns: [...ignored] };
        })();
      } finally {
        clear.run(importId);
      }
    },
  };
}

export type ImportService = ReturnType<typeof importService>;
