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
import type { ColumnOptions, ColumnPlan, PlannedColumn } from './columns.ts';
import { jsonKind, rowError } from './errors.ts';
import type { LineUnit, RowError, RowErrorDetail } from './errors.ts';
import { ParseError, parseListCell } from './pylist.ts';
import { labelItem, parseLabelList, type LabelList } from './value-list.ts';
import type { ImportRow, ImportSample } from './schema.ts';
import { checkList, checkName, checkNames, checkText, LIMITS, type NameProblem } from '../limits.ts';

export interface RowContext {
  line: number;
  unit: LineUnit;
}

export type NormalizeResult = { ok: true; row: ImportRow } | { ok: false; errors: RowError[] };

/** Collects a row's problems; created per row, its methods shared (no closures per row). */
class Problems {
  list: RowError[] = [];
  constructor(readonly ctx: RowContext) {}
  add(col: PlannedColumn | string, detail: RowErrorDetail): void {
    this.list.push(rowError(detail, { ...this.ctx, field: typeof col === 'string' ? col : col.header }));
  }
  /** A value over one of goldset's input limits (server/limits.ts). */
  limit(col: PlannedColumn, problem: NameProblem | null): void {
    if (problem === null) return;
    if (problem.code === 'too_many') this.add(col, { code: 'too_many', params: { limit: problem.limit, count: problem.count, what: 'items' } });
    else if (problem.code === 'too_long') this.add(col, { code: 'too_long', params: { limit: problem.limit, length: problem.length, item: problem.item } });
    else this.add(col, { code: problem.code, params: { item: problem.item } });
  }
  /** A text within its limit; `check` checkName for a name (a system, a model: no control or text-direction character). */
  text(col: PlannedColumn, value: string | null, limit: number, check: typeof checkName = checkText): string | null {
    if (value !== null) this.limit(col, check(value, limit));
    return value;
  }
  /** A list within its limits; `check` checkNames for a list of names (tags). */
  items(col: PlannedColumn, values: string[], maxItems: number, maxEach: number, check: typeof checkNames = checkList): string[] {
    this.limit(col, check(values, maxItems, maxEach));
    return values;
  }
}

/** The limit of each text field of a sample (server/limits.ts). */
const SAMPLE_TEXT_LIMITS = { id: LIMITS.source, source: LIMITS.source, notes: LIMITS.notes, status: LIMITS.source, ground_truth: LIMITS.groundTruth } as const;

/** Cell texts that mean "no score": pandas writes NaN as '' by default, str(NaN) is 'nan'. */
const NULL_WORDS = new Set(['nan', 'none', 'null']);
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** Tag separators: ASCII comma plus the Chinese full-width comma and enumeration comma. */
const TAG_SEPARATORS = /[,，、]/;
/** Anything but whitespace: a cell with none of it is empty. */
const NOT_BLANK = /\S/;

function toText(v: unknown, col: PlannedColumn, problems: Problems): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return NOT_BLANK.test(v) ? v : null;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  problems.add(col, { code: 'not_a_string', params: { got: jsonKind(v) } });
  return null;
}

function toList(v: unknown, col: PlannedColumn, problems: Problems): string[] {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') {
    try {
      return parseListCell(v);
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
      problems.add(col, { code: 'not_a_list', params: { reason: e.reason, position: e.position, detail: e.detail } });
      return [];
    }
  }
  if (Array.isArray(v)) {
    const bad = v.findIndex((item) => typeof item !== 'string');
    if (bad === -1) return v as string[];
    const detail = `item ${bad + 1} is ${jsonKind(v[bad])}, not a string`;
    problems.add(col, { code: 'not_a_list', params: { reason: 'item_not_string', position: null, detail } });
    return [];
  }
  problems.add(col, { code: 'not_a_list', params: { reason: 'not_a_list', position: null, detail: `found ${jsonKind(v)}` } });
  return [];
}

