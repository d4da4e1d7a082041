// A streaming XLSX reader: yauzl opens the zip by its central directory (so the order of its parts
// does not matter), saxes parses each part as it is inflated, and rows come out in batches while
// the sheet is read. Written on those two libraries rather than with exceljs's WorkbookReader, which
// decodes each chunk on its own and so breaks Chinese characters that straddle two chunks, and
// decodes entities twice in inline strings (see README, "XLSX").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { SaxesParser } from 'saxes';
import { MAX_COLUMNS, MAX_ROWS, decodeXstring, parseCellRef } from './text.ts';

export type XlsxValue = string | number | boolean | null;
/** `row` is the row number as the spreadsheet shows it; `cells[i]` is column i (A = 0). */
export interface XlsxRow { row: number; cells: XlsxValue[] }
export interface XlsxSheet { name: string; hidden: boolean; part: string }

export class XlsxReadError extends Error {
  constructor(readonly code: 'not_xlsx' | 'no_sheet' | 'too_large', message: string, readonly sheets: string[] = []) { super(message); }
}

/** No part of a workbook may inflate to more than this (a zip bomb stops here, not at the disk's end). */
export const MAX_PART_BYTES = 2 * 1024 ** 3;
/** Small parts (workbook, relationships, styles) are read whole, up to this. */
const MAX_SMALL_PART_BYTES = 32 * 1024 * 1024;
/** Shared strings held in memory; beyond this many characters they go to a temporary file. */
const STRINGS_IN_MEMORY_CHARS = 16 * 1024 * 1024;

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** The attribute whose local name is `name` (attributes of other namespaces carry a prefix). */
function attr(attributes: Record<string, string>, name: string, prefixed = false): string | undefined {
  for (const key in attributes) {
    const colon = key.indexOf(':');
    if ((prefixed ? colon > 0 : colon === -1) && key.slice(colon + 1) === name) return attributes[key];
  }
  return undefined;
}

/** Shared strings: in memory up to a budget, then appended to a temporary file and read back by offset. */
class StringTable {
  private readonly memory: string[] = [];
  private chars = 0;
  private fd: number | null = null;
  private file = '';
  private offsets: number[] = [];
  private size = 0;

  push(text: string): void {
    if (this.fd === null && this.chars + text.length <= STRINGS_IN_MEMORY_CHARS) {
      this.memory.push(text);
      this.chars += text.length;
      return;
    }
    if (this.fd === null) {
      this.file = path.join(os.tmpdir(), `goldset-xlsx-${crypto.randomUUID()}.strings`);
      this.fd = fs.openSync(this.file, 'w+');
    }
    const bytes = Buffer.from(text, 'utf8');
    fs.writeSync(this.fd, bytes, 0, bytes.length, this.size);
    this.offsets.push(this.size);
    this.size += bytes.length;
  }

  get(index: number): string | undefined {
    if (index < this.memory.length) return this.memory[index];
    const i = index - this.memory.length;
    if (this.fd === null || i >= this.offsets.length) return undefined;
    const start = this.offsets[i]!, end = i + 1 < this.offsets.length ? this.offsets[i + 1]! : this.size;
    const bytes = Buffer.alloc(end - start);
    fs.readSync(this.fd, bytes, 0, bytes.length, start);
    return bytes.toString('utf8');
  }

  close(): void {
    if (this.fd !== null) { fs.closeSync(this.fd); fs.rmSync(this.file, { force: true }); this.fd = null; }
  }
}

// Number formats that show a date or time: Excel's built-in ones, and custom codes with date letters
// outside quoted text, [colour]/[$-locale] brackets and escaped characters.
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);
function isDateCode(code: string): boolean {
  const bare = code.replace(/"[^"]*"|\[[^\]]*\]|\\./g, '');
  return /[dmyhs]/i.test(bare) && !/^general$/i.test(bare.trim());
}

