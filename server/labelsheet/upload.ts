// A filled labelling sheet comes back: every row is checked first (its identity columns, the item
// and the expert's labels unchanged since the sheet was made, every value one its criterion
// allows), and only then are the labels saved, all in one transaction, as the expert's drafts or
// submissions through the labelling service, so the same rules hold as in the web workspace.
import type { AppContext } from '../app-context.ts';
import type { CurrentUser } from '../http/context.ts';
import type { Criterion } from '../criteria/queries.ts';
import { canonicalValue, choices } from '../criteria/values.ts';
import { LabelConflict, LabelError, valueKey, type LabelValues } from '../labels/service.ts';
import type { MessageKey } from '../i18n/index.ts';
import { Workbook, type XlsxRow, type XlsxValue } from '../xlsx/read.ts';
import { clip, LIMITS } from '../limits.ts';
import { IDENTITY_COLUMNS, META_SHEET, SHEET_FORMAT, labelVersionOf, rowCheck } from './sheet.ts';

/** The same limit as the workspace's rationale field (server/limits.ts). */
export const MAX_RATIONALE_CHARS = LIMITS.rationale;
const MAX_ERRORS = 50;

export interface SheetProblem { key: MessageKey; params: Record<string, string | number> }
export interface SheetMeta { format: string; version: number; datasetId: number; dataset: string; annotator: string }
export type SheetResult =
  | { ok: true; saved: number; unchanged: number; empty: number; state: 'draft' | 'submitted' }
  | { ok: false; errors: SheetProblem[]; total: number };

const text = (v: XlsxValue | undefined): string => (v === null || v === undefined ? '' : typeof v === 'boolean' ? (v ? 'TRUE' : 'FALSE') : String(v)).trim();

/** The meta sheet of a labelling sheet, or null when the workbook is not one (it is then an ordinary import). */
export async function readSheetMeta(file: string): Promise<SheetMeta | null> {
  let book: Workbook;
  try { book = await Workbook.open(file); } catch { return null; }
  try {
    const sheet = book.sheets.find((s) => s.name === META_SHEET);
    if (!sheet) return null;
    const kv = new Map<string, string>();
    for await (const rows of book.rows(sheet)) for (const r of rows) kv.set(text(r.cells[0]), text(r.cells[1]));
    if (kv.get('format') !== SHEET_FORMAT) return null;
    return { format: SHEET_FORMAT, version: Number(kv.get('version')), datasetId: Number(kv.get('dataset_id')), dataset: kv.get('dataset') ?? '', annotator: kv.get('annotator') ?? '' };
  } finally {
    book.close();
  }
}

interface RowPlan { row: number; responseId: number; nContexts: number; values: LabelValues; rationale: string; existingVersion: number | null; existingState: string | null }

