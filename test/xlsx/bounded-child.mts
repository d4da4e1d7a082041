// Run by bounded.test.ts in a process whose heap is capped below the size of the text it reads:
// writes a workbook of inline strings (goldset's writer) and one of shared strings (as Excel writes
// them), reads both back row by row, and prints what it found.
import fs from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';
import { XlsxWriter } from '../../server/xlsx/write.ts';
import { Workbook } from '../../server/xlsx/read.ts';
import { xmlText } from '../../server/xlsx/text.ts';

const [dir, rowsArg, charsArg] = process.argv.slice(2);
const rows = Number(rowsArg), chars = Number(charsArg);
const text = (i: number) => `${i}:` + '张伟是哪个部门的新员工入职第一周需要完成什么'.repeat(Math.ceil(chars / 20)).slice(0, chars);

async function count(file: string): Promise<{ rows: number; ok: number }> {
  const book = await Workbook.open(file);
  let n = 0, ok = 0;
  for await (const batch of book.rows(book.sheet())) for (const r of batch) { n++; if (r.cells[0] === text(r.row)) ok++; }
  book.close();
  return { rows: n, ok };
}

const inline = path.join(dir!, 'inline.xlsx');
const w = new XlsxWriter(fs.createWriteStream(inline), { mtime: new Date(0) });
await w.startSheet({ name: 'S', columns: [{ header: 'text', style: 'wrap', width: 60 }] });
for (let i = 2; i <= rows + 1; i++) await w.row([text(i)]);
await w.finish();

// Shared strings, written by hand: the layout Excel, LibreOffice and openpyxl save.
const shared = path.join(dir!, 'shared.xlsx');
const zip = new yazl.ZipFile();
const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main', R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
zip.addBuffer(Buffer.from(`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`), '[Content_Types].xml');
zip.addBuffer(Buffer.from(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="${R}/officeDocument" Target="xl/workbook.xml"/></Relationships>`), '_rels/.rels');
zip.addBuffer(Buffer.from(`<workbook xmlns="${NS}" xmlns:r="${R}"><sheets><sheet name="S" sheetId="1" r:id="r1"/></sheets></workbook>`), 'xl/workbook.xml');
zip.addBuffer(Buffer.from(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="r2" Type="${R}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`), 'xl/_rels/workbook.xml.rels');
function* sheetXml() {
  yield `<worksheet xmlns="${NS}"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row>`;
  for (let i = 2; i <= rows + 1; i++) yield `<row r="${i}"><c r="A${i}" t="s"><v>${i - 1}</v></c></row>`;
  yield '</sheetData></worksheet>';
}
function* stringsXml() {
  yield `<sst xmlns="${NS}" count="${rows + 1}" uniqueCount="${rows + 1}"><si><t>text</t></si>`;
  for (let i = 2; i <= rows + 1; i++) yield `<si><r><t>${xmlText(text(i).slice(0, 5))}</t></r><r><rPr><b/></rPr><t>${xmlText(text(i).slice(5))}</t></r><rPh><t>ふりがな</t></rPh></si>`;
  yield '</sst>';
}
const { Readable } = await import('node:stream');
zip.addReadStream(Readable.from(sheetXml()), 'xl/worksheets/sheet1.xml');
zip.addReadStream(Readable.from(stringsXml()), 'xl/sharedStrings.xml');
zip.end();
await new Promise<void>((resolve) => zip.outputStream.pipe(fs.createWriteStream(shared)).on('close', () => resolve()));

const result = { inline: await count(inline), shared: await count(shared), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), textMb: Math.round((rows * chars * 2) / 2 ** 20) };
console.log(JSON.stringify(result));
