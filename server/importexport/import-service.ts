// Imports a file all-or-nothing: stream and check every row into a TEMP staging table, then move the
// rows into the dataset in one transaction: samples, then responses, then expert labels. Memory stays
// bounded by one batch of rows; the trigram search index of new samples is filled afterwards in the
// background (server/samples/search-index.ts).
import crypto from 'node:crypto';
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { DatasetService } from '../datasets/service.ts';
import type { CriterionService } from '../criteria/service.ts';
import type { LabelService } from '../labels/service.ts';
import type { CriterionKind } from '../criteria/values.ts';
import { readImportBatches, type ImportFormat } from '../io/read.ts';
import type { RowError } from '../io/errors.ts';
import type { ImportRow } from '../io/schema.ts';
import { questionKey } from '../samples/queries.ts';
import { responseHash } from '../responses/queries.ts';
import type { SearchIndexer } from '../samples/search-index.ts';
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

/** One checked row on its way into the staging table. */
interface Staged { key: string; hash: string | null; line: number; row: ImportRow }

const STAGING_COLUMNS = `line INTEGER PRIMARY KEY, key TEXT NOT NULL, question TEXT NOT NULL, ground_truth TEXT, refs TEXT, tags TEXT,
  source TEXT, notes TEXT, system TEXT, answer TEXT, retrieved TEXT, meta TEXT, hash TEXT, labels TEXT, scores TEXT`;

/** JSON of a list or object, or null when it is empty: most rows have neither tags nor labels, and SQL skips nulls cheaply. */
const jsonOrNull = (v: readonly unknown[] | Record<string, unknown>): string | null =>
  (Array.isArray(v) ? v.length > 0 : hasKeys(v)) ? JSON.stringify(v) : null;

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/**
 * A TEMP table for one import's rows (temp tables live outside the database file and its
 * write-ahead log), with the statements that move its rows into the dataset.
 */