/** A date cell's serial number as ISO 8601 (date only when it has no time of day). */
export function serialToIso(serial: number, date1904: boolean): string {
  // Excel's 1900 system counts a 29 February 1900 that never was: serials from 61 on are one day ahead.
  const days = date1904 ? serial + 1462 : serial < 61 ? serial + 1 : serial;
  const ms = Math.round((days - 25569) * 86_400_000);
  const iso = new Date(ms).toISOString();
  return ms % 86_400_000 === 0 ? iso.slice(0, 10) : iso.slice(0, 19);
}

interface Cell { column: number; type: string; style: number; value: string; hasValue: boolean }

/** An open workbook: its sheets in workbook order, then the rows of one of them. */
export class Workbook {
  private strings: StringTable | null = null;
  private dateStyles = new Set<number>();
  private date1904 = false;
  private stringsPart: string | null = null;
  sheets: XlsxSheet[] = [];

  private constructor(private readonly zip: yauzl.ZipFile, private readonly entries: Map<string, yauzl.Entry>) {}

  static async open(file: string): Promise<Workbook> {
    let zip: yauzl.ZipFile;
    try {
      zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
        yauzl.open(file, { lazyEntries: true, autoClose: false, strictFileNames: false }, (err, z) => (err ? reject(err) : resolve(z))));
    } catch (e) {
      throw new XlsxReadError('not_xlsx', `not an .xlsx workbook (${(e as Error).message})`);
    }
    const entries = new Map<string, yauzl.Entry>();
    try {
      await new Promise<void>((resolve, reject) => {
        zip.on('entry', (entry: yauzl.Entry) => { entries.set(entry.fileName.replace(/^\//, ''), entry); zip.readEntry(); });
        zip.once('end', resolve);
        zip.once('error', reject);
        zip.readEntry();
      });
      const book = new Workbook(zip, entries);
      await book.readStructure();
      return book;
    } catch (e) {
      zip.close();
      if (e instanceof XlsxReadError) throw e;
      throw new XlsxReadError('not_xlsx', `not a readable .xlsx workbook (${(e as Error).message})`);
    }
  }

  close(): void {
    this.strings?.close();
    this.zip.close();
  }

  /** The sheet named (exactly, else ignoring case), or the first one. */
  sheet(name?: string): XlsxSheet {
    const names = this.sheets.map((s) => s.name);
    const found = name === undefined ? this.sheets[0]
      : this.sheets.find((s) => s.name === name) ?? this.sheets.find((s) => s.name.toLowerCase() === name.toLowerCase());
    if (!found) throw new XlsxReadError('no_sheet', name === undefined ? 'the workbook has no sheet' : `no sheet named "${name}"`, names);
    return found;
  }

  private stream(part: string): Promise<Readable> {
    const entry = this.entries.get(part);
    if (!entry) throw new XlsxReadError('not_xlsx', `the workbook has no part ${part}`);
    if (entry.uncompressedSize > MAX_PART_BYTES) throw new XlsxReadError('too_large', `${part} inflates to ${entry.uncompressedSize} bytes`);
    return new Promise((resolve, reject) => this.zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))));
  }