/** Reads a labelling sheet back and, when every row is right, saves its labels as `annotator`'s. */
export async function applyLabellingSheet(app: AppContext, file: string, opts: { datasetId: number; annotator: CurrentUser; state: 'draft' | 'submitted'; actorId: number | null }): Promise<SheetResult> {
  const problems: SheetProblem[] = [];
  let total = 0;
  const problem = (key: MessageKey, params: Record<string, string | number> = {}) => { total++; if (problems.length < MAX_ERRORS) problems.push({ key, params }); };
  const refuse = (key: MessageKey, params: Record<string, string | number> = {}): SheetResult => ({ ok: false, errors: [{ key, params }], total: 1 });

  const meta = await readSheetMeta(file);
  const dataset = app.datasets.get(opts.datasetId)!;
  if (!meta) return refuse('sheet.err_columns');
  if (meta.datasetId !== dataset.id) return refuse('sheet.err_dataset', { dataset: meta.dataset });
  if (meta.annotator.toLowerCase() !== opts.annotator.email.toLowerCase()) return refuse('sheet.err_annotator', { email: meta.annotator });
  if (!app.labels.canLabel(dataset.id, opts.annotator)) return refuse('sheet.err_not_labeller', { email: opts.annotator.email });

  const criteria = app.criteria.forDataset(dataset.id);
  const book = await Workbook.open(file);
  const plans: RowPlan[] = [];
  let empty = 0, unchanged = 0;
  try {
    const sheet = book.sheets.find((s) => s.name !== META_SHEET && !s.hidden) ?? book.sheet();
    let header: string[] | null = null;
    const slotOf = new Map<number, { criterion: Criterion; context: number }>();
    const identity = new Map<string, number>();
    let rationaleAt = -1;
    const sampleVersion = app.db.prepare<[number], { version: number; dataset_id: number; n: number }>(`SELECT s.version, r.dataset_id,
      json_array_length(r.retrieved_contexts) AS n FROM response r JOIN sample s ON s.id = r.sample_id WHERE r.id = ?`);
    const readRow = (r: XlsxRow) => {
      const id = (name: string) => Number(text(r.cells[identity.get(name)!]));
      const [responseId, sVersion, lVersion, check] = [id('response_id'), id('sample_version'), id('label_version'), text(r.cells[identity.get('check')!])];
      const values: LabelValues = new Map();
      const rationale = rationaleAt >= 0 ? text(r.cells[rationaleAt]) : '';
      for (const [column, slot] of slotOf) {
        const raw = text(r.cells[column]);
        if (raw) values.set(valueKey(slot.criterion.id, slot.context), raw);
      }
      if (!values.size && !rationale) { empty++; return; }
      if (!Number.isInteger(responseId) || check !== rowCheck(dataset.id, opts.annotator.id, responseId, sVersion, lVersion)) return problem('sheet.err_identity', { row: r.row });
      const item = sampleVersion.get(responseId);
      if (!item || item.dataset_id !== dataset.id) return problem('sheet.err_unknown_item', { row: r.row });
      if (item.version !== sVersion) return problem('sheet.err_sample_changed', { row: r.row });
      const existing = app.labels.mine(responseId, opts.annotator.id);
      if (labelVersionOf(existing?.annotation) !== lVersion) return problem('sheet.err_label_changed', { row: r.row });
      if (rationale.length > MAX_RATIONALE_CHARS) return problem('sheet.err_rationale', { row: r.row, max: MAX_RATIONALE_CHARS });
      const canonical: LabelValues = new Map();
      let bad = false;
      for (const [column, slot] of slotOf) {
        const raw = values.get(valueKey(slot.criterion.id, slot.context));
        if (raw === undefined) continue;
        const name = header![column]!;
        if (slot.context >= item.n) { bad = true; problem('sheet.err_no_context', { row: r.row, column: name, n: item.n }); continue; }
        const value = canonicalValue(slot.criterion, raw);
        if (value === null) {
          bad = true;
          problem('sheet.err_value', { row: r.row, column: name, value: clip(raw, 40).text, values: slot.criterion.kind === 'numeric' ? '0 – 1' : choices(slot.criterion).map((o) => o.label).join(', ') });
        } else canonical.set(valueKey(slot.criterion.id, slot.context), value);
      }
      if (bad) return;
      // A row that says what the expert's labels say already changes nothing (a draft shown in the sheet and left as it was).
      if (existing && existing.annotation.rationale === rationale && existing.labels.length === canonical.size
        && existing.labels.every((l) => canonical.get(valueKey(l.criterion_id, l.context_index)) === l.value)
        && (opts.state === 'draft' || existing.annotation.state === 'submitted')) { unchanged++; return; }
      plans.push({ row: r.row, responseId, nContexts: item.n, values: canonical, rationale, existingVersion: existing?.annotation.version ?? null, existingState: existing?.annotation.state ?? null });
    };
    for await (const rows of book.rows(sheet)) {
      for (const r of rows) {
        if (header === null) {
          header = r.cells.map((c) => text(c));
          header.forEach((h, i) => {
            if ((IDENTITY_COLUMNS as readonly string[]).includes(h)) identity.set(h, i);
            else if (h === 'rationale') rationaleAt = i;
            else if (['question', 'ground_truth', 'answer'].includes(h) || /^context_\d+$/.test(h) || h === '') return;
            else {
              const whole = criteria.find((c) => c.target === 'response' && c.name === h);
              const m = /^(.*)_(\d+)$/.exec(h);
              const perContext = m ? criteria.find((c) => c.target === 'context' && c.name === m[1]) : undefined;
              if (whole) slotOf.set(i, { criterion: whole, context: -1 });
              else if (perContext && m) slotOf.set(i, { criterion: perContext, context: Number(m[2]) - 1 });
              else problem('sheet.err_column', { column: h });
            }
          });
          if (identity.size < IDENTITY_COLUMNS.length) return refuse('sheet.err_columns');
          continue;
        }
        readRow(r);
      }
    }
    if (total) return { ok: false, errors: problems, total };
    return save(app, plans, { ...opts, criteria, unchanged, empty });
  } finally {
    book.close();
  }
}

function save(app: AppContext, plans: RowPlan[], opts: { datasetId: number; annotator: CurrentUser; state: 'draft' | 'submitted'; actorId: number | null;
  criteria: Criterion[]; unchanged: number; empty: number }): SheetResult {
  const problems: SheetProblem[] = [];
  const rolledBack = new Error('labelling sheet refused');
  try {
    app.db.transaction(() => {
      for (const p of plans) {
        const target = { id: p.responseId, dataset_id: opts.datasetId, nContexts: p.nContexts };
        const input = { values: p.values, rationale: p.rationale, corrected_answer: '' };
        try {
          if (opts.state === 'submitted') app.labels.submit(opts.annotator, target, opts.criteria, input, p.existingVersion);
          else if (p.existingState === 'submitted') problems.push({ key: 'sheet.err_submitted', params: { row: p.row } });
          else app.labels.saveDraft(opts.annotator, target, opts.criteria, input);
        } catch (err) {
          if (err instanceof LabelConflict) problems.push({ key: 'sheet.err_label_changed', params: { row: p.row } });
          else if (err instanceof LabelError) {
            problems.push(err.key === 'err.label_missing' ? { key: 'sheet.err_missing', params: { row: p.row, criterion: String(err.params.criterion ?? '') } }
              : { key: 'sheet.err_value', params: { row: p.row, column: String(err.params.criterion ?? ''), value: '', values: '' } });
          } else throw err;
        }
      }
      if (problems.length) throw rolledBack;
      app.audit.record({ actorId: opts.actorId, entityType: 'labelling_sheet', entityId: null, datasetId: opts.datasetId, action: 'upload',
        after: { annotator: opts.annotator.email, state: opts.state, items: plans.length, unchanged: opts.unchanged } });
    })();
  } catch (err) {
    if (err === rolledBack) return { ok: false, errors: problems.slice(0, MAX_ERRORS), total: problems.length };
    throw err;
  }
  return { ok: true, saved: plans.length, unchanged: opts.unchanged, empty: opts.empty, state: opts.state };
}