function stagingTable(db: DB, importId: string) {
  const table = `temp."import_${importId.replace(/-/g, '')}"`;
  db.exec(`CREATE TEMP TABLE ${table} (${STAGING_COLUMNS})`);
  const insert = db.prepare(`INSERT INTO ${table} (line, key, question, ground_truth, refs, tags, source, notes, system, answer, retrieved, meta, hash, labels, scores)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  // Binding a parameter costs about as much as copying a short text: a row that is just a question
  // and its ground truth (the usual eval-set file) binds four.
  const insertQuestionOnly = db.prepare(`INSERT INTO ${table} (line, key, question, ground_truth) VALUES (?, ?, ?, ?)`);
  const questionOnly = ({ sample, response, labels, scores }: ImportRow): boolean => response === null && sample.reference_contexts.length === 0 &&
    sample.tags.length === 0 && sample.source === null && sample.notes === null && !hasKeys(labels) && !hasKeys(scores);
  return {
    table,
    stage: db.transaction((batch: Staged[]) => {
      for (const { key, hash, line, row } of batch) {
        const { sample, response } = row;
        if (questionOnly(row)) { insertQuestionOnly.run(line, key, sample.question, sample.ground_truth); continue; }
        const meta = response ? Object.fromEntries(Object.entries(response.metadata).filter(([, v]) => v !== null)) : null;
        insert.run(line, key, sample.question, sample.ground_truth, jsonOrNull(sample.reference_contexts), jsonOrNull(sample.tags),
          sample.source, sample.notes, response?.system ?? null, response?.answer ?? null,
          response ? JSON.stringify(response.retrieved_contexts) : null, meta && JSON.stringify(meta), hash,
          jsonOrNull(row.labels), jsonOrNull(row.scores));
      }
    }),
    // A question already in the dataset whose file row brings another ground truth or other reference contexts.
    differing: db.prepare<{ ds: number }, { line: number }>(`SELECT st.line FROM ${table} st
      JOIN sample s ON s.dataset_id = @ds AND s.question_key = st.key
      WHERE (st.ground_truth IS NOT NULL AND s.ground_truth IS NOT st.ground_truth) OR (st.refs IS NOT NULL AND s.reference_contexts IS NOT st.refs)
      ORDER BY st.line`),
    // First row wins for a question that appears twice in one file; later ones count as matched.
    insertSamples: db.prepare<{ ds: number; author: number | null; now: string }>(`
      INSERT INTO sample (dataset_id, question_key, question, ground_truth, reference_contexts, tags, source, notes, author_id, created_at, updated_at)
      SELECT @ds, key, question, coalesce(ground_truth, ''), coalesce(refs, '[]'), coalesce(tags, '[]'), coalesce(source, ''), coalesce(notes, ''),
        @author, @now, @now
      FROM ${table} ORDER BY line
      ON CONFLICT (dataset_id, question_key) DO NOTHING`),
    insertTags: db.prepare<{ ds: number; after: number }>(`
      INSERT OR IGNORE INTO sample_tag (sample_id, tag)
      SELECT s.id, j.value FROM ${table} st JOIN sample s ON s.dataset_id = @ds AND s.question_key = st.key, json_each(st.tags) j
      WHERE st.tags IS NOT NULL AND s.id > @after`),
    insertResponses: db.prepare<{ ds: number; author: number | null }>(`
      INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash, created_by)
      SELECT s.id, @ds, coalesce(st.system, ''), st.answer, st.retrieved, st.meta, st.hash, @author
      FROM ${table} st JOIN sample s ON s.dataset_id = @ds AND s.question_key = st.key
      WHERE st.hash IS NOT NULL ORDER BY st.line
      ON CONFLICT (sample_id, content_hash) DO NOTHING`),
    drop: () => db.exec(`DROP TABLE IF EXISTS ${table}`),
  };
}

export function importService(db: DB, audit: AuditQueries,
  deps: { datasets: DatasetService; criteria: CriterionService; labels: LabelService; searchIndex: SearchIndexer }) {
  const maxSampleId = db.prepare('SELECT coalesce(max(id), 0) FROM sample').pluck();
  // The import's own rows wait for the background indexer instead of filling the trigram index inside its transaction.
  const deferIndexing = db.prepare<[number]>('UPDATE search_index_state SET deferring = ?');

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
      const staging = stagingTable(db, importId);
      try {
        for await (const items of readImportBatches(file, { format: options.format, filename: options.filename })) for (const item of items) {
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
          if (batch.length >= BATCH) { staging.stage(batch); batch = []; }
        }
        if (totalErrors) return { ok: false, errors, totalErrors, rows };
        staging.stage(batch);
        if (rows === 0) return { ok: false, errors: [], totalErrors: 0, rows: 0 };
        if (labelValues.size && options.annotatorId === undefined) return { ok: false, errors: [], totalErrors: 0, rows, needsAnnotator: true };

        const summary = db.transaction((): ImportSummary => {
          const differs = staging.differing.all({ ds: datasetId }).map((r) => r.line);
          const before = maxSampleId.get() as number;
          deferIndexing.run(1);
          const created = staging.insertSamples.run({ ds: datasetId, author: actorId, now: new Date().toISOString() }).changes;
          deferIndexing.run(0);
          staging.insertTags.run({ ds: datasetId, after: before });
          const responsesCreated = staging.insertResponses.run({ ds: datasetId, author: actorId }).changes;
          let labels = 0;
          const criteriaCreated: string[] = [];
          if (labelValues.size) {
            const known = new Set(deps.criteria.forDataset(datasetId).map((c) => c.name.toLowerCase()));
            const criteria = resolveCriteria(deps.criteria, actorId, datasetId, labelValues, options.criterionTypes ?? {});
            for (const name of criteria.keys()) if (!known.has(name.toLowerCase())) criteriaCreated.push(name);
            labels = writeLabels(db, staging.table, datasetId, options.annotatorId!, criteria);
            deps.labels.recount(datasetId);
          }
          const scoreRuns = options.runName && scoreColumns.size
            ? writeScoreRuns(db, staging.table, datasetId, options.runName, [...scoreColumns], actorId) : [];
          deps.datasets.queries.touch(datasetId);
          const result: ImportSummary = {
            ok: true, rows, created, matched: rows - created, differs, responsesCreated, responsesMatched: withResponse - responsesCreated,
            labels, criteriaCreated, labelsWithoutAnswer, scoreColumns: [...scoreColumns], scoreRuns, ignoredColumns: [...ignored],
          };
          audit.record({ actorId, entityType: 'import', entityId: null, datasetId, action: 'import', after: {
            file: options.filename ?? null, rows, samples_created: created, responses_created: responsesCreated, labels,
            annotator: options.annotatorId ?? null, differs: differs.length } });
          return result;
        })();
        if (summary.created > 0) deps.searchIndex.schedule();
        return summary;
      } catch (err) {
        if (err instanceof LabelImportAbort) return { ok: false, errors: [], totalErrors: err.errors.length, rows, labelErrors: err.errors };
        if (err instanceof ScoreImportAbort) return { ok: false, errors: [], totalErrors: 1, rows, scoreError: err.message };
        throw err;
      } finally {
        staging.drop();
      }
    },
  };
}

export type ImportService = ReturnType<typeof importService>;
