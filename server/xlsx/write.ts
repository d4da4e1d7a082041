// A streaming XLSX writer: rows go into the sheet's part as they are written, zipped by yazl on the
// way to the output, so a sheet of any length takes the memory of a few rows. Written here rather
// than with exceljs (see README, "XLSX"): every text is an inline string (never a formula, whatever
// its first character), characters XML cannot carry are written as _xHHHH_ instead of dropped, and
// the same rows give the same bytes (fixed timestamps), which the release export's ETag relies on.
import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import yazl from 'yazl';
import { MAX_CELL_CHARS, MAX_ROWS, columnName, displayWidth, sheetName, xmlText } from './text.ts';

export type CellValue = string | number | boolean | null | undefined;

/**
 * How a cell looks and whether it is locked when the sheet is protected: `header` bold on a tinted
 * fill; `wrap` long text wrapped; `text` short text; `number`; `editable` unlocked, tinted, wrapped;
 * `identity` grey; `blank` locked and shaded (a cell that must stay empty).
 */
export type CellStyle = 'header' | 'wrap' | 'text' | 'number' | 'editable' | 'identity' | 'blank';

const STYLE_ID: Record<CellStyle, number> = { header: 1, wrap: 2, text: 3, number: 4, editable: 5, identity: 6, blank: 7 };

export interface ColumnSpec {
  header: string;
  style: CellStyle;
  /** In Excel's units (about one Latin character); measured from the first rows when missing. */
  width?: number;
}

/** A drop-down of allowed values, or a number range, on one column below the header. */
export type Validation =
  | { column: number; list: (string | number)[]; title: string; message: string }
  | { column: number; decimal: { min: number; max: number }; title: string; message: string };

export interface SheetSpec {
  name: string;
  columns: ColumnSpec[];
  freezeHeader?: boolean;
  /** Locks every cell but the `editable` ones (no password: it guards against slips, not people). */
  protect?: boolean;
  validations?: Validation[];
}

/** A row past the sheet's last (column null), or a text longer than a cell holds. */
export class XlsxLimitError extends Error {
  constructor(readonly row: number, readonly column: string | null = null, readonly chars = 0) {
    super(column === null ? `row ${row}: a sheet has at most ${MAX_ROWS} rows` : `row ${row}, column ${column}: ${chars} characters; a spreadsheet cell holds at most ${MAX_CELL_CHARS}`);
  }
}

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
/** Rows measured before the column widths are written, when a column has no width of its own. */
const MEASURED_ROWS = 100;
const MIN_WIDTH = 8, MAX_WIDTH = 60;
const LIST_SHEET = '_goldset_lists';

const STYLES = `${XML_HEAD}<styleSheet xmlns="${NS}">` +
  '<fonts count="3"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font>' +
  '<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font>' +
  '<font><sz val="11"/><color rgb="FF6B7280"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="5"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>' +
  '<fill><patternFill patternType="solid"><fgColor rgb="FFE5E7EB"/><bgColor indexed="64"/></patternFill></fill>' +
  '<fill><patternFill patternType="solid"><fgColor rgb="FFFFF7D6"/><bgColor indexed="64"/></patternFill></fill>' +
  '<fill><patternFill patternType="solid"><fgColor rgb="FFF3F4F6"/><bgColor indexed="64"/></patternFill></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="8"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  '<xf numFmtId="0" fontId="1" fillId="2" borderId="0" xfId="0" applyFont="1" applyFill="1" applyAlignment="1"><alignment vertical="top" wrapText="1"/></xf>' +
  '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" applyAlignment="1"><alignment vertical="top" wrapText="1"/></xf>' +
  '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" applyAlignment="1"><alignment vertical="top"/></xf>' +
  '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" applyAlignment="1"><alignment vertical="top"/></xf>' +
  '<xf numFmtId="0" fontId="0" fillId="3" borderId="0" xfId="0" applyFill="1" applyAlignment="1" applyProtection="1"><alignment vertical="top" wrapText="1"/><protection locked="0"/></xf>' +
  '<xf numFmtId="0" fontId="2" fillId="0" borderId="0" xfId="0" applyFont="1" applyAlignment="1"><alignment vertical="top"/></xf>' +
  '<xf numFmtId="0" fontId="0" fillId="4" borderId="0" xfId="0" applyFill="1"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>';

function cellXml(ref: string, value: CellValue, style: number): string {
  const s = style ? ` s="${style}"` : '';
  if (value === null || value === undefined || value === '') return style ? `<c r="${ref}"${s}/>` : '';
  if (typeof value === 'number') return Number.isFinite(value) ? `<c r="${ref}"${s}><v>${value}</v></c>` : (style ? `<c r="${ref}"${s}/>` : '');
  if (typeof value === 'boolean') return `<c r="${ref}"${s} t="b"><v>${value ? 1 : 0}</v></c>`;
  const space = /^\s|\s$/.test(value) ? ' xml:space="preserve"' : '';
  return `<c r="${ref}"${s} t="inlineStr"><is><t${space}>${xmlText(value)}</t></is></c>`;
}

