// Imports a file all-or-nothing: stream and check every row into a staging table, then move the rows
// into the dataset in one transaction: samples, then responses, then expert labels.
// Memory stays bounded by one batch of rows.
import crypto from 'node:crypto';
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { DatasetService } from '../datasets/service.ts';
import type { CriterionService } from '../criteria/service.ts';
import type { LabelService } from '../labels/service.ts';
import type { CriterionKind } from '../criteria/values.ts';
import { readImportFile, type ImportFormat } from '../io/read.ts';
import type { RowError } from '../io/errors.ts';
import type { ImportRow } from '../io/schema.ts';
import { questionKey } from '../samples/queries.ts';
import { responseHash } from '../responses/queries.ts';
import { LabelImportAbort, resolveCriteria, writeLabels, type LabelImportError } from './import-labels.ts';
import { ScoreImportAbort, writeScoreRuns, type ImportedRun } from './import-scores.ts';

const BATCH = 2000;
const MAX_ERRORS = 50;

export interface ImportSummary {
  ok: true;
  rows: number;
  created: number;
  matched: number;
  /** Rows whose question exists already with other content: the existing sample is kept. */
  differs: number[];
  responsesCreated: number;
  responsesMatched: number;
  labels: number;
  criteriaCreated: string[];
  /** Rows with expert labels but no answer: a label is about an answer, so these were not imported. */
  labelsWithoutAnswer: number;
  scoreColumns: string[];
  /** Runs created (or added to) from the score columns, when a run name was given. */
  scoreRuns: ImportedRun[];
  ignoredColumns: string[];
}
export interface ImportFailure {
  ok: false;
  errors: RowError[];
  totalErrors: number;
  rows: number;
  labelErrors?: LabelImportError[];
  /** The file has expert labels but nobody was named as their author. */
  needsAnnotator?: boolean;
  /** Why the file's judge scores could not be imported. */
  scoreError?: string;
}
export type ImportResult = ImportSummary | ImportFailure;

export interface ImportOptions {
  format?: ImportFormat | undefined;
  filename?: string | undefined;
  /** Author of the file's `human.<criterion>` labels. */
  annotatorId?: number | undefined;
  criterionTypes?: Record<string, CriterionKind> | undefined;
  /** Name of the run that the file's metric-score columns become (one run row per metric). */
  runName?: string | undefined;
}

interface Staged { key: string; hash: string | null; line: number; row: ImportRow }

