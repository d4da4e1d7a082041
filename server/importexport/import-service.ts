// Imports a file all-or-nothing, in one transaction: a worker thread reads and checks the file
// (reader-thread.ts) while this thread writes the samples and answers of the rows it has been sent;
// expert labels and judge scores follow after the last row, from a TEMP table. A bad row rolls
// everything back. Memory stays bounded by the batches in flight; the trigram search index of new
// samples is filled afterwards in the background (server/samples/search-index.ts).
import crypto from 'node:crypto';
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { DatasetService } from '../datasets/service.ts';
import type { CriterionService } from '../criteria/service.ts';
import type { LabelService } from '../labels/service.ts';
import type { CriterionKind } from '../criteria/values.ts';
import type { ImportFormat } from '../io/read.ts';
import type { RowError } from '../io/errors.ts';
import type { SearchIndexer } from '../samples/search-index.ts';
import { CriterionImportAbort, LabelImportAbort, resolveCriteria, writeLabels, type CriterionImportError, type DeclaredType, type LabelImportError } from './import-labels.ts';
import { ScoreImportAbort, writeScoreRuns, type ImportedRun } from './import-scores.ts';
import { readerThread, type QuestionRow, type ReadSummary } from './reader-thread.ts';
import { writableGuard } from '../datasets/archived.ts';
import { checkName, LIMITS } from '../limits.ts';

export interface ImportSummary {
  ok: true;
  rows: number;
  created: number;
  matched: number;
  /** Rows whose question exists already with other content: the existing sample is kept. */
  differs: number[];
  responsesCreated: number;
  responsesMatched: number;
  /**
   * Rows without a system (Ragas's results keep none) matched to the existing response with the same
   * question, answer and retrieved contexts; `sharedAcrossSystems` of them matched the identical
   * answers of several systems, which all got the row's scores and labels.
   */
  matchedWithoutSystem: number;
  sharedAcrossSystems: number;
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
  /** A criterion the file's label columns need could not be created. */
  criterionError?: CriterionImportError;
  /** The file has expert labels but nobody was named as their author. */
  needsAnnotator?: boolean;
  /** Why the file's judge scores could not be imported (a message key of server/i18n with its params). */
  scoreError?: { key: 'import.score_run_goldset'; params: { run: string; metric: string } } | { key: 'import.run_name_too_long'; params: { length: number; limit: number } }
    | { key: 'err.run_name_unsafe'; params: Record<string, never> };
  /** Rows without a system, with the same content but different scores or labels: which is whose cannot be told (file lines, per content). */
  ambiguousRows?: number[][];
  /** Score columns asked for that the file does not have. */
  missingScoreColumns?: string[];
}
export type ImportResult = ImportSummary | ImportFailure;

export interface ImportOptions {
  format?: ImportFormat | undefined;
  filename?: string | undefined;
  /** The sheet of an XLSX workbook (default: the first). */
  sheet?: string | undefined;
  /** Author of the file's `human.<criterion>` labels. */
  annotatorId?: number | undefined;
  criterionTypes?: Record<string, DeclaredType> | undefined;
  /** Name of the run that the file's metric-score columns become (one run row per metric). */
  runName?: string | undefined;
  /** Further columns to read as metric scores (besides the metric columns Ragas writes). */
  scoreColumns?: string[] | undefined;
}