/** A sheet name as it stands in a formula: quoted unless it is a plain word. */
function sheetRef(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `'${name.replace(/'/g, "''")}'`;
}

interface OpenSheet {
  spec: SheetSpec;
  index: number;
  stream: PassThrough;
  rows: number;
  /** Rows held back until the column widths are known. */
  pending: string[] | null;
  widths: number[];
}

/**
 * Writes one workbook to `out`: startSheet, row…, endSheet for each sheet, then finish. Each call
 * that writes waits while the output is behind, so the caller's loop keeps memory bounded.
 */
export class XlsxWriter {
  private readonly zip = new yazl.ZipFile();
  private readonly sheets: { name: string; hidden: boolean }[] = [];
  private readonly lists: (string | number)[][] = [];
  private sheet: OpenSheet | null = null;
  private readonly done: Promise<unknown>;
  /** Aborted when the output closes early (a download cancelled): writes waiting for room stop waiting. */
  private readonly closed = new AbortController();

  constructor(out: Writable, private readonly opts: { mtime: Date }) {
    this.zip.outputStream.pipe(out);
    this.done = once(out, 'finish');
    this.done.catch(() => {}); // awaited in finish(); an early failure must not go unhandled meanwhile
    out.once('close', () => { if (!out.writableFinished) this.closed.abort(); });
  }

  private add(name: string, text: string): void {
    this.zip.addBuffer(Buffer.from(text, 'utf8'), name, { mtime: this.opts.mtime, compress: true, forceDosTimestamp: true });
  }

  private async write(stream: PassThrough, text: string): Promise<void> {
    if (this.closed.signal.aborted) throw new Error('xlsx: the output was closed');
    if (!stream.write(text)) await once(stream, 'drain', { signal: this.closed.signal });
  }

  async startSheet(spec: SheetSpec): Promise<void> {
    if (this.sheet) throw new Error('xlsx: the previous sheet is still open');
    const index = this.sheets.length;
    let name = sheetName(spec.name);
    const taken = (n: string) => n.toLowerCase() === LIST_SHEET || this.sheets.some((s) => s.name.toLowerCase() === n.toLowerCase());
    for (let k = 2; taken(name); k++) name = `${sheetName(spec.name).slice(0, 26)} (${k})`;
    this.sheets.push({ name, hidden: false });
    const stream = new PassThrough({ highWaterMark: 1 << 20 });
    this.zip.addReadStream(stream, `xl/worksheets/sheet${index + 1}.xml`, { mtime: this.opts.mtime, compress: true, forceDosTimestamp: true });
    const measure = spec.columns.some((c) => c.width === undefined);
    this.sheet = { spec, index, stream, rows: 0, pending: measure ? [] : null, widths: spec.columns.map((c) => displayWidth(c.header) + 2) };
    await this.row(spec.columns.map((c) => c.header), spec.columns.map(() => 'header'));
  }

  /** One row; `styles` overrides the columns' styles cell by cell. */
  async row(values: CellValue[], styles?: (CellStyle | undefined)[]): Promise<void> {
    const sheet = this.sheet;
    if (!sheet) throw new Error('xlsx: no open sheet');
    const r = ++sheet.rows;
    if (r > MAX_ROWS) throw new XlsxLimitError(r);
    let xml = `<row r="${r}">`;
    const { columns } = sheet.spec;
    const width = Math.max(values.length, columns.length);
    for (let i = 0; i < width; i++) {
      const v = values[i];
      const style = STYLE_ID[styles?.[i] ?? columns[i]?.style ?? 'text'];
      if (typeof v === 'string' && v.length > MAX_CELL_CHARS) throw new XlsxLimitError(r, columns[i]?.header ?? columnName(i), v.length);
      xml += cellXml(`${columnName(i)}${r}`, v, style);
      if (sheet.pending && v !== null && v !== undefined && r > 1) {
        const longest = String(v).split('\n').reduce((m, line) => Math.max(m, displayWidth(line)), 0);
        if (longest + 2 > (sheet.widths[i] ?? 0)) sheet.widths[i] = longest + 2;
      }
    }
    xml += '</row>';
    if (sheet.pending) {
      sheet.pending.push(xml);
      if (sheet.pending.length > MEASURED_ROWS) await this.flushPending(sheet);
      return;
    }
    if (r === 1) await this.write(sheet.stream, this.sheetHead(sheet));
    await this.write(sheet.stream, xml);
  }

  private async flushPending(sheet: OpenSheet): Promise<void> {
    const rows = sheet.pending!;
    sheet.pending = null;
    await this.write(sheet.stream, this.sheetHead(sheet) + rows.join(''));
  }

