// The XLSX writer and reader: every text comes back exactly, text that looks like a formula is
// written as a string cell (checked in the written XML), limits, reproducible bytes, and workbooks
// saved by LibreOffice and openpyxl (fixtures made by test/xlsx/fixtures/make_fixtures.sh).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { XlsxLimitError, XlsxWriter, type CellValue, type SheetSpec } from '../../server/xlsx/write.ts';
import { Workbook, XlsxReadError, serialToIso, type XlsxRow } from '../../server/xlsx/read.ts';
import { decodeXstring, xmlText } from '../../server/xlsx/text.ts';
import { FIXTURE_TEXTS } from './fixtures/texts.ts';
import { xlsxPart } from './parts.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-xlsx-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const FIXTURES = path.join(import.meta.dirname, 'fixtures');

async function write(name: string, rows: CellValue[][], spec: Partial<SheetSpec> = {}, mtime = new Date('2026-12-01T08:00:00Z')): Promise<string> {
  const file = path.join(dir, name);
  const w = new XlsxWriter(fs.createWriteStream(file), { mtime });
  await w.startSheet({ name: 'Data', columns: [{ header: 'text', style: 'wrap' }, { header: 'n', style: 'number', width: 10 }], ...spec });
  for (const r of rows) await w.row(r);
  await w.finish();
  return file;
}

async function readRows(file: string, sheet?: string): Promise<XlsxRow[]> {
  const book = await Workbook.open(file);
  try {
    const out: XlsxRow[] = [];
    for await (const batch of book.rows(book.sheet(sheet))) out.push(...batch);
    return out;
  } finally {
    book.close();
  }
}

/** The text of one part of a zip file. */

