// goldset's own full-fidelity format: one JSON record per line, everything a dataset holds (samples
// with their review state, responses, criteria, every expert's annotation, adjudications), keyed by
// natural identities (question, response hash, criterion name, email) so it loads into any instance.
import fs from 'node:fs';
import readline from 'node:readline';
import { StringDecoder } from 'node:string_decoder';
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import { questionKey } from '../samples/queries.ts';
import { responseHash } from '../responses/queries.ts';
import { checkList, checkName, checkNames, checkText, describeLimit, jsonTooDeep, LIMITS } from '../limits.ts';
import { datasetInputProblem } from '../datasets/service.ts';

export const FORMAT_VERSION = 1;

type Rec = Record<string, unknown>;

/** Writes the dataset as goldset JSONL; returns the number of records. */
export function writeGoldsetJsonl(db: DB, datasetId: number, write: (chunk: string) => void): number {
  let n = 0;
  const emit = (rec: Rec) => { write(JSON.stringify(rec) + '\n'); n++; };
  const d = db.prepare<[number], Rec>('SELECT name, description, language, domain, overlap, holdout_seed FROM dataset WHERE id = ?').get(datasetId)!;
  emit({ type: 'goldset', version: FORMAT_VERSION, dataset: d });
  for (const c of db.prepare<[number], Rec>(`SELECT name, kind, target, options, scale_min, scale_max, guidelines, archived
      FROM criterion WHERE dataset_id = ? ORDER BY position, id`).all(datasetId)) {
    emit({ type: 'criterion', ...c, options: JSON.parse(c.options as string), archived: c.archived === 1 });
  }
  // Pages of 1,000 by id keep memory bounded without holding a cursor open across writes.
  function* pages<T extends Rec>(sql: string): Generator<T[]> {
    const st = db.prepare<[number, number], T>(sql);
    let after = 0;
    for (;;) {
      const rows = st.all(datasetId, after);
      if (!rows.length) return;
      yield rows;
      after = rows[rows.length - 1]!.id as number;
    }
  }
  for (const s of rowsOf(pages(`SELECT s.id, s.question, s.ground_truth, s.reference_contexts, s.tags, s.source, s.notes, s.status,
      a.email AS author, p.email AS approved_by, s.approved_at, s.created_at
      FROM sample s LEFT JOIN user a ON a.id = s.author_id LEFT JOIN user p ON p.id = s.approved_by
      WHERE s.dataset_id = ? AND s.id > ? ORDER BY s.id LIMIT 1000`))) {
    const { id: _id, ...rest } = s;
    emit({ type: 'sample', ...rest, reference_contexts: JSON.parse(s.reference_contexts as string), tags: JSON.parse(s.tags as string) });
  }
  for (const r of rowsOf(pages(`SELECT r.id, s.question, r.system, r.answer, r.retrieved_contexts, r.metadata, r.created_at
      FROM response r JOIN sample s ON s.id = r.sample_id WHERE r.dataset_id = ? AND r.id > ? ORDER BY r.id LIMIT 1000`))) {
    const { id: _id, ...rest } = r;
    emit({ type: 'response', ...rest, retrieved_contexts: JSON.parse(r.retrieved_contexts as string), metadata: JSON.parse(r.metadata as string) });
  }
  // The labels of a page of annotations, in one query.
  const labelsOf = db.prepare<[string], { annotation_id: number; criterion: string; context_index: number; value: string }>(
    `SELECT l.annotation_id, c.name AS criterion, l.context_index, l.value FROM label l JOIN criterion c ON c.id = l.criterion_id
     WHERE l.annotation_id IN (SELECT value FROM json_each(?)) ORDER BY l.annotation_id, c.name, l.context_index`);
  for (const annotations of pages(`SELECT a.id, s.question, r.system, r.answer, r.retrieved_contexts, u.email AS annotator, a.state, a.rationale,
      a.corrected_answer, a.submitted_at FROM annotation a JOIN response r ON r.id = a.response_id JOIN sample s ON s.id = r.sample_id
      JOIN user u ON u.id = a.annotator_id WHERE a.dataset_id = ? AND a.id > ? ORDER BY a.id LIMIT 1000`)) {
    const labels = new Map<number, { criterion: string; context_index: number; value: string }[]>();
    for (const { annotation_id, ...label } of labelsOf.all(JSON.stringify(annotations.map((a) => a.id)))) {
      let list = labels.get(annotation_id);
      if (!list) labels.set(annotation_id, (list = []));
      list.push(label);
    }
    for (const a of annotations) {
      const { id, question, system, answer, retrieved_contexts, ...rest } = a;
      emit({ type: 'annotation', response: { question, system, answer, retrieved_contexts: JSON.parse(retrieved_contexts as string) }, ...rest,
        labels: labels.get(id as number) ?? [] });
    }
  }
  for (const j of rowsOf(pages(`SELECT j.id, s.question, r.system, r.answer, r.retrieved_contexts, c.name AS criterion, j.context_index, j.value,
      j.reason, u.email AS adjudicator, j.updated_at FROM adjudication j JOIN response r ON r.id = j.response_id JOIN sample s ON s.id = r.sample_id
      JOIN criterion c ON c.id = j.criterion_id JOIN user u ON u.id = j.adjudicator_id WHERE r.dataset_id = ? AND j.id > ? ORDER BY j.id LIMIT 1000`))) {
    const { id: _id, question, system, answer, retrieved_contexts, ...rest } = j;
    emit({ type: 'adjudication', response: { question, system, answer, retrieved_contexts: JSON.parse(retrieved_contexts as string) }, ...rest });
  }
  return n;
}

