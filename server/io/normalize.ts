/**
 * Turns one raw record (CSV cells or a JSON object) into a validated `ImportRow`, or into the
 * list of everything wrong with it, so the user can fix a row in one pass.
 *
 * Values are coerced the same way whatever the file format: a string in a list column is parsed
 * as a list literal (CSV cells always are strings, and JSON exported from a DataFrame that went
 * through CSV has them too); a JSON array is taken as is. Empty strings, null and missing keys all
 * mean "no value", because pandas writes None/NaN as an empty CSV cell and we cannot tell apart.
 */
import { ACCEPTED_HEADERS, planColumns } from './columns.ts';
import type { ColumnOptions, ColumnPlan, PlannedColumn, ResponseField, SampleField } from './columns.ts';
import { jsonKind, rowError } from './errors.ts';
import type { LineUnit, RowError, RowErrorDetail } from './errors.ts';
import { ParseError, parseListCell } from './pylist.ts';
import { ImportRowSchema } from './schema.ts';
import type { ImportRow } from './schema.ts';

export interface RowContext {
  line: number;
  unit: LineUnit;
}

export type NormalizeResult = { ok: true; row: ImportRow } | { ok: false; errors: RowError[] };

type Report = (col: PlannedColumn, detail: RowErrorDetail) => void;

/** Cell texts that mean "no score": pandas writes NaN as '' by default, str(NaN) is 'nan'. */
const NULL_WORDS = new Set(['nan', 'none', 'null']);
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** Tag separators: ASCII comma plus the Chinese full-width comma and enumeration comma. */
const TAG_SEPARATORS = /[,，、]/;

function toText(v: unknown, col: PlannedColumn, report: Report): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v.trim() === '' ? null : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  report(col, { code: 'not_a_string', params: { got: jsonKind(v) } });
  return null;
}

function toList(v: unknown, col: PlannedColumn, report: Report): string[] {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') {
    try {
      return parseListCell(v);
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
      report(col, { code: 'not_a_list', params: { reason: e.reason, position: e.position, detail: e.detail } });
      return [];
    }
  }
  if (Array.isArray(v)) {
    const bad = v.findIndex((item) => typeof item !== 'string');
    if (bad === -1) return v as string[];
    const detail = `item ${bad + 1} is ${jsonKind(v[bad])}, not a string`;
    report(col, { code: 'not_a_list', params: { reason: 'item_not_string', position: null, detail } });
    return [];
  }
  report(col, { code: 'not_a_list', params: { reason: 'not_a_list', position: null, detail: `found ${jsonKind(v)}` } });
  return [];
}

function toNumber(v: unknown, col: PlannedColumn, report: Report): number | null {
  if (v === null || v === undefined) return null;
  let n: number;
  if (typeof v === 'number') {
    n = v;
  } else if (typeof v === 'string') {
    const t = v.trim();
    if (t === '' || NULL_WORDS.has(t.toLowerCase())) return null;
    n = DECIMAL.test(t) ? Number(t) : NaN;
    if (Number.isNaN(n)) {
      report(col, { code: 'not_a_number', params: { value: t } });
      return null;
    }
  } else {
    report(col, { code: 'not_a_number', params: { value: JSON.stringify(v) ?? String(v) } });
    return null;
  }
  if (Number.isNaN(n)) return null;
  if (!Number.isFinite(n)) {
    report(col, { code: 'not_a_number', params: { value: String(v) } });
    return null;
  }
  return n;
}

/** Tags: a list literal / JSON array, or comma-separated text; trimmed, blanks and repeats dropped. */
function toTags(v: unknown, col: PlannedColumn, report: Report): string[] {
  const items = typeof v === 'string' && !v.trim().startsWith('[') ? v.split(TAG_SEPARATORS) : toList(v, col, report);
  return [...new Set(items.map((t) => t.trim()).filter((t) => t !== ''))];
}