/** The statements one import writes with, inside its transaction. */
function importWriter(db: DB, importId: string) {
  // Expert labels and judge scores are written after the last row (their criteria and runs depend on
  // every value in the file), from a TEMP table: it lives outside the database file and its log.
  // One staging row per (file row, response it is about); `content` groups rows without a system that
  // matched by content (the ids of the responses they matched), so conflicting values can be found.
  const staging = `temp."import_${importId.replace(/-/g, '')}"`;
  db.exec(`CREATE TEMP TABLE ${staging} (seq INTEGER PRIMARY KEY, line INTEGER NOT NULL, response_id INTEGER, content TEXT, labels TEXT, scores TEXT)`);
  return {
    staging,
    /**
     * A plain question row. One row per statement: SQLite keeps a statement journal for a statement
     * that writes several rows and may fail part-way (a CHECK, NOT NULL or foreign key), a copy of
     * every page it touches in a temporary file, and at 50 rows per statement that cost more (about
     * a third of the import's SQL time, most of it in system calls) than the statements it saved.
     */
    insertQuestion: db.prepare<[number, string, string, string, number | null, string, string]>(`
      INSERT INTO sample (dataset_id, question_key, question, ground_truth, author_id, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dataset_id, question_key) DO NOTHING`),
    insertSample: db.prepare<[number, string, string, string, string, string, string, string, number | null, string, string]>(`
      INSERT INTO sample (dataset_id, question_key, question, ground_truth, reference_contexts, tags, source, notes, author_id, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dataset_id, question_key) DO NOTHING`),
    existing: db.prepare<[number, string], { id: number; ground_truth: string; reference_contexts: string }>(
      'SELECT id, ground_truth, reference_contexts FROM sample WHERE dataset_id = ? AND question_key = ?'),
    insertTag: db.prepare<[number, string]>('INSERT OR IGNORE INTO sample_tag (sample_id, tag) VALUES (?, ?)'),
    insertResponse: db.prepare<[number, number, string, string, string, string, string, number | null]>(`
      INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash, created_by)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sample_id, content_hash) DO NOTHING`),
    responseId: db.prepare<[number, string]>('SELECT id FROM response WHERE sample_id = ? AND content_hash = ?').pluck(),
    /** A sample's responses with this answer and these contexts, whatever their system. */
    sameContent: db.prepare<[number, string, string]>('SELECT id FROM response WHERE sample_id = ? AND answer = ? AND retrieved_contexts = ? ORDER BY id').pluck(),
    stage: db.prepare<[number, number | null, string | null, string | null, string | null]>(
      `INSERT INTO ${staging} (line, response_id, content, labels, scores) VALUES (?, ?, ?, ?, ?)`),
    /** Content groups whose rows carry different values, with their lines. */
    conflicts: db.prepare<[], { lines: string }>(`SELECT group_concat(line, ',') AS lines FROM (
      SELECT content, line, min(coalesce(labels, '') || char(0) || coalesce(scores, '')) AS vals FROM ${staging} WHERE content IS NOT NULL GROUP BY content, line)
      GROUP BY content HAVING count(DISTINCT vals) > 1 ORDER BY min(line) LIMIT 20`),
    drop: () => db.exec(`DROP TABLE IF EXISTS ${staging}`),
  };
}

/** Thrown inside the import's transaction to roll it back with this result. */
class Rejected extends Error {
  constructor(readonly result: ImportFailure) { super('import rejected'); }
}

