// The offline labelling sheet: the items of one expert's labelling queue as a spreadsheet. One row
// per response with question, ground truth, answer and contexts (locked), a column per criterion
// with a drop-down of its values as goldset shows them (per-context criteria: one column per
// context rank), a rationale column, and locked identity columns that carry the versions the sheet
// was made from, so that an upload can tell what changed since. Only the expert's own labels are in it.
import crypto from 'node:crypto';
import type { Writable } from 'node:stream';
import type { DB } from '../db/connection.ts';
import type { Criterion } from '../criteria/queries.ts';
import { choices, optionLabel } from '../criteria/values.ts';
import { CLAIM_MINUTES } from '../labels/queries.ts';
import type { T } from '../i18n/index.ts';
import { XlsxWriter, type CellStyle, type CellValue, type ColumnSpec, type Validation } from '../xlsx/write.ts';
import { MAX_CELL_CHARS } from '../xlsx/text.ts';
import { clip } from '../limits.ts';

export const SHEET_FORMAT = 'goldset-labelling-sheet';
export const SHEET_VERSION = 1;
/** The sheet that says what the workbook is: found by this name on upload. */
export const META_SHEET = 'goldset';
export const IDENTITY_COLUMNS = ['response_id', 'sample_version', 'label_version', 'check'] as const;
export const MAX_SHEET_ROWS = 50_000;
const PAGE = 500;

/** Ties a row to its item, its expert and the versions it was made from; a changed identity cell no longer matches. */
export function rowCheck(datasetId: number, annotatorId: number, responseId: number, sampleVersion: number, labelVersion: number): string {
  return crypto.createHash('sha256').update(`${SHEET_FORMAT}:${SHEET_VERSION}:${datasetId}:${annotatorId}:${responseId}:${sampleVersion}:${labelVersion}`)
    .digest('hex').slice(0, 16);
}

/** The version of an expert's labels of an item that a sheet carries: that of a submitted annotation, else 0 (a draft is not yet a label). */
export const labelVersionOf = (a: { state: string; version: number } | undefined | null): number => (a && a.state === 'submitted' ? a.version : 0);

interface QueueRow {
  id: number; question: string; ground_truth: string; answer: string; retrieved_contexts: string; sample_version: number;
  annotation_id: number | null; state: string | null; version: number | null; rationale: string | null;
}

export function sheetQueries(db: DB) {
  return {
    /** The expert's queue (as the labelling page hands it out) and their own drafts, in id order. */
    queue: db.prepare<{ ds: number; me: number; overlap: number; cutoff: string; after: number; limit: number }, QueueRow>(`
      SELECT r.id, s.question, s.ground_truth, r.answer, r.retrieved_contexts, s.version AS sample_version,
        a.id AS annotation_id, a.state, a.version, a.rationale
      FROM response r JOIN sample s ON s.id = r.sample_id
      LEFT JOIN annotation a ON a.response_id = r.id AND a.annotator_id = @me
      WHERE r.dataset_id = @ds AND r.id > @after AND (a.state IS NULL OR a.state = 'draft')
        AND (a.id IS NOT NULL OR r.n_submitted + (SELECT count(*) FROM annotation c WHERE c.response_id = r.id AND c.state = 'draft'
              AND c.annotator_id <> @me AND c.updated_at > @cutoff) < @overlap)
      ORDER BY r.id LIMIT @limit`),
    maxContexts: db.prepare<[number], number | null>('SELECT max(json_array_length(retrieved_contexts)) FROM response WHERE dataset_id = ?').pluck(),
    labels: db.prepare<[string], { annotation_id: number; criterion_id: number; context_index: number; value: string }>(
      'SELECT annotation_id, criterion_id, context_index, value FROM label WHERE annotation_id IN (SELECT value FROM json_each(?))'),
  };
}

export type SheetQueries = ReturnType<typeof sheetQueries>;

/**
 * A text cut to what a cell holds, saying how many characters were left out (the sheet is for reading;
 * labels are tied to the item, not to this text). Never cuts a character in two.
 */
export function fitCell(text: string, t: T): string {
  if (text.length <= MAX_CELL_CHARS) return text;
  const note = t('sheet.cut', { n: 0 }).length + 8;
  const kept = clip(text, MAX_CELL_CHARS - note).text;
  let left = 0;
  for (const _ of text.slice(kept.length)) left++;
  return kept + t('sheet.cut', { n: left.toLocaleString('en') });
}

export interface SheetInput {
  dataset: { id: number; name: string; overlap: number };
  annotator: { id: number; email: string };
  criteria: Criterion[];
  t: T;
  limit?: number;
  now?: Date;
}