/** `values[i]` is the value of `plan.columns[i]`; missing trailing values count as empty. */
export function normalizeRow(plan: ColumnPlan, values: readonly unknown[], ctx: RowContext): NormalizeResult {
  const errors: RowError[] = [];
  const report: Report = (col, detail) => errors.push(rowError(detail, { ...ctx, field: col.header }));

  const sample = {
    id: null as string | null,
    question: '',
    ground_truth: null as string | null,
    reference_contexts: [] as string[],
    tags: [] as string[],
    source: null as string | null,
    notes: null as string | null,
    status: null as string | null,
  };
  let answer: string | null = null;
  let retrieved: string[] = [];
  let system: string | null = null;
  const metadata = { model: null as string | null, latency_ms: null as number | null, cost: null as number | null };
  const scores: Record<string, number | null> = {};
  const labels: Record<string, string> = {};
  const extra: Record<string, unknown> = {};

  plan.columns.forEach((col, i) => {
    const v = values[i];
    const t = col.target;
    switch (t.kind) {
      case 'sample':
        if (t.field === 'question') sample.question = toText(v, col, report) ?? '';
        else if (t.field === 'ground_truths') sample.ground_truth = toList(v, col, report)[0] ?? null;
        else if (t.field === 'reference_contexts') sample.reference_contexts = toList(v, col, report);
        else if (t.field === 'tags') sample.tags = toTags(v, col, report);
        else sample[t.field] = toText(v, col, report);
        break;
      case 'response':
        if (t.field === 'answer') answer = toText(v, col, report);
        else if (t.field === 'retrieved_contexts') retrieved = toList(v, col, report);
        else if (t.field === 'system') system = toText(v, col, report);
        else if (t.field === 'model') metadata.model = toText(v, col, report);
        else metadata[t.field] = toNumber(v, col, report);
        break;
      case 'score':
        scores[t.metric] = toNumber(v, col, report);
        break;
      case 'label': {
        // An empty label cell means "not labelled yet", not an empty label.
        const label = toText(v, col, report);
        if (label !== null) labels[t.criterion] = label;
        break;
      }
      case 'ignored':
        extra[col.header] = v;
        break;
      case 'index':
        break;
    }
  });

  // A response exists when any answer-side value does; an answer-less row with contexts is a
  // retrieval-only result and keeps answer ''.
  const hasResponse =
    answer !== null || retrieved.length > 0 || system !== null || Object.values(metadata).some((m) => m !== null);
  const candidate = {
    sample,
    response: hasResponse ? { answer: answer ?? '', retrieved_contexts: retrieved, system, metadata } : null,
    scores,
    labels,
    extra,
    ignored: plan.ignored,
  };

  const parsed = ImportRowSchema.safeParse(candidate);
  if (parsed.success) return errors.length > 0 ? { ok: false, errors } : { ok: true, row: parsed.data };
  for (const issue of parsed.error.issues) {
    const path = issue.path.map(String);
    if (path[0] === 'sample' && path[1] === 'question') {
      const header = plan.headerOf.get('question');
      const params = { accepted: [...ACCEPTED_HEADERS.question], present: header !== undefined };
      errors.push(rowError({ code: 'missing_value', params }, { ...ctx, field: header ?? 'question' }));
    } else {
      const last = (path[path.length - 1] ?? '') as SampleField | ResponseField;
      const header = plan.headerOf.get(last) ?? path.join('.');
      errors.push(rowError({ code: 'invalid_value', params: { detail: issue.message } }, { ...ctx, field: header }));
    }
  }
  return { ok: false, errors };
}

/** Normalizes a JSON object; its keys are classified like CSV headers (in key order). */
export function normalizeRecord(record: Record<string, unknown>, ctx: RowContext, options: ColumnOptions = {}): NormalizeResult {
  const keys = Object.keys(record);
  return normalizeRow(planColumns(keys, options), keys.map((k) => record[k]), ctx);
}

/**
 * `normalizeRecord` with the column plan cached per key set: JSONL files repeat the same keys on
 * every line, and re-classifying them 200k times is wasted work.
 */
export function createRecordNormalizer(options: ColumnOptions = {}): (record: Record<string, unknown>, ctx: RowContext) => NormalizeResult {
  const cache = new Map<string, ColumnPlan>();
  return (record, ctx) => {
    const keys = Object.keys(record);
    const signature = keys.join('\u0000');
    let plan = cache.get(signature);
    if (!plan) {
      plan = planColumns(keys, options);
      // Bounded: a file whose records all differ in keys must not grow this without limit.
      if (cache.size >= 256) cache.clear();
      cache.set(signature, plan);
    }
    return normalizeRow(plan, keys.map((k) => record[k]), ctx);
  };
}