  private sheetHead(sheet: OpenSheet): string {
    const { spec } = sheet;
    const pane = spec.freezeHeader
      ? '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A2" sqref="A2"/>'
      : '';
    const cols = spec.columns.map((c, i) => {
      const width = c.width ?? Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, sheet.widths[i]!));
      // The column's style is what its empty cells get: editable columns stay editable below the last row too.
      return `<col min="${i + 1}" max="${i + 1}" width="${width}" customWidth="1" style="${STYLE_ID[c.style]}"/>`;
    }).join('');
    return `${XML_HEAD}<worksheet xmlns="${NS}" xmlns:r="${NS_R}"><sheetViews><sheetView workbookViewId="0"${sheet.index === 0 ? ' tabSelected="1"' : ''}>` +
      `${pane}</sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/>${cols ? `<cols>${cols}</cols>` : ''}<sheetData>`;
  }

  async endSheet(): Promise<void> {
    const sheet = this.sheet;
    if (!sheet) throw new Error('xlsx: no open sheet');
    if (sheet.pending) await this.flushPending(sheet);
    const { spec } = sheet;
    let tail = '</sheetData>';
    if (spec.protect) tail += '<sheetProtection sheet="1" objects="1" scenarios="1" formatCells="0" formatColumns="0" formatRows="0"/>';
    const last = Math.max(sheet.rows, 2);
    const validations = (spec.validations ?? []).map((v) => {
      const sqref = `${columnName(v.column)}2:${columnName(v.column)}${last}`;
      const messages = `showErrorMessage="1" errorTitle="${xmlText(v.title)}" error="${xmlText(v.message)}"`;
      if ('list' in v) {
        this.lists.push(v.list);
        return `<dataValidation type="list" allowBlank="1" showInputMessage="1" ${messages} sqref="${sqref}"><formula1>_gs_list_${this.lists.length}</formula1></dataValidation>`;
      }
      return `<dataValidation type="decimal" operator="between" allowBlank="1" showInputMessage="1" ${messages} sqref="${sqref}">` +
        `<formula1>${v.decimal.min}</formula1><formula2>${v.decimal.max}</formula2></dataValidation>`;
    });
    if (validations.length) tail += `<dataValidations count="${validations.length}">${validations.join('')}</dataValidations>`;
    tail += '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>';
    await this.write(sheet.stream, tail);
    sheet.stream.end();
    this.sheet = null;
  }

  /** Writes the workbook's other parts and waits until the output has every byte. */
  async finish(): Promise<void> {
    if (this.sheet) await this.endSheet();
    if (this.lists.length) {
      // Drop-down values live on a hidden sheet, one column per list, named so that every
      // spreadsheet program resolves them (direct references to another sheet were not valid before Excel 2010).
      const rows: CellValue[][] = [];
      this.lists.forEach((list, c) => list.forEach((value, r) => { (rows[r] ??= [])[c] = value; }));
      const index = this.sheets.length;
      this.sheets.push({ name: LIST_SHEET, hidden: true });
      const body = rows.map((cells, r) => `<row r="${r + 1}">${cells.map((v, c) => cellXml(`${columnName(c)}${r + 1}`, v, 0)).join('')}</row>`).join('');
      this.add(`xl/worksheets/sheet${index + 1}.xml`, `${XML_HEAD}<worksheet xmlns="${NS}" xmlns:r="${NS_R}"><sheetData>${body}</sheetData>` +
        '<sheetProtection sheet="1" objects="1" scenarios="1"/></worksheet>');
    }
    const names = this.lists.map((list, i) => `<definedName name="_gs_list_${i + 1}">${sheetRef(LIST_SHEET)}!$${columnName(i)}$1:$${columnName(i)}$${Math.max(1, list.length)}</definedName>`).join('');
    this.add('xl/workbook.xml', `${XML_HEAD}<workbook xmlns="${NS}" xmlns:r="${NS_R}"><bookViews><workbookView activeTab="0"/></bookViews><sheets>` +
      this.sheets.map((s, i) => `<sheet name="${xmlText(s.name)}" sheetId="${i + 1}"${s.hidden ? ' state="hidden"' : ''} r:id="rId${i + 1}"/>`).join('') +
      `</sheets>${names ? `<definedNames>${names}</definedNames>` : ''}</workbook>`);
    const rel = (id: string, type: string, target: string) => `<Relationship Id="${id}" Type="${NS_R}/${type}" Target="${target}"/>`;
    this.add('xl/_rels/workbook.xml.rels', `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      this.sheets.map((_, i) => rel(`rId${i + 1}`, 'worksheet', `worksheets/sheet${i + 1}.xml`)).join('') +
      rel(`rId${this.sheets.length + 1}`, 'styles', 'styles.xml') + '</Relationships>');
    this.add('xl/styles.xml', STYLES);
    this.add('_rels/.rels', `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      rel('rId1', 'officeDocument', 'xl/workbook.xml') + '</Relationships>');
    const ct = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
    this.add('[Content_Types].xml', `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
      `<Override PartName="/xl/workbook.xml" ContentType="${ct}.sheet.main+xml"/><Override PartName="/xl/styles.xml" ContentType="${ct}.styles+xml"/>` +
      this.sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="${ct}.worksheet+xml"/>`).join('') + '</Types>');
    this.zip.end();
    await this.done;
  }

  /** Stops writing after a failure: the output ends, incomplete. */
  abort(): void {
    this.sheet?.stream.destroy();
    this.zip.outputStream.unpipe();
  }
}