  /** Parses a part as it inflates; `onChunk` runs after each chunk's events (where rows are taken). */
  private async *parse(part: string, handlers: {
    open(name: string, attributes: Record<string, string>): void; text(text: string): void; close(name: string): void;
  }): AsyncGenerator<void> {
    const parser = new SaxesParser();
    let failure: Error | null = null;
    parser.on('error', (e) => { failure ??= e; });
    parser.on('opentag', (node) => handlers.open(localName(node.name), node.attributes as Record<string, string>));
    parser.on('text', handlers.text);
    parser.on('cdata', handlers.text);
    parser.on('closetag', (node) => handlers.close(localName(node.name)));
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let bytes = 0;
    const stream = await this.stream(part);
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > MAX_PART_BYTES) throw new XlsxReadError('too_large', `${part} inflates to more than ${MAX_PART_BYTES} bytes`);
        // One decoder for the whole part: a character split between two chunks stays whole.
        parser.write(decoder.decode(chunk, { stream: true }));
        if (failure) throw failure;
        yield;
      }
      parser.write(decoder.decode()).close();
      if (failure) throw failure;
      yield;
    } catch (e) {
      if (e instanceof XlsxReadError) throw e;
      throw new XlsxReadError('not_xlsx', `${part} is not well-formed (${(e as Error).message})`);
    } finally {
      stream.destroy();
    }
  }

  private async smallPart(part: string, handlers: Parameters<Workbook['parse']>[1]): Promise<void> {
    const entry = this.entries.get(part);
    if (entry && entry.uncompressedSize > MAX_SMALL_PART_BYTES) throw new XlsxReadError('too_large', `${part} is ${entry.uncompressedSize} bytes`);
    for await (const _ of this.parse(part, handlers)) { /* parsed by the handlers */ }
  }

  /** The relationships of a part: id → { type, target as a part name }. */
  private async relationships(of: string): Promise<Map<string, { type: string; target: string }>> {
    const dir = path.posix.dirname(of);
    const relsPart = path.posix.join(dir, '_rels', `${path.posix.basename(of)}.rels`).replace(/^\.\//, '');
    const out = new Map<string, { type: string; target: string }>();
    if (!this.entries.has(relsPart)) return out;
    await this.smallPart(relsPart, {
      open: (name, a) => {
        if (name !== 'Relationship' || a.TargetMode === 'External' || !a.Id || !a.Target) return;
        const target = a.Target.startsWith('/') ? a.Target.slice(1) : path.posix.normalize(path.posix.join(dir, a.Target));
        out.set(a.Id, { type: (a.Type ?? '').slice((a.Type ?? '').lastIndexOf('/') + 1), target });
      },
      text: () => {}, close: () => {},
    });
    return out;
  }

  private async readStructure(): Promise<void> {
    const root = await this.relationships('');
    const workbookPart = [...root.values()].find((r) => r.type === 'officeDocument')?.target ?? 'xl/workbook.xml';
    if (!this.entries.has(workbookPart)) throw new XlsxReadError('not_xlsx', 'not an .xlsx workbook (it has no workbook part)');
    const rels = await this.relationships(workbookPart);
    const listed: { name: string; hidden: boolean; rid: string }[] = [];
    await this.smallPart(workbookPart, {
      open: (name, a) => {
        if (name === 'sheet') listed.push({ name: a.name ?? '', hidden: (a.state ?? 'visible') !== 'visible', rid: attr(a, 'id', true) ?? '' });
        else if (name === 'workbookPr') this.date1904 = a.date1904 === '1' || a.date1904 === 'true';
      },
      text: () => {}, close: () => {},
    });
    // Chart sheets and dialog sheets are listed too; only worksheets have rows.
    this.sheets = listed.flatMap((s) => {
      const rel = rels.get(s.rid);
      return rel && rel.type === 'worksheet' && this.entries.has(rel.target) ? [{ name: s.name, hidden: s.hidden, part: rel.target }] : [];
    });
    const rel = (type: string) => [...rels.values()].find((r) => r.type === type)?.target;
    this.stringsPart = rel('sharedStrings') ?? null;
    const stylesPart = rel('styles');
    if (stylesPart && this.entries.has(stylesPart)) await this.readDateStyles(stylesPart);
  }

  private async readDateStyles(part: string): Promise<void> {
    const custom = new Map<number, string>();
    let inCellXfs = false, xf = 0;
    await this.smallPart(part, {
      open: (name, a) => {
        if (name === 'numFmt' && a.numFmtId) custom.set(Number(a.numFmtId), a.formatCode ?? '');
        else if (name === 'cellXfs') inCellXfs = true;
        else if (name === 'xf' && inCellXfs) {
          const id = Number(a.numFmtId ?? 0);
          if (BUILTIN_DATE_FORMATS.has(id) || (custom.has(id) && isDateCode(custom.get(id)!))) this.dateStyles.add(xf);
          xf++;
        }
      },
      text: () => {},
      close: (name) => { if (name === 'cellXfs') inCellXfs = false; },
    });
  }

  private async readStrings(): Promise<StringTable> {
    const table = new StringTable();
    if (!this.stringsPart || !this.entries.has(this.stringsPart)) return table;
    let text: string[] | null = null, inT = false, phonetic = 0;
    for await (const _ of this.parse(this.stringsPart, {
      open: (name) => {
        if (name === 'si') text = [];
        else if (name === 'rPh') phonetic++;
        else if (name === 't' && phonetic === 0) inT = true;
      },
      text: (t) => { if (inT) text?.push(t); },
      close: (name) => {
        if (name === 't') inT = false;
        else if (name === 'rPh') phonetic--;
        else if (name === 'si' && text) { table.push(decodeXstring(text.join(''))); text = null; }
      },
    })) { /* collected by the handlers */ }
    return table;
  }

  /** The rows of a sheet that have any value, in batches as the sheet is read. */
  async *rows(sheet: XlsxSheet): AsyncGenerator<XlsxRow[]> {
    const strings = (this.strings ??= await this.readStrings());
    let batch: XlsxRow[] = [];
    let rowNumber = 0, cells: XlsxValue[] = [], any = false, cell: Cell | null = null, lastColumn = -1;
    let capture: 'v' | 'is' | null = null, inlineText = false, phonetic = 0, inSheetData = false;

    const valueOf = (c: Cell): XlsxValue => {
      if (!c.hasValue) return null;
      switch (c.type) {
        case 's': {
          const s = strings.get(Number(c.value));
          if (s === undefined) throw new XlsxReadError('not_xlsx', `cell ${c.column} of row ${rowNumber} refers to shared string ${c.value}, which the workbook does not have`);
          return s;
        }
        case 'inlineStr': case 'str': return decodeXstring(c.value);
        case 'b': return c.value.trim() === '1' || c.value.trim().toLowerCase() === 'true';
        case 'e': return c.value;
        case 'd': return c.value;
        default: {
          const n = Number(c.value);
          if (c.value.trim() === '' || !Number.isFinite(n)) return c.value;
          return this.dateStyles.has(c.style) ? serialToIso(n, this.date1904) : n;
        }
      }
    };

    for await (const _ of this.parse(sheet.part, {
      open: (name, a) => {
        if (name === 'sheetData') inSheetData = true;
        if (!inSheetData) return;
        if (name === 'row') {
          rowNumber = a.r ? Number(a.r) : rowNumber + 1;
          if (!Number.isInteger(rowNumber) || rowNumber < 1 || rowNumber > MAX_ROWS) throw new XlsxReadError('not_xlsx', `row number ${a.r} is outside a sheet`);
          cells = []; any = false; lastColumn = -1;
        } else if (name === 'c') {
          const ref = a.r ? parseCellRef(a.r) : null;
          const column = ref ? ref.column : lastColumn + 1;
          if (column >= MAX_COLUMNS) throw new XlsxReadError('not_xlsx', `cell ${a.r ?? column} is outside a sheet`);
          lastColumn = column;
          cell = { column, type: a.t ?? 'n', style: Number(a.s ?? 0), value: '', hasValue: false };
        } else if (cell && name === 'v') { capture = 'v'; cell.hasValue = true; }
        else if (cell && name === 'is') { capture = 'is'; cell.hasValue = true; }
        else if (name === 't' && capture === 'is') inlineText = true;
        else if (name === 'rPh') phonetic++;
      },
      text: (t) => {
        // Inline strings: only the text of <t> elements (not the layout between them), without phonetic runs.
        if (cell && (capture === 'v' || (inlineText && phonetic === 0))) cell.value += t;
      },
      close: (name) => {
        if (name === 'sheetData') inSheetData = false;
        else if (name === 'v' || name === 'is') capture = null;
        else if (name === 't') inlineText = false;
        else if (name === 'rPh') phonetic--;
        else if (name === 'c' && cell) {
          const v = valueOf(cell);
          if (v !== null && v !== '') { cells[cell.column] = v; any = true; }
          cell = null;
        } else if (name === 'row' && inSheetData) {
          if (any) {
            for (let i = 0; i < cells.length; i++) if (cells[i] === undefined) cells[i] = null;
            batch.push({ row: rowNumber, cells });
          }
        }
      },
    })) {
      if (batch.length) { yield batch; batch = []; }
    }
    if (batch.length) yield batch;
  }
}
