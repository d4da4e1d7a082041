// Reading and filling labelling sheets in tests with goldset's own XLSX library, as a script would.
import fs from 'node:fs';
import { Workbook } from '../../server/xlsx/read.ts';
import { XlsxWriter, type CellValue } from '../../server/xlsx/write.ts';

export interface SheetData { sheets: { name: string; rows: CellValue[][] }[] }

export async function readSheet(file: string): Promise<SheetData> {
  const book = await Workbook.open(file);
  try {
    const sheets: SheetData['sheets'] = [];
    for (const s of book.sheets.filter((x) => !x.hidden)) {
      const rows: CellValue[][] = [];
      for await (const batch of book.rows(s)) for (const r of batch) rows[r.row - 1] = r.cells;
      sheets.push({ name: s.name, rows: Array.from(rows, (r) => r ?? []) });
    }
    return { sheets };
  } finally {
    book.close();
  }
}

/** The labels sheet as records keyed by header. */
export function records(data: SheetData): Record<string, CellValue>[] {
  const [header, ...rows] = data.sheets[0]!.rows;
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [String(h), r[i] ?? null])));
}

/** Writes the sheets again with `edit` applied to each labels row (header-keyed), as an expert's script would fill them. */
export async function fillSheet(data: SheetData, file: string, edit: (row: Record<string, CellValue>, index: number) => void): Promise<void> {
  const w = new XlsxWriter(fs.createWriteStream(file), { mtime: new Date() });
  for (const [si, sheet] of data.sheets.entries()) {
    const [header, ...rows] = sheet.rows;
    await w.startSheet({ name: sheet.name, columns: header!.map((h) => ({ header: String(h), style: 'text' as const })) });
    for (const [i, r] of rows.entries()) {
      if (si > 0) { await w.row(r); continue; }
      const rec = Object.fromEntries(header!.map((h, k) => [String(h), r[k] ?? null]));
      edit(rec, i);
      await w.row(header!.map((h) => rec[String(h)] ?? null));
    }
    await w.endSheet();
  }
  await w.finish();
}