function toNumber(v: unknown, col: PlannedColumn, problems: Problems): number | null {
  if (v === null || v === undefined) return null;
  let n: number;
  if (typeof v === 'number') {
    n = v;
  } else if (typeof v === 'string') {
    const t = v.trim();
    if (t === '' || NULL_WORDS.has(t.toLowerCase())) return null;
    n = DECIMAL.test(t) ? Number(t) : NaN;
    if (Number.isNaN(n)) {
      problems.add(col, { code: 'not_a_number', params: { value: t } });
      return null;
    }
  } else {
    problems.add(col, { code: 'not_a_number', params: { value: JSON.stringify(v) ?? String(v) } });
    return null;
  }
  if (Number.isNaN(n)) return null;
  if (!Number.isFinite(n)) {
    problems.add(col, { code: 'not_a_number', params: { value: String(v) } });
    return null;
  }
  return n;
}

/** A label: text, or a list of one value per retrieved context (a JSON array, or a cell written as `[...]`). */
function toLabel(v: unknown, col: PlannedColumn, problems: Problems): string | LabelList | null {
  if (Array.isArray(v)) {
    const items = v.map(labelItem);
    const bad = items.indexOf(undefined);
    if (bad === -1) return items as LabelList;
    const detail = `item ${bad + 1} is ${jsonKind(v[bad])}, not a value`;
    problems.add(col, { code: 'not_a_list', params: { reason: 'item_not_string', position: null, detail } });
    return null;
  }
  const text = toText(v, col, problems);
  if (text === null) return null;
  const t = text.trim();
  if (!(t.startsWith('[') && t.endsWith(']'))) return text;
  try {
    return parseLabelList(t);
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    problems.add(col, { code: 'not_a_list', params: { reason: e.reason, position: e.position, detail: e.detail } });
    return null;
  }
}

/** Ragas's own rounding stays inside: 1.0000000000000004 (BLEU) and 0.9999999999 (context precision). */
const RANGE_SLACK = 1e-9;

/** A score cell: a number within its metric's range (when the metric is known), or null for no score. */
function toScore(v: unknown, col: PlannedColumn, problems: Problems): number | null {
  const n = toNumber(v, col, problems);
  const range = col.range;
  if (n === null || !range) return n;
  const inside = range.values ? range.values.some((x) => Math.abs(n - x) <= RANGE_SLACK) : n >= range.min - RANGE_SLACK && n <= range.max + RANGE_SLACK;
  if (!inside) problems.add(col, { code: 'out_of_range', params: { value: String(n), allowed: range.values ? range.values.join(', ') : `${range.min}–${range.max}` } });
  return n;
}

/** Tags: a list literal / JSON array, or comma-separated text; trimmed, blanks and repeats dropped. */
function toTags(v: unknown, col: PlannedColumn, problems: Problems): string[] {
  const items = typeof v === 'string' && !v.trim().startsWith('[') ? v.split(TAG_SEPARATORS) : toList(v, col, problems);
  return [...new Set(items.map((t) => t.trim()).filter((t) => t !== ''))];
}

/**
 * `values[i]` is the value of `plan.columns[i]`; missing trailing values count as empty.
 *
 * Runs once per row of every import, so it checks by hand what `ImportRowSchema` states (the
 * question is not blank and is trimmed; latency and cost are not negative); the row it returns
 * always satisfies the schema (test/io/normalize.test.ts holds it to that).
 */