/** The non-blank lines of a file with their numbers, read synchronously in 1 MB chunks. */
function* linesOf(file: string): Generator<{ line: number; text: string }> {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(1024 * 1024);
    const decoder = new StringDecoder('utf8');
    let rest = '', line = 0;
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, null);
      const chunk = n > 0 ? rest + decoder.write(buffer.subarray(0, n)) : rest + decoder.end();
      const parts = chunk.split('\n');
      rest = n > 0 ? parts.pop()! : '';
      for (const text of parts) {
        line++;
        if (text.trim()) yield { line, text };
      }
      if (n === 0) return;
    }
  } finally {
    fs.closeSync(fd);
  }
}

function parseRecord(text: string, line: number): Rec {
  if (jsonTooDeep(text, LIMITS.jsonDepth)) throw new GoldsetFormatError(line, `nests more than ${LIMITS.jsonDepth} levels of arrays and objects`);
  try {
    return JSON.parse(text) as Rec;
  } catch (e) {
    throw new GoldsetFormatError(line, `not valid JSON (${(e as Error).message})`);
  }
}

/** A text field of a record within its limit (server/limits.ts), '' when absent; `check` checkName for a name. */
function limitedText(rec: Rec, field: string, limit: number, at: number, check: typeof checkName = checkText): string {
  const value = rec[field] ?? '';
  if (typeof value !== 'string') throw new GoldsetFormatError(at, `${field} must be text`);
  const problem = check(value, limit);
  if (problem) throw new GoldsetFormatError(at, describeLimit(field, problem));
  return value;
}

