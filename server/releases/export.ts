// A release in every export format, made from its records alone: the same release gives the same
// bytes every time (the XLSX's timestamps are the release's own), which the API's ETag promises.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { MAX_CELL_CHARS, MAX_RECORDS } from '../xlsx/text.ts';
import { numericValue } from '../criteria/values.ts';
import { FORMAT_VERSION } from '../importexport/goldset-jsonl.ts';
import {
  SAMPLE_COLUMNS, pipeChunks, recordChunks, responseColumns, writeRecordsXlsx, type ExportFormat, type RecordSource,
} from '../importexport/export.ts';
import type { CriterionContent, ResponseContent, SampleContent } from './content.ts';
import type { ReleaseRow } from './queries.ts';
import type { ReleaseService } from './service.ts';
import type { T } from '../i18n/index.ts';

const BATCH = 1000;

/** The entity tag of one export of a release: its hash, and which of its representations (README, "Releases"). */
export function releaseEtag(release: ReleaseRow, format: ExportFormat, responses: boolean): string {
  return `"${release.hash}-${format}${responses && format !== 'goldset-jsonl' ? '-responses' : ''}"`;
}

/** True when an If-None-Match header names this entity tag (weak or strong, or *). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').map((t) => t.trim().replace(/^W\//, '')).some((t) => t === '*' || t === etag);
}

function criteriaOf(svc: ReleaseService, release: ReleaseRow): CriterionContent[] {
  const out: CriterionContent[] = [];
  for (const r of svc.records(release)) {
    if (r.kind === 'criterion') out.push(JSON.parse(r.body) as CriterionContent);
    else if (r.kind === 'sample') break; // criteria come first
  }
  return out;
}

function typedGold(c: CriterionContent, value: string | null): string | number | null {
  return value === null ? null : c.kind === 'categorical' ? value : numericValue(c.kind, value);
}

/** The release's records in Ragas's columns: its samples, or its responses with their gold labels as human.<criterion>. */
export function releaseRecordSource(svc: ReleaseService, release: ReleaseRow, responses: boolean): RecordSource {
  const criteria = responses ? criteriaOf(svc, release) : [];
  function* batches() {
    let batch: Record<string, unknown>[] = [];
    let sample: SampleContent | null = null;
    for (const r of svc.records(release)) {
      if (r.kind === 'sample') {
        sample = JSON.parse(r.body) as SampleContent;
        if (!responses) batch.push({ user_input: sample.question, reference: sample.ground_truth, reference_contexts: sample.reference_contexts });
      } else if (r.kind === 'response' && responses && sample) {
        const a = JSON.parse(r.body) as ResponseContent;
        const row: Record<string, unknown> = { user_input: sample.question, retrieved_contexts: a.retrieved_contexts, response: a.answer,
          reference: sample.ground_truth, reference_contexts: sample.reference_contexts, system: a.system };
        for (const c of criteria) {
          const g = a.gold[c.name] ?? null;
          row[`human.${c.name}`] = Array.isArray(g) ? g.map((v) => typedGold(c, v)) : typedGold(c, g);
        }
        batch.push(row);
      }
      if (batch.length >= BATCH) { yield batch; batch = []; }
    }
    if (batch.length) yield batch;
  }
  return { columns: responses ? responseColumns(criteria.map((c) => c.name)) : SAMPLE_COLUMNS, batches: batches() };
}

/**
 * goldset JSONL of a release, which `goldset import` restores as a new dataset: its criteria,
 * samples (approved) and responses, and its gold labels as adjudications by the release's author
 * whose reason names the release.
 */
