// Text in SpreadsheetML cells, both ways: what may stand in XML as it is, what OOXML writes as
// `_xHHHH_` (ECMA-376 Part 1, 22.9.2.19 ST_Xstring), and cell references (A1, B7, AA10).

/** Excel holds at most this many characters (UTF-16 code units) in one cell. */
export const MAX_CELL_CHARS = 32_767;
/** Excel's sheet size. */
export const MAX_COLUMNS = 16_384;
export const MAX_ROWS = 1_048_576;
/** The records one sheet holds: a row each, below the header row. */
export const MAX_RECORDS = MAX_ROWS - 1;

// Characters XML 1.0 cannot carry (controls, U+FFFE/U+FFFF, lone surrogates), CR (XML parsers turn
// CR LF into LF, so Excel writes it as _x000D_), and text that already looks like an escape.
const ESCAPED = /[\u0000-\u0008\u000B-\u001F\uFFFE\uFFFF]|_x[0-9A-Fa-f]{4}_|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|[&<>"]/g;

function escapeOne(c: string): string {
  switch (c) {
    case '&': return '&amp;';
    case '<': return '&lt;';
    case '>': return '&gt;';
    case '"': return '&quot;';
  }
  // A literal "_x0041_" keeps its underscore as _x005F_ so that a reader does not decode it.
  if (c.length === 7) return `_x005F_${c.slice(1)}`;
  return `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`;
}

/** Text as XML character data (or an attribute value) in a SpreadsheetML part: every character comes back on reading. */
export function xmlText(text: string): string {
  return text.replace(ESCAPED, escapeOne);
}

const UNESCAPE = /_x([0-9A-Fa-f]{4})_/g;

/** The inverse of the `_xHHHH_` part of xmlText, for text the XML parser has already decoded. */
export function decodeXstring(text: string): string {
  return text.indexOf('_x') === -1 ? text : text.replace(UNESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Column letters of a 0-based column index: 0 → A, 25 → Z, 26 → AA. */
export function columnName(index: number): string {
  let n = index + 1, name = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    name = String.fromCharCode(65 + r) + name;
    n = Math.floor((n - 1) / 26);
  }
  return name;
}

/** The 0-based column and 1-based row of a reference such as "C12", or null when it is not one. */
export function parseCellRef(ref: string): { column: number; row: number } | null {
  const m = /^([A-Za-z]{1,3})(\d{1,7})$/.exec(ref);
  if (!m) return null;
  let column = 0;
  for (const ch of m[1]!.toUpperCase()) column = column * 26 + (ch.charCodeAt(0) - 64);
  return { column: column - 1, row: Number(m[2]) };
}

/** How wide a text looks in a monospaced sense: East Asian wide and full-width characters count twice. */
export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    w += (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x20000 && cp <= 0x3fffd) ? 2 : 1;
  }
  return w;
}

/** The characters of a sheet's name in Excel. */
export const MAX_SHEET_NAME = 31;

/** A sheet name Excel accepts: at most MAX_SHEET_NAME characters, none of : \\ / ? * [ ], not blank, no apostrophe at either end. */
export function sheetName(text: string): string {
  const name = text.replace(/[:\\/?*[\]\u0000-\u001F]/g, '_').replace(/^'+|'+$/g, '').trim();
  return [...name].slice(0, MAX_SHEET_NAME).join('') || 'Sheet1';
}