/** Writes the sheet; resolves with the number of item rows once the output has every byte. */
export async function writeLabellingSheet(q: SheetQueries, input: SheetInput, out: Writable): Promise<number> {
  const { dataset, annotator, criteria, t } = input;
  const now = input.now ?? new Date();
  const k = q.maxContexts.get(dataset.id) ?? 0;
  const responseCriteria = criteria.filter((c) => c.target === 'response');
  const contextCriteria = criteria.filter((c) => c.target === 'context');
  const columns: ColumnSpec[] = [
    { header: 'question', style: 'wrap', width: 40 }, { header: 'ground_truth', style: 'wrap', width: 40 }, { header: 'answer', style: 'wrap', width: 50 },
    ...Array.from({ length: k }, (_, i): ColumnSpec => ({ header: `context_${i + 1}`, style: 'wrap', width: 45 })),
  ];
  // Each criterion's cells: the column, its criterion, and the context rank (-1: about the whole response).
  const slots: { column: number; criterion: Criterion; context: number }[] = [];
  const validation = (c: Criterion, column: number): Validation => {
    const labels = choices(c).map((o) => o.label);
    // An ordinal scale's steps are numbers in the drop-down too, so a picked value is a number cell.
    const list = c.kind === 'ordinal' ? labels.map(Number) : labels;
    return c.kind === 'numeric'
      ? { column, decimal: { min: 0, max: 1 }, title: t('sheet.not_allowed'), message: t('sheet.pick_number') }
      : { column, list, title: t('sheet.not_allowed'), message: t('sheet.pick_one', { values: labels.join(', ') }) };
  };
  const validations: Validation[] = [];
  for (const c of responseCriteria) {
    slots.push({ column: columns.length, criterion: c, context: -1 });
    validations.push(validation(c, columns.length));
    columns.push({ header: c.name, style: 'editable', width: Math.max(12, c.name.length + 4) });
  }
  for (const c of contextCriteria) {
    for (let i = 0; i < k; i++) {
      slots.push({ column: columns.length, criterion: c, context: i });
      validations.push(validation(c, columns.length));
      columns.push({ header: `${c.name}_${i + 1}`, style: 'editable', width: Math.max(12, c.name.length + 6) });
    }
  }
  const rationaleColumn = columns.length;
  columns.push({ header: 'rationale', style: 'editable', width: 40 });
  for (const h of IDENTITY_COLUMNS) columns.push({ header: h, style: 'identity', width: h === 'check' ? 20 : 14 });

  const xlsx = new XlsxWriter(out, { mtime: now });
  let n = 0;
  try {
    await xlsx.startSheet({ name: t('sheet.labels_sheet'), columns, freezeHeader: true, protect: true, validations });
    const limit = Math.min(input.limit ?? MAX_SHEET_ROWS, MAX_SHEET_ROWS);
    const cutoff = new Date(now.getTime() - CLAIM_MINUTES * 60_000).toISOString();
    let after = 0;
    while (n < limit) {
      const page = q.queue.all({ ds: dataset.id, me: annotator.id, overlap: dataset.overlap, cutoff, after, limit: Math.min(PAGE, limit - n) });
      if (!page.length) break;
      const own = new Map<string, string>();
      const drafts = page.filter((r) => r.annotation_id !== null).map((r) => r.annotation_id!);
      if (drafts.length) for (const l of q.labels.all(JSON.stringify(drafts))) own.set(`${l.annotation_id}:${l.criterion_id}:${l.context_index}`, l.value);
      for (const r of page) {
        const contexts = JSON.parse(r.retrieved_contexts) as string[];
        const values: CellValue[] = [fitCell(r.question, t), fitCell(r.ground_truth, t), fitCell(r.answer, t), ...Array.from({ length: k }, (_, i) => (i < contexts.length ? fitCell(contexts[i]!, t) : null))];
        const styles: (CellStyle | undefined)[] = Array.from({ length: 3 + k }, (_, i) => (i >= 3 && i - 3 >= contexts.length ? 'blank' : undefined));
        for (const s of slots) {
          const value = r.annotation_id === null ? undefined : own.get(`${r.annotation_id}:${s.criterion.id}:${s.context}`);
          // A draft's value is shown as its option's label, as the drop-down offers it.
          values[s.column] = value === undefined ? null : (optionLabel(s.criterion, value) ?? value);
          if (s.context >= contexts.length) styles[s.column] = 'blank';
        }
        values[rationaleColumn] = r.rationale || null;
        const labelVersion = labelVersionOf(r.state === null ? null : { state: r.state, version: r.version! });
        values.push(r.id, r.sample_version, labelVersion, rowCheck(dataset.id, annotator.id, r.id, r.sample_version, labelVersion));
        await xlsx.row(values, styles);
        n++;
      }
      after = page[page.length - 1]!.id;
    }
    await xlsx.endSheet();
    await xlsx.startSheet({ name: META_SHEET, protect: true, columns: [{ header: 'key', style: 'text', width: 16 }, { header: 'value', style: 'wrap', width: 90 }] });
    for (const row of [['format', SHEET_FORMAT], ['version', SHEET_VERSION], ['dataset_id', dataset.id], ['dataset', dataset.name], ['annotator', annotator.email],
      ['made_at', now.toISOString()], ['items', n], ['about', t('sheet.about', { who: annotator.email, dataset: dataset.name, at: now.toISOString().slice(0, 16).replace('T', ' ') })]]) {
      await xlsx.row(row as CellValue[]);
    }
    await xlsx.finish();
    return n;
  } catch (err) {
    xlsx.abort();
    throw err;
  }
}