export function normalizeRow(plan: ColumnPlan, values: readonly unknown[], ctx: RowContext): NormalizeResult {
  const problems = new Problems(ctx);
  const sample: ImportSample = {
    id: null, question: '', ground_truth: null, reference_contexts: [], tags: [], source: null, notes: null, status: null,
  };
  let answer: string | null = null;
  let retrieved: string[] = [];
  let system: string | null = null;
  const metadata = { model: null as string | null, latency_ms: null as number | null, cost: null as number | null };
  const scores: Record<string, number | null> = {};
  const labels: Record<string, string | LabelList> = {};
  const extra: Record<string, unknown> = {};
  let hasResponse = false;

  const { columns } = plan;
  // Checked before any value: a row of 2,000 columns would otherwise report 2,000 problems, or
  // create 2,000 criteria.
  if (columns.length > LIMITS.columns) {
    problems.add('(columns)', { code: 'too_many', params: { limit: LIMITS.columns, count: columns.length, what: 'columns' } });
    return { ok: false, errors: problems.list };
  }
  if (plan.labelColumns > LIMITS.criteria) {
    problems.add('human.*', { code: 'too_many', params: { limit: LIMITS.criteria, count: plan.labelColumns, what: 'label_columns' } });
    return { ok: false, errors: problems.list };
  }
  for (let i = 0; i < columns.length; i++) {
    const col = columns[i]!;
    const v = values[i];
    const t = col.target;
    switch (t.kind) {
      case 'sample':
        if (t.field === 'question') sample.question = problems.text(col, toText(v, col, problems), LIMITS.question) ?? '';
        else if (t.field === 'ground_truths') sample.ground_truth = problems.text(col, toList(v, col, problems)[0] ?? null, LIMITS.groundTruth);
        else if (t.field === 'reference_contexts') sample.reference_contexts = problems.items(col, toList(v, col, problems), LIMITS.contexts, LIMITS.context);
        else if (t.field === 'tags') sample.tags = problems.items(col, toTags(v, col, problems), LIMITS.tags, LIMITS.tag, checkNames);
        else sample[t.field] = problems.text(col, toText(v, col, problems), SAMPLE_TEXT_LIMITS[t.field]);
        break;
      // A response exists when any answer-side value does; an answer-less row with contexts is a
      // retrieval-only result and keeps answer ''.
      case 'response':
        if (t.field === 'answer') { answer = problems.text(col, toText(v, col, problems), LIMITS.answer); hasResponse ||= answer !== null; }
        else if (t.field === 'retrieved_contexts') {
          retrieved = problems.items(col, toList(v, col, problems), LIMITS.contexts, LIMITS.context);
          hasResponse ||= retrieved.length > 0;
        }
        else if (t.field === 'system') { system = problems.text(col, toText(v, col, problems), LIMITS.system, checkName); hasResponse ||= system !== null; }
        else if (t.field === 'model') { metadata.model = problems.text(col, toText(v, col, problems), LIMITS.system, checkName); hasResponse ||= metadata.model !== null; }
        else {
          const n = toNumber(v, col, problems);
          metadata[t.field] = n;
          hasResponse ||= n !== null;
          if (n !== null && n < 0) problems.add(col, { code: 'invalid_value', params: { detail: 'must not be negative' } });
        }
        break;
      case 'score':
        scores[t.metric] = toScore(v, col, problems);
        break;
      case 'label': {
        // An empty label cell means "not labelled yet", not an empty label.
        const label = toLabel(v, col, problems);
        if (typeof label === 'string') problems.text(col, label, LIMITS.labelValue);
        else if (label !== null) problems.items(col, label.map((x) => x ?? ''), LIMITS.contexts, LIMITS.labelValue); // one per retrieved context
        if (label !== null) labels[t.criterion] = label;
        break;
      }
      case 'ignored':
        extra[col.header] = v;
        break;
      case 'index':
        break;
    }
  }

  sample.question = sample.question.trim();
  if (sample.question === '') {
    const header = plan.headerOf.get('question');
    const params = { accepted: [...ACCEPTED_HEADERS.question], present: header !== undefined };
    problems.add(header ?? 'question', { code: 'missing_value', params });
  }
  if (problems.list.length > 0) return { ok: false, errors: problems.list };
  const response = hasResponse ? { answer: answer ?? '', retrieved_contexts: retrieved, system, metadata } : null;
  return { ok: true, row: { sample, response, scores, labels, extra, ignored: plan.ignored } };
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
