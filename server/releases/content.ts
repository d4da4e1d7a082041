// What a release of a dataset holds, as its canonical records (see canonical.ts and README,
// "Releases"): a header line; with responses, the criteria; then each approved sample in the UTF-8
// order of its question, followed by its responses (with their gold labels) in the order of their
// lines. Read from the dataset as it is now, 500 samples at a time, in a handful of queries per batch.
import type { DB } from '../db/connection.ts';
import type { CriterionKind, CriterionOption, CriterionTarget } from '../criteria/values.ts';
import { goldValue } from '../labels/gold.ts';
import { byUtf8, canonicalJson, type Canonical } from './canonical.ts';

export const RELEASE_FORMAT_VERSION = 1;
const BATCH = 500;

export type RecordKind = 'release' | 'criterion' | 'sample' | 'response';

export interface ReleaseRecord {
  kind: RecordKind;
  sampleId: number | null;
  responseId: number | null;
  /** Matches the record across releases: question key, + answer hash for a response, criterion name. */
  key: string;
  body: string;
  /** The longest text an export cell made from this record holds. */
  longest: number;
}

/** The parsed records, as release exports, diffs and runs read them. */
export interface SampleContent { type: 'sample'; question: string; ground_truth: string; reference_contexts: string[]; tags: string[]; source: string; notes: string }
export interface ResponseContent { type: 'response'; system: string; answer: string; retrieved_contexts: string[]; gold: Record<string, string | null | (string | null)[]> }
export interface CriterionContent { type: 'criterion'; name: string; kind: CriterionKind; target: CriterionTarget; options: CriterionOption[]; scale_min: number | null; scale_max: number | null }
export interface HeaderContent { type: 'release'; version: number; responses: boolean }
export type RecordContent = HeaderContent | CriterionContent | SampleContent | ResponseContent;

function record(kind: RecordKind, content: Canonical, ids: { sampleId?: number; responseId?: number; key: string; longest?: number }): ReleaseRecord {
  return { kind, sampleId: ids.sampleId ?? null, responseId: ids.responseId ?? null, key: ids.key, body: canonicalJson(content), longest: ids.longest ?? 0 };
}

export function contentQueries(db: DB) {
  return {
    approvedIds: db.prepare<[number], number>("SELECT id FROM sample WHERE dataset_id = ? AND status = 'approved' ORDER BY question").pluck(),
    criteria: db.prepare<[number], { id: number; name: string; kind: CriterionKind; target: CriterionTarget; options: string; scale_min: number | null; scale_max: number | null }>(
      'SELECT id, name, kind, target, options, scale_min, scale_max FROM criterion WHERE dataset_id = ? AND archived = 0'),
    samples: db.prepare<[string], { id: number; question_key: string; question: string; ground_truth: string; reference_contexts: string; tags: string; source: string; notes: string }>(
      'SELECT id, question_key, question, ground_truth, reference_contexts, tags, source, notes FROM sample WHERE id IN (SELECT value FROM json_each(?))'),
    responses: db.prepare<[string], { id: number; sample_id: number; system: string; answer: string; retrieved_contexts: string; content_hash: string }>(
      'SELECT id, sample_id, system, answer, retrieved_contexts, content_hash FROM response WHERE sample_id IN (SELECT value FROM json_each(?))'),
    labels: db.prepare<[string], { response_id: number; criterion_id: number; context_index: number; value: string }>(`
      SELECT a.response_id, l.criterion_id, l.context_index, l.value FROM annotation a JOIN label l ON l.annotation_id = a.id
      WHERE a.state = 'submitted' AND a.response_id IN (SELECT value FROM json_each(?))`),
    adjudications: db.prepare<[string], { response_id: number; criterion_id: number; context_index: number; value: string }>(
      'SELECT response_id, criterion_id, context_index, value FROM adjudication WHERE response_id IN (SELECT value FROM json_each(?))'),
  };
}

export type ContentQueries = ReturnType<typeof contentQueries>;

/** The records a release of the dataset made now would hold. */
export function* currentRecords(q: ContentQueries, datasetId: number, withResponses: boolean): Generator<ReleaseRecord> {
  yield record('release', { type: 'release', version: RELEASE_FORMAT_VERSION, responses: withResponses }, { key: '' });
  const criteria = withResponses ? q.criteria.all(datasetId).sort((a, b) => byUtf8(a.name, b.name)) : [];
  for (const c of criteria) {
    yield record('criterion', { type: 'criterion', name: c.name, kind: c.kind, target: c.target, options: JSON.parse(c.options) as Canonical,
      scale_min: c.scale_min, scale_max: c.scale_max }, { key: c.name.toLowerCase() });
  }
  const ids = q.approvedIds.all(datasetId) as number[];
  for (let start = 0; start < ids.length; start += BATCH) {
    const page = ids.slice(start, start + BATCH);
    const byId = new Map(q.samples.all(JSON.stringify(page)).map((s) => [s.id, s]));
    const responses = new Map<number, ReturnType<ContentQueries['responses']['all']>>();
    const gold = new Map<string, string | null>();
    if (withResponses) {
      const rows = q.responses.all(JSON.stringify(page));
      for (const r of rows) {
        let list = responses.get(r.sample_id);
        if (!list) responses.set(r.sample_id, (list = []));
        list.push(r);
      }
      const rids = JSON.stringify(rows.map((r) => r.id));
      const submitted = new Map<string, string[]>();
      for (const l of q.labels.all(rids)) {
        const key = `${l.response_id}:${l.criterion_id}:${l.context_index}`;
        let values = submitted.get(key);
        if (!values) submitted.set(key, (values = []));
        values.push(l.value);
      }
      const adjudicated = new Map(q.adjudications.all(rids).map((j) => [`${j.response_id}:${j.criterion_id}:${j.context_index}`, j.value]));
      const kinds = new Map(criteria.map((c) => [c.id, c.kind]));
      for (const key of new Set([...submitted.keys(), ...adjudicated.keys()])) {
        const kind = kinds.get(Number(key.split(':')[1]));
        if (kind) gold.set(key, goldValue(kind, submitted.get(key) ?? [], adjudicated.get(key) ?? null));
      }
    }
    for (const id of page) {
      const s = byId.get(id)!;
      const refs = JSON.parse(s.reference_contexts) as string[];
      const sampleLongest = Math.max(s.question.length, s.ground_truth.length, s.reference_contexts.length);
      yield record('sample', { type: 'sample', question: s.question, ground_truth: s.ground_truth, reference_contexts: refs,
        tags: (JSON.parse(s.tags) as string[]).sort(byUtf8), source: s.source, notes: s.notes }, { sampleId: s.id, key: s.question_key, longest: sampleLongest });
      const own = (responses.get(id) ?? []).map((r) => {
        const contexts = JSON.parse(r.retrieved_contexts) as string[];
        const slot = (cid: number, i: number) => gold.get(`${r.id}:${cid}:${i}`) ?? null;
        const labels: Record<string, Canonical> = {};
        for (const c of criteria) labels[c.name] = c.target === 'context' ? contexts.map((_, i) => slot(c.id, i)) : slot(c.id, -1);
        return record('response', { type: 'response', system: r.system, answer: r.answer, retrieved_contexts: contexts, gold: labels },
          { sampleId: s.id, responseId: r.id, key: `${s.question_key}:${r.content_hash}`, longest: Math.max(sampleLongest, r.answer.length, r.retrieved_contexts.length) });
      });
      yield* own.sort((a, b) => byUtf8(a.body, b.body));
    }
  }
}