export function importService(db: DB, audit: AuditQueries,
  deps: { datasets: DatasetService; criteria: CriterionService; labels: LabelService; searchIndex: SearchIndexer }) {
  const maxSampleId = db.prepare('SELECT coalesce(max(id), 0) FROM sample').pluck();
  // The import's rows wait for the background indexer instead of filling the trigram index inside its
  // transaction. Rather than have the index trigger look at the index mark for every row (what
  // search_index_state.deferring is for), the import drops the trigger for its transaction and puts
  // it back as it was (its text from the schema), then indexes the rows the trigger would have: ids
  // at or below the mark, reused after a delete (the invariant of migration 0007).
  const indexTrigger = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = 'sample_fts_insert'").pluck();
  const indexReusedIds = db.prepare<[number]>(`INSERT INTO sample_fts (rowid, question, ground_truth, notes)
    SELECT id, question, ground_truth, notes FROM sample WHERE id > ? AND id <= (SELECT indexed_upto FROM search_index_state) ORDER BY id`);
  const reader = readerThread();
  const writable = writableGuard(db);

  /** The whole import, inside its transaction: rows are written as the reading thread sends them. */
  function write(w: ImportWriter, actorId: number | null, datasetId: number, file: string, options: ImportOptions): ImportSummary {
    const before = maxSampleId.get() as number;
    const now = new Date().toISOString();
    let created = 0, responsesCreated = 0, matchedWithoutSystem = 0, sharedAcrossSystems = 0, read: ReadSummary | null = null;
    const differs: number[] = [];
    // Rows are written in file order, so the first row wins for a question that appears twice; a
    // question that was in the dataset before with another ground truth or other contexts "differs".
    /** The id of the sample a row's question matched instead of being inserted, noting the row when it differs. */
    const matched = (line: number, key: string, groundTruth: string | null, refs: string | null): number => {
      const s = w.existing.get(datasetId, key)!;
      if (s.id <= before && ((groundTruth !== null && s.ground_truth !== groundTruth) || (refs !== null && s.reference_contexts !== refs))) differs.push(line);
      return s.id;
    };
    const writeQuestion = ([line, key, question, groundTruth]: QuestionRow) => {
      if (w.insertQuestion.run(datasetId, key, question, groundTruth ?? '', actorId, now, now).changes) created++;
      // A row without a ground truth cannot differ: which sample it matched is not worth looking up.
      else if (groundTruth !== null) matched(line, key, groundTruth, null);
    };
    const trigger = indexTrigger.get() as string;
    db.exec('DROP TRIGGER sample_fts_insert');
    for (const message of reader.read(file, options)) {
      if (message.type === 'done') { read = message.summary; continue; }
      for (const row of message.rows) {
        if (row.length === 4) {
          writeQuestion(row);
          continue;
        }
        const [line, key, question, groundTruth, refs, tags, source, notes, response, labels, scores] = row;
        const inserted = w.insertSample.run(datasetId, key, question, groundTruth ?? '', refs ?? '[]', tags ? JSON.stringify(tags) : '[]',
          source ?? '', notes ?? '', actorId, now, now);
        if (inserted.changes) created++;
        const sampleId = inserted.changes ? Number(inserted.lastInsertRowid) : matched(line, key, groundTruth, refs);
        if (tags && sampleId > before) for (const tag of tags) w.insertTag.run(sampleId, tag);
        const staged = labels !== null || scores !== null;
        let responseIds: number[] = [];
        let content: string | null = null;
        if (response) {
          const [system, answer, retrieved, meta, hash] = response;
          // Without a system (Ragas's results keep none), a row is about the existing response(s) with
          // its question, answer and contexts: nothing new is created for it.
          const same = system === '' ? (w.sameContent.all(sampleId, answer, retrieved) as number[]) : [];
          if (same.length > 0) {
            matchedWithoutSystem++;
            if (same.length > 1) sharedAcrossSystems++;
            responseIds = same;
            content = same.join(',');
          } else {
            const inserted = w.insertResponse.run(sampleId, datasetId, system, answer, retrieved, meta, hash, actorId);
            responsesCreated += inserted.changes;
            if (staged) responseIds = [inserted.changes ? Number(inserted.lastInsertRowid) : w.responseId.get(sampleId, hash) as number];
            if (system === '') content = responseIds.join(',');
          }
        }
        if (staged) {
          if (responseIds.length === 0) w.stage.run(line, null, null, labels, scores);
          for (const id of responseIds) w.stage.run(line, id, content, labels, scores);
        }
      }
    }
    if (!read) throw new Error('import reader: ended without a summary');
    const { rows } = read;
    // A rejected import rolls back, the dropped trigger with it.
    if (read.totalErrors) throw new Rejected({ ok: false, errors: read.errors, totalErrors: read.totalErrors, rows });
    if (rows === 0) throw new Rejected({ ok: false, errors: [], totalErrors: 0, rows: 0 });
    const labelValues = new Map(read.labelValues.map(([name, values]) => [name, new Set(values)]));
    if (labelValues.size && options.annotatorId === undefined) throw new Rejected({ ok: false, errors: [], totalErrors: 0, rows, needsAnnotator: true });
    db.exec(trigger);
    indexReusedIds.run(before);
    // Rows without a system that share a content but not their values: which is whose cannot be told.
    const conflicts = w.conflicts.all().map((c) => c.lines.split(',').map(Number));
    if (conflicts.length) throw new Rejected({ ok: false, errors: [], totalErrors: conflicts.length, rows, ambiguousRows: conflicts });
    const missing = (options.scoreColumns ?? []).filter((c) => !read!.scoreColumns.includes(c.trim().toLowerCase()));
    if (missing.length) throw new Rejected({ ok: false, errors: [], totalErrors: 1, rows, missingScoreColumns: missing });

    let labels = 0;
    const criteriaCreated: string[] = [];
    if (labelValues.size) {
      const known = new Set(deps.criteria.forDataset(datasetId).map((c) => c.name.toLowerCase()));
      try {
        const criteria = resolveCriteria(deps.criteria, actorId, datasetId, labelValues, options.criterionTypes ?? {}, new Set(read.listLabels));
        for (const name of criteria.keys()) if (!known.has(name.toLowerCase())) criteriaCreated.push(name);
        labels = writeLabels(db, w.staging, datasetId, options.annotatorId!, criteria);
      } catch (err) {
        if (err instanceof LabelImportAbort) throw new Rejected({ ok: false, errors: [], totalErrors: err.errors.length, rows, labelErrors: err.errors });
        if (err instanceof CriterionImportAbort) throw new Rejected({ ok: false, errors: [], totalErrors: 1, rows, criterionError: err.error });
        throw err;
      }
      deps.labels.recount(datasetId);
    }
    let scoreRuns: ImportedRun[] = [];
    if (options.runName && read.scoreColumns.length) {
      try {
        scoreRuns = writeScoreRuns(db, w.staging, datasetId, options.runName, read.scoreColumns, actorId);
      } catch (err) {
        if (err instanceof ScoreImportAbort) throw new Rejected({ ok: false, errors: [], totalErrors: 1, rows, scoreError: { key: 'import.score_run_goldset', params: { run: err.run, metric: err.metric } } });
        throw err;
      }
    }
    deps.datasets.queries.touch(datasetId);
    audit.record({ actorId, entityType: 'import', entityId: null, datasetId, action: 'import', after: {
      file: options.filename ?? null, rows, samples_created: created, responses_created: responsesCreated, labels,
      annotator: options.annotatorId ?? null, differs: differs.length } });
    return {
      ok: true, rows, created, matched: rows - created, differs, responsesCreated, responsesMatched: read.withResponse - responsesCreated,
      matchedWithoutSystem, sharedAcrossSystems,
      labels, criteriaCreated, labelsWithoutAnswer: read.labelsWithoutAnswer, scoreColumns: read.scoreColumns, scoreRuns, ignoredColumns: read.ignored,
    };
  }

  return {
    /** Starts the reading thread and warms it up (imports start it themselves, without; the server does at start, so the first import neither waits nor is read by cold code). */
    warm: (): Promise<void> => reader.ready({ warmUp: true }),
    close: (): Promise<void> => reader.close(),

    /**
     * Imports a file all-or-nothing. The database's write transaction is held, and this thread
     * busy, for the whole import (about a second per 100,000 rows): other requests wait for it
     * rather than run inside it.
     */
    async importFile(actorId: number | null, datasetId: number, file: string, options: ImportOptions = {}): Promise<ImportResult> {
      if (!deps.datasets.get(datasetId)) throw new Error(`no dataset ${datasetId}`);
      writable(datasetId);
      // The run name as the Runs page holds it (judge/runner.ts): at most LIMITS.runName characters, none of them a control character.
      const runNameProblem = options.runName === undefined ? null : checkName(options.runName, LIMITS.runName);
      if (runNameProblem) {
        return { ok: false, errors: [], totalErrors: 1, rows: 0, scoreError: runNameProblem.code === 'too_long'
          ? { key: 'import.run_name_too_long', params: { length: runNameProblem.length, limit: LIMITS.runName } } : { key: 'err.run_name_unsafe', params: {} } };
      }
      await reader.ready();
      const w = importWriter(db, crypto.randomUUID());
      try {
        const summary = db.transaction(() => write(w, actorId, datasetId, file, options))();
        if (summary.created > 0) deps.searchIndex.schedule();
        return summary;
      } catch (err) {
        if (err instanceof Rejected) return err.result;
        throw err;
      } finally {
        w.drop();
      }
    },
  };
}

type ImportWriter = ReturnType<typeof importWriter>;

export type ImportService = ReturnType<typeof importService>;
