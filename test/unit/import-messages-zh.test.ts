// Import errors in Chinese carry no English parser text (issue #11.15).
import { describe, expect, it } from 'vitest';
import { rowErrorMessage } from '../../server/importexport/messages.ts';
import { rowError, type RowErrorDetail } from '../../server/io/errors.ts';

const at = { line: 3, unit: 'line' as const, field: 'retrieved_contexts' };
const zh = (d: RowErrorDetail) => rowErrorMessage(rowError(d, at), 'zh');
const noLatinWords = (s: string) => expect(s.replace(/"[^"]*"|“[^”]*”|'[^']*'|\[[^\]]*\]|\.csv|\.jsonl?|JSON|CSV|UTF-8|b'…'/g, '')).not.toMatch(/[A-Za-z]{3,}/);

describe('import errors in Chinese', () => {
  it('translate what JSON.parse and the JSON scanner say', () => {
    for (const detail of ['Unterminated string in JSON at position 17', 'Unexpected token } in JSON at position 3', 'Unexpected end of JSON input',
      "Expected ',' or '}' after property value in JSON at position 40", "unexpected text after the closing ']'", "expected ',' or ']' between records",
      'Bad control character in string literal in JSON at position 9', 'something nobody has seen']) {
      const text = zh({ code: 'invalid_json', params: { detail } });
      noLatinWords(text);
    }
    expect(zh({ code: 'invalid_json', params: { detail: 'Unterminated string in JSON at position 17' } })).toContain('字符串缺少结束引号，约在第 18 个字符处');
  });

  it('translate csv-parse errors by their code, list syntax by its reason and value problems', () => {
    noLatinWords(zh({ code: 'csv_syntax', params: { csvCode: 'CSV_QUOTE_NOT_CLOSED', detail: 'Quote Not Closed: the parsing is finished with an opening quote', fileLine: 4 } }));
    noLatinWords(zh({ code: 'csv_syntax', params: { csvCode: 'CSV_SOMETHING_NEW', detail: 'Some new failure', fileLine: null } }));
    noLatinWords(zh({ code: 'not_a_list', params: { reason: 'unterminated_string', position: 5, detail: 'unterminated string' } }));
    noLatinWords(zh({ code: 'invalid_value', params: { detail: 'must not be negative' } }));
    expect(zh({ code: 'not_a_list', params: { reason: 'unterminated_string', position: 5, detail: 'unterminated string' } })).toContain('列表项缺少结束引号');
  });
});