describe('XLSX text', () => {
  it('escapes what XML cannot carry as _xHHHH_ and decodes it back, a literal _x0041_ included', () => {
    for (const t of ['\u0001', '\r\n', '_x0041_', 'a_x00ZZ_b', '\ud800', '\uffff', '<&>"']) expect(decodeXstring(xmlText(t).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&'))).toBe(t);
    expect(xmlText('_x0041_')).toBe('_x005F_x0041_');
    expect(xmlText('a\rb')).toBe('a_x000D_b');
  });

  it('reads Excel date serials in the 1900 and 1904 systems', () => {
    expect(serialToIso(45627, false)).toBe('2024-12-01');
    expect(serialToIso(45627.5, false)).toBe('2024-12-01T12:00:00');
    expect(serialToIso(59, false)).toBe('1900-02-28');
    expect(serialToIso(61, false)).toBe('1900-03-01');
    expect(serialToIso(44165, true)).toBe('2024-12-01');
  });
});

describe('XLSX round trip', () => {
  it('gives back every text, number, boolean and empty cell exactly', async () => {
    const rows: CellValue[][] = FIXTURE_TEXTS.map((t, i) => [t, i + 0.5]);
    rows.push([null, true], ['', false], ['end', -1e-7]);
    const back = await readRows(await write('all.xlsx', rows));
    expect(back[0]).toEqual({ row: 1, cells: ['text', 'n'] });
    FIXTURE_TEXTS.forEach((t, i) => expect(back[i + 1]).toEqual({ row: i + 2, cells: [t, i + 0.5] }));
    expect(back.slice(-3).map((r) => r.cells)).toEqual([[null, true], [null, false], ['end', -1e-7]]);
  });

  it('writes text that starts with =, +, -, @, tab or CR as a string cell, never a formula', async () => {
    const formulaLike = ['=1+1', '=HYPERLINK("http://example.com","x")', '+SUM(A1)', '-2+3', '@SUM(A1)', '\t=1', '\r=1', '=cmd|\' /C calc\'!A0'];
    const file = await write('formulas.xlsx', formulaLike.map((t) => [t, null]));
    const xml = await xlsxPart(file, 'xl/worksheets/sheet1.xml');
    expect(xml).not.toContain('<f>');
    expect(xml).not.toContain('<f ');
    const cells = [...xml.matchAll(/<c r="A(\d+)"([^>]*)>/g)].filter((m) => Number(m[1]) > 1);
    expect(cells).toHaveLength(formulaLike.length);
    for (const c of cells) expect(c[2]).toContain('t="inlineStr"');
    expect((await readRows(file)).slice(1).map((r) => r.cells[0])).toEqual(formulaLike);
  });

  it('keeps Chinese text whole wherever the inflated part is cut into chunks', async () => {
    const rows: CellValue[][] = Array.from({ length: 6000 }, (_, i) => [`第${i}个问题：张伟是哪个部门的？新员工入职第一周需要完成什么？`, i]);
    const back = await readRows(await write('zh.xlsx', rows));
    expect(back).toHaveLength(6001);
    expect(back.slice(1).filter((r, i) => r.cells[0] !== rows[i]![0]).length).toBe(0);
  });

  it('refuses a text longer than a cell holds (32,767 characters) and takes one that fits', async () => {
    await expect(write('long.xlsx', [['x'.repeat(32_768), 1]])).rejects.toBeInstanceOf(XlsxLimitError);
    const back = await readRows(await write('fits.xlsx', [['字'.repeat(32_767), 1]]));
    expect(back[1]!.cells[0]).toBe('字'.repeat(32_767));
  });

  it('writes the same bytes for the same rows', async () => {
    const rows: CellValue[][] = [['a', 1], ['张伟', 2]];
    const a = fs.readFileSync(await write('same-a.xlsx', rows, { validations: [{ column: 1, list: ['1', '2'], title: 't', message: 'm' }] }));
    const b = fs.readFileSync(await write('same-b.xlsx', rows, { validations: [{ column: 1, list: ['1', '2'], title: 't', message: 'm' }] }));
    expect(Buffer.compare(a, b)).toBe(0);
  });

  it('freezes the header, sets the widths, and protects all but the editable cells', async () => {
    const file = path.join(dir, 'protected.xlsx');
    const w = new XlsxWriter(fs.createWriteStream(file), { mtime: new Date(0) });
    await w.startSheet({ name: '标注', freezeHeader: true, protect: true, columns: [{ header: 'question', style: 'wrap', width: 50 }, { header: 'correct', style: 'editable' }],
      validations: [{ column: 1, list: ['Yes', 'No'], title: 'Not allowed', message: 'Pick Yes or No' }] });
    await w.row(['张伟是哪个部门的？', null]);
    await w.finish();
    const sheet = await xlsxPart(file, 'xl/worksheets/sheet1.xml');
    expect(sheet).toContain('state="frozen"');
    expect(sheet).toContain('<col min="1" max="1" width="50" customWidth="1" style="2"/>');
    expect(sheet).toContain('<sheetProtection sheet="1"');
    expect(sheet).toContain('<dataValidation type="list" allowBlank="1" showInputMessage="1" showErrorMessage="1" errorTitle="Not allowed" error="Pick Yes or No" sqref="B2:B2"><formula1>_gs_list_1</formula1>');
    expect(await xlsxPart(file, 'xl/workbook.xml')).toContain('<definedName name="_gs_list_1">_goldset_lists!$A$1:$A$2</definedName>');
    expect(await xlsxPart(file, 'xl/styles.xml')).toContain('<protection locked="0"/>');
    const book = await Workbook.open(file);
    expect(book.sheets.map((s) => [s.name, s.hidden])).toEqual([['标注', false], ['_goldset_lists', true]]);
    book.close();
  });

  it('names the sheets a workbook has when the one asked for is missing', async () => {
    const book = await Workbook.open(await write('named.xlsx', [['a', 1]]));
    expect(() => book.sheet('Nope')).toThrow(XlsxReadError);
    expect(book.sheet('data').name).toBe('Data');
    book.close();
  });

  it('reports a file that is not a workbook', async () => {
    const file = path.join(dir, 'not.xlsx');
    fs.writeFileSync(file, 'question,answer\n');
    await expect(Workbook.open(file)).rejects.toMatchObject({ code: 'not_xlsx' });
  });
});

describe('workbooks saved by other programs', () => {
  for (const program of ['libreoffice', 'openpyxl']) {
    it(`reads back every text of a sheet saved by ${program} (shared strings, its own styles)`, async () => {
      const rows = await readRows(path.join(FIXTURES, `texts-${program}.xlsx`));
      const texts = rows.slice(1).map((r) => r.cells[0]);
      // LibreOffice turns CR LF inside a cell into LF, and the lone surrogate (not Unicode text) with the space after it into "?".
      const expected = FIXTURE_TEXTS.map((t) => (program !== 'libreoffice' ? t : t === 'lone \ud800 surrogate' ? 'lone ?surrogate' : t.replace(/\r\n/g, '\n')));
      expect(texts).toEqual(expected);
      expect(rows.slice(1).map((r) => r.cells[1])).toEqual(FIXTURE_TEXTS.map((_, i) => i + 0.5));
    });
  }

  it('reads a date cell written by openpyxl as an ISO date', async () => {
    const rows = await readRows(path.join(FIXTURES, 'texts-openpyxl.xlsx'), 'dates');
    expect(rows.map((r) => r.cells)).toEqual([['when'], ['2026-12-01'], ['2026-12-01T09:30:00']]);
  });
});