export function* releaseGoldsetJsonl(svc: ReleaseService, release: ReleaseRow): Generator<string> {
  const line = (rec: Record<string, unknown>) => JSON.stringify(rec) + '\n';
  yield line({ type: 'goldset', version: FORMAT_VERSION, release: { tag: release.tag, hash: release.hash },
    dataset: { name: `${release.dataset_name} ${release.tag}`, description: release.note, language: release.language, domain: '', overlap: 1,
      holdout_seed: parseInt(release.hash.slice(0, 8), 16) % 2 ** 31 } });
  const criteria = new Map<string, CriterionContent>();
  let sample: SampleContent | null = null;
  let chunk = '';
  for (const r of svc.records(release)) {
    if (r.kind === 'criterion') {
      const c = JSON.parse(r.body) as CriterionContent;
      criteria.set(c.name, c);
      chunk += line({ type: 'criterion', name: c.name, kind: c.kind, target: c.target, options: c.options, scale_min: c.scale_min, scale_max: c.scale_max, guidelines: '', archived: false });
    } else if (r.kind === 'sample') {
      sample = JSON.parse(r.body) as SampleContent;
      chunk += line({ type: 'sample', question: sample.question, ground_truth: sample.ground_truth, reference_contexts: sample.reference_contexts,
        tags: sample.tags, source: sample.source, notes: sample.notes, status: 'approved', author: null, approved_by: null, approved_at: null, created_at: release.created_at });
    } else if (r.kind === 'response' && sample) {
      const a = JSON.parse(r.body) as ResponseContent;
      const response = { question: sample.question, system: a.system, answer: a.answer, retrieved_contexts: a.retrieved_contexts };
      chunk += line({ type: 'response', ...response, metadata: {}, created_at: release.created_at });
      for (const [name, g] of Object.entries(a.gold)) {
        const slots = Array.isArray(g) ? g.map((v, i) => [i, v] as const) : [[-1, g] as const];
        for (const [context_index, value] of slots) {
          if (value === null || !criteria.has(name)) continue;
          chunk += line({ type: 'adjudication', response, criterion: name, context_index, value, reason: `gold label of release ${release.tag}`,
            adjudicator: release.author_email ?? 'release@goldset.invalid', updated_at: release.created_at });
        }
      }
    }
    if (chunk.length > 256 * 1024) { yield chunk; chunk = ''; }
  }
  if (chunk) yield chunk;
}

export class ReleaseExportError extends Error {
  constructor(readonly reason: 'no_responses' | 'cell_too_long' | 'too_many_rows', message: string) { super(message); }
}

/** Why a release cannot be exported this way, in the asker's language (the page, the API, the command line). */
export function releaseExportRefusal(err: ReleaseExportError, release: ReleaseRow, t: T): string {
  switch (err.reason) {
    case 'no_responses': return t('release.no_responses_export');
    case 'cell_too_long': return t('release.cell_too_long', { chars: release.longest_text, limit: MAX_CELL_CHARS.toLocaleString('en') });
    case 'too_many_rows': return t('export.too_many_rows', { limit: MAX_RECORDS.toLocaleString('en') });
  }
}

/** Checks that a release can be exported this way, before a byte is sent. */
export function checkReleaseExport(release: ReleaseRow, format: ExportFormat, responses: boolean): void {
  if (responses && !release.with_responses && format !== 'goldset-jsonl') {
    throw new ReleaseExportError('no_responses', `release ${release.tag} was made without responses`);
  }
  if (format === 'xlsx' && (responses ? release.n_responses : release.n_samples) > MAX_RECORDS) {
    throw new ReleaseExportError('too_many_rows', `release ${release.tag} has more records than a sheet holds (${MAX_RECORDS})`);
  }
  if (format === 'xlsx' && release.longest_text > MAX_CELL_CHARS) {
    throw new ReleaseExportError('cell_too_long', `release ${release.tag} holds a text of ${release.longest_text} characters; a spreadsheet cell holds at most ${MAX_CELL_CHARS}`);
  }
}

/** Writes one export of a release to a stream (checkReleaseExport first); resolves when written, with the number of records. */
export async function writeReleaseExport(svc: ReleaseService, release: ReleaseRow, format: ExportFormat, responses: boolean, out: Writable): Promise<number> {
  checkReleaseExport(release, format, responses);
  if (format === 'xlsx') {
    return writeRecordsXlsx(releaseRecordSource(svc, release, responses), out, { mtime: new Date(release.created_at), sheet: release.tag });
  }
  let n = 0;
  await pipeChunks(format === 'goldset-jsonl' ? releaseGoldsetJsonl(svc, release)
    : recordChunks(releaseRecordSource(svc, release, responses), format, { counted: (k) => { n += k; } }), out);
  out.end();
  await once(out, 'finish');
  return format === 'goldset-jsonl' ? release.n_records : n;
}