export function importService(db: DB, audit: AuditQueries, deps: { datasets: DatasetService; criteria: CriterionService; labels: LabelService }) {
  const stage = db.prepare('INSERT INTO import_staging (import_id, line, payload) VALUES (?, ?, ?)');
  const clear = db.prepare('DELETE FROM import_staging WHERE import_id = ?');
  const differing = db.prepare<{ id: string; ds: number }, { line: number }>(`
    SELECT st.line FROM import_staging st JOIN sample s
      ON s.dataset_id = @ds AND s.question_key = json_extract(st.payload, '$.key')
    WHERE st.import_id = @id AND (
      (json_extract(st.payload, '$.row.sample.ground_truth') IS NOT NULL AND s.ground_truth IS NOT json_extract(st.payload, '$.row.sample.ground_truth'))
      OR (json_array_length(json_extract(st.payload, '$.row.sample.reference_contexts')) > 0
          AND s.reference_contexts IS NOT json(json_extract(st.payload, '$.row.sample.reference_contexts'))))
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
  const insertResponses = db.prepare<{ id: string; ds: number; author: number | null }>(`
    INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash, created_by)
    SELECT s.id, @ds, coalesce(json_extract(st.payload, '$.row.response.system'), ''), json_extract(st.payload, '$.row.response.answer'),
      json(json_extract(st.payload, '$.row.response.retrieved_contexts')), json(json_extract(st.payload, '$.meta')),
      json_extract(st.payload, '$.hash'), @author
    FROM import_staging st JOIN sample s ON s.dataset_id = @ds AND s.question_key = json_extract(st.payload, '$.key')
    WHERE st.import_id = @id AND json_extract(st.payload, '$.hash') IS NOT NULL ORDER BY st.line
    ON CONFLICT (sample_id, content_hash) DO NOTHING`);

  /** Only what the final statements read, under the same JSON paths: small rows keep staging cheap. */
  function stagedPayload(s: Staged): string {
    const { sample, response, labels } = s.row;
    const meta = response ? Object.fromEntries(Object.entries(response.metadata).filter(([, v]) => v !== null)) : null;
    return JSON.stringify({ key: s.key, hash: s.hash, meta, row: {
      sample: { question: sample.question, ground_truth: sample.ground_truth, reference_contexts: sample.reference_contexts,
        tags: sample.tags, source: sample.source, notes: sample.notes },
      response: response && { system: response.system, answer: response.answer, retrieved_contexts: response.retrieved_contexts },
      labels, scores: s.row.scores } });
  }

  function stageBatch(importId: string, batch: Staged[]): void {
    db.transaction(() => {
      for (const s of batch) stage.run(importId, s.line, stagedPayload(s));
    })();
  }

  return {
    async importFile(actorId: number | null, datasetId: number, file: string, options: ImportOptions = {}): Promise<ImportResult> {
      if (!deps.datasets.get(datasetId)) throw new Error(`no dataset ${datasetId}`);
      const importId = crypto.randomUUID();
      const errors: RowError[] = [];
      let totalErrors = 0, rows = 0, withResponse = 0, labelsWithoutAnswer = 0;
      const ignored = new Set<string>();
      const scoreColumns = new Set<string>();
      const labelValues = new Map<string, Set<string>>();
      let batch: Staged[] = [];
      try {
        for await (const item of readImportFile(file, { format: options.format, filename: options.filename })) {
          if ('error' in item) {
            totalErrors += item.errors.length;
            for (const e of item.errors) if (errors.length < MAX_ERRORS) errors.push(e);
            continue;
          }
          rows++;
          const { row } = item;
          row.ignored.forEach((c) => ignored.add(c));
          Object.keys(row.scores).forEach((c) => scoreColumns.add(c));
          for (const [name, value] of Object.entries(row.labels)) {
            const set = labelValues.get(name) ?? new Set<string>();
            if (set.size < 1000) set.add(value);
            labelValues.set(name, set);
          }
          if (Object.keys(row.labels).length && !row.response) labelsWithoutAnswer++;
          if (totalErrors) continue; // keep reading to report every problem, but stage nothing more
          const hash = row.response ? responseHash(row.response.system ?? '', row.response.answer, row.response.retrieved_contexts) : null;
          if (hash) withResponse++;
          batch.push({ key: questionKey(row.sample.question), hash, line: item.line, row });
          if (batch.length >= BATCH) { stageBatch(importId, batch); batch = []; }
        }
        if (totalErrors) return { ok: false, errors, totalErrors, rows };
        stageBatch(importId, batch);
        if (rows === 0) return { ok: false, errors: [], totalErrors: 0, rows: 0 };
        if (labelValues.size && options.annotatorId === undefined) return { ok: false, errors: [], totalErrors: 0, rows, needsAnnotator: true };

        return db.transaction((): ImportSummary => {
          const differs = differing.all({ id: importId, ds: datasetId }).map((r) => r.line);
          const before = maxSampleId.get() as number;
          const created = insertSamples.run({ id: importId, ds: datasetId, author: actorId }).changes;
          insertTags.run({ ds: datasetId, after: before });
          const responsesCreated = insertResponses.run({ id: importId, ds: datasetId, author: actorId }).changes;
          let labels = 0;
          const criteriaCreated: string[] = [];
          if (labelValues.size) {
            const known = new Set(deps.criteria.forDataset(datasetId).map((c) => c.name.toLowerCase()));
            const criteria = resolveCriteria(deps.criteria, actorId, datasetId, labelValues, options.criterionTypes ?? {});
            for (const name of criteria.keys()) if (!known.has(name.toLowerCase())) criteriaCreated.push(name);
            labels = writeLabels(db, importId, datasetId, options.annotatorId!, criteria);
            deps.labels.recount(datasetId);
          }
          const scoreRuns = options.runName && scoreColumns.size
            ? writeScoreRuns(db, importId, datasetId, options.runName, [...scoreColumns], actorId) : [];
          deps.datasets.queries.touch(datasetId);
          const summary: ImportSummary = {
            ok: true, rows, created, matched: rows - created, differs, responsesCreated, responsesMatched: withResponse - responsesCreated,
            labels, criteriaCreated, labelsWithoutAnswer, scoreColumns: [...scoreColumns], scoreRuns, ignoredColumns: [...ignored],
          };
          audit.record({ actorId, entityType: 'import', entityId: null, datasetId, action: 'import', after: {
            file: options.filename ?? null, rows, samples_created: created, responses_created: responsesCreated, labels,
            annotator: options.annotatorId ?? null, differs: differs.length } });
          return summary;
        })();
      } catch (err) {
        if (err instanceof LabelImportAbort) return { ok: false, errors: [], totalErrors: err.errors.length, rows, labelErrors: err.errors };
        if (err instanceof ScoreImportAbort) return { ok: false, errors: [], totalErrors: 1, rows, scoreError: err.message };
        throw err;
      } finally {
        clear.run(importId);
      }
    },
  };
}

export type ImportService = ReturnType<typeof importService>;