/** A list of texts of a record within its limits, [] when absent. */
function limitedTexts(rec: Rec, field: string, maxItems: number, maxEach: number, at: number, check: typeof checkNames = checkList): string[] {
  const value = rec[field] ?? [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new GoldsetFormatError(at, `${field} must be a list of texts`);
  const problem = check(value as string[], maxItems, maxEach);
  if (problem) throw new GoldsetFormatError(at, describeLimit(field, problem));
  return value as string[];
}

function* rowsOf<T>(pages: Iterable<T[]>): Generator<T> {
  for (const rows of pages) yield* rows;
}

export class GoldsetFormatError extends Error {
  constructor(readonly line: number, message: string) { super(`line ${line}: ${message}`); }
}

/** True when the file starts with goldset's header record. */
export async function isGoldsetJsonl(file: string): Promise<boolean> {
  const rl = readline.createInterface({ input: fs.createReadStream(file, { end: 64 * 1024 }), crlfDelay: Infinity });
  for await (const line of rl) {
    rl.close();
    try { return (JSON.parse(line) as Rec).type === 'goldset'; } catch { return false; }
  }
  return false;
}

/**
 * Restores a goldset JSONL file as a new dataset, in one transaction. This is a restore, not an
 * edit: review states, approvers and annotations come back as they were, and the audit log says so.
 * Users named in the file that do not exist are created as experts without a password (to be invited).
 */
export async function restoreGoldsetJsonl(db: DB, audit: AuditQueries, file: string, opts: { actorId: number | null; name?: string | undefined }): Promise<{ datasetId: number; counts: Record<string, number> }> {
  const reader = linesOf(file);
  const first = reader.next();
  reader.return(undefined); // closes the file
  const header = first.done ? undefined : parseRecord(first.value.text, first.value.line);
  if (!header || header.type !== 'goldset') throw new GoldsetFormatError(1, 'not a goldset JSONL file (the first record must have "type": "goldset")');
  if (header.version !== FORMAT_VERSION) throw new GoldsetFormatError(1, `unsupported format version ${String(header.version)}`);
  const d = (header.dataset ?? {}) as Rec;
  const name = opts.name ?? (typeof d.name === 'string' ? d.name : '');
  // The dataset's own fields, held to the rules of the New dataset form (datasets/service.ts).
  const fields = { name, description: typeof d.description === 'string' ? d.description : '', domain: typeof d.domain === 'string' ? d.domain : '' };
  if (name.trim() === '') throw new GoldsetFormatError(1, 'the dataset has no name');
  const problem = datasetInputProblem(fields);
  if (problem) throw new GoldsetFormatError(1, describeLimit(`dataset ${problem.field}`, problem.problem));
  if (d.language !== 'zh' && d.language !== 'en') throw new GoldsetFormatError(1, `the dataset's language must be "zh" or "en", not ${JSON.stringify(d.language)}`);
  const findUser = db.prepare<[string], { id: number }>('SELECT id FROM user WHERE email = ?');
  const inviteUser = db.prepare("INSERT INTO user (email, role) VALUES (?, 'expert')");

  return db.transaction(() => {
    if (db.prepare('SELECT 1 FROM dataset WHERE name = ?').get(name)) throw new GoldsetFormatError(1, `a dataset named "${name}" exists already; restore into a new name`);
    const userId = (email: unknown): number | null => {
      if (typeof email !== 'string' || !email) return null;
      const found = findUser.get(email);
      if (found) return found.id;
      return Number(inviteUser.run(email).lastInsertRowid);
    };
    const datasetId = Number(db.prepare(`INSERT INTO dataset (name, description, language, domain, overlap, holdout_seed, created_by)
      VALUES (?, ?, ?, ?, ?, ?, ?)`).run(name, fields.description, d.language, fields.domain, d.overlap ?? 1, d.holdout_seed, opts.actorId).lastInsertRowid);
    const criteria = new Map<string, number>();
    const samples = new Map<string, number>();
    const responses = new Map<string, number>();
    const counts: Record<string, number> = { criterion: 0, sample: 0, response: 0, annotation: 0, label: 0, adjudication: 0 };
    const responseId = (r: Rec, at: number) => {
      const key = `${questionKey(String(r.question))}\u0000${responseHash(String(r.system ?? ''), String(r.answer ?? ''), (r.retrieved_contexts ?? []) as string[])}`;
      const id = responses.get(key);
      if (id === undefined) throw new GoldsetFormatError(at, 'refers to a response that is not in the file');
      return id;
    };
    const st = {
      criterion: db.prepare(`INSERT INTO criterion (dataset_id, name, kind, target, options, scale_min, scale_max, guidelines, archived, position)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      sample: db.prepare(`INSERT INTO sample (dataset_id, question_key, question, ground_truth, reference_contexts, tags, source, notes, status,
        author_id, approved_by, approved_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      tag: db.prepare('INSERT OR IGNORE INTO sample_tag (sample_id, tag) VALUES (?, ?)'),
      response: db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      annotation: db.prepare(`INSERT INTO annotation (response_id, dataset_id, annotator_id, state, rationale, corrected_answer, submitted_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)`),
      label: db.prepare('INSERT INTO label (annotation_id, criterion_id, context_index, value) VALUES (?, ?, ?, ?)'),
      adjudication: db.prepare(`INSERT INTO adjudication (response_id, criterion_id, context_index, value, reason, adjudicator_id, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)`),
    };
    // Read as it is written, inside the transaction: the file is never held whole.
    const lines = linesOf(file);
    lines.next(); // the header
    for (const { line: at, text } of lines) {
      const rec = parseRecord(text, at);
      switch (rec.type) {
        // Every text goes through the same limits as the other ways data gets in (server/limits.ts).
        case 'criterion': {
          if (criteria.size >= LIMITS.criteria) throw new GoldsetFormatError(at, `a dataset can have at most ${LIMITS.criteria} criteria`);
          const options = Array.isArray(rec.options) ? (rec.options as Rec[]) : [];
          if (options.length > LIMITS.options) throw new GoldsetFormatError(at, `options has ${options.length} items; the limit is ${LIMITS.options}`);
          for (const o of options) { limitedText(o, 'value', LIMITS.optionText, at); limitedText(o, 'label', LIMITS.optionText, at); }
          criteria.set(String(rec.name).toLowerCase(), Number(st.criterion.run(datasetId, limitedText(rec, 'name', LIMITS.criterionName, at, checkName), rec.kind, rec.target,
            JSON.stringify(options), rec.scale_min ?? null, rec.scale_max ?? null, limitedText(rec, 'guidelines', LIMITS.guidelines, at), rec.archived ? 1 : 0,
            criteria.size + 1).lastInsertRowid));
          break;
        }
        case 'sample': {
          const question = limitedText(rec, 'question', LIMITS.question, at);
          const key = questionKey(question);
          const tags = limitedTexts(rec, 'tags', LIMITS.tags, LIMITS.tag, at, checkNames);
          const id = Number(st.sample.run(datasetId, key, question, limitedText(rec, 'ground_truth', LIMITS.groundTruth, at),
            JSON.stringify(limitedTexts(rec, 'reference_contexts', LIMITS.contexts, LIMITS.context, at)), JSON.stringify(tags), limitedText(rec, 'source', LIMITS.source, at),
            limitedText(rec, 'notes', LIMITS.notes, at), rec.status ?? 'draft', userId(rec.author), userId(rec.approved_by),
            rec.approved_at ?? null, rec.created_at ?? new Date().toISOString()).lastInsertRowid);
          for (const tag of tags) st.tag.run(id, tag);
          samples.set(key, id);
          break;
        }
        case 'response': {
          const key = questionKey(String(rec.question));
          const sampleId = samples.get(key);
          if (sampleId === undefined) throw new GoldsetFormatError(at, 'response of a question that is not in the file');
          const system = limitedText(rec, 'system', LIMITS.system, at, checkName), answer = limitedText(rec, 'answer', LIMITS.answer, at);
          const contexts = limitedTexts(rec, 'retrieved_contexts', LIMITS.contexts, LIMITS.context, at);
          const hash = responseHash(system, answer, contexts);
          responses.set(`${key}\u0000${hash}`, Number(st.response.run(sampleId, datasetId, system, answer, JSON.stringify(contexts),
            JSON.stringify(rec.metadata ?? {}), hash, rec.created_at ?? new Date().toISOString()).lastInsertRowid));
          break;
        }
        case 'annotation': {
          const rid = responseId(rec.response as Rec, at);
          const aid = Number(st.annotation.run(rid, datasetId, userId(rec.annotator), rec.state, limitedText(rec, 'rationale', LIMITS.rationale, at),
            limitedText(rec, 'corrected_answer', LIMITS.correctedAnswer, at), rec.submitted_at ?? null).lastInsertRowid);
          for (const l of (rec.labels ?? []) as Rec[]) {
            const cid = criteria.get(String(l.criterion).toLowerCase());
            if (cid === undefined) throw new GoldsetFormatError(at, `label of unknown criterion ${String(l.criterion)}`);
            st.label.run(aid, cid, l.context_index, limitedText(l, 'value', LIMITS.labelValue, at));
            counts.label!++;
          }
          break;
        }
        case 'adjudication': {
          const cid = criteria.get(String(rec.criterion).toLowerCase());
          if (cid === undefined) throw new GoldsetFormatError(at, `adjudication of unknown criterion ${String(rec.criterion)}`);
          st.adjudication.run(responseId(rec.response as Rec, at), cid, rec.context_index, limitedText(rec, 'value', LIMITS.labelValue, at),
            limitedText(rec, 'reason', LIMITS.reason, at), userId(rec.adjudicator), rec.updated_at ?? new Date().toISOString());
          break;
        }
        default:
          throw new GoldsetFormatError(at, `unknown record type ${JSON.stringify(rec.type)}`);
      }
      counts[String(rec.type)]!++;
    }
    db.prepare(`UPDATE response SET n_submitted = (SELECT count(*) FROM annotation a WHERE a.response_id = response.id AND a.state = 'submitted')
      WHERE dataset_id = ?`).run(datasetId);
    db.prepare(`UPDATE dataset SET slots_filled = (SELECT coalesce(sum(min(r.n_submitted, dataset.overlap)), 0) FROM response r
      WHERE r.dataset_id = dataset.id) WHERE id = ?`).run(datasetId);
    audit.record({ actorId: opts.actorId, entityType: 'dataset', entityId: datasetId, datasetId, action: 'restore', after: { name, ...counts } });
    return { datasetId, counts };
  })();
}
