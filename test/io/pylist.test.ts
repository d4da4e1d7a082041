import { describe, it, expect } from 'vitest';
import { ParseError, parseListCell, parseListCellLenient } from '../../server/io/pylist.ts';

function parseError(text: string): ParseError {
  try {
    parseListCell(text);
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

describe('parseListCell: Python repr lists', () => {
  it('parses the repr pandas writes, with both quote styles and quotes inside', () => {
    // Python: repr(['a', "it's", 'say "hi"', 'both \' and "'])
    expect(parseListCell(`['a', "it's", 'say "hi"', 'both \\' and "']`)).toEqual(['a', "it's", 'say "hi"', `both ' and "`]);
  });

  it('decodes backslash escapes', () => {
    const cell = String.raw`['line\nbreak', 'tab\there', 'cr\r', 'back\\slash', '\x41', '\u4e2d', '\U0001F600', 'q\'', "d\"", '\0', '\101']`;
    expect(parseListCell(cell)).toEqual(['line\nbreak', 'tab\there', 'cr\r', 'back\\slash', 'A', '中', '😀', "q'", 'd"', '\0', 'A']);
  });

  it('keeps unknown escapes verbatim, as Python does', () => {
    expect(parseListCell(String.raw`['C:\data\d']`)).toEqual(['C:\\data\\d']);
  });

  it('keeps unicode and Chinese text as is', () => {
    const cell = "['张伟 教研部工程师，他最近在负责课程研发', '🙂 emoji', 'café']";
    expect(parseListCell(cell)).toEqual(['张伟 教研部工程师，他最近在负责课程研发', '🙂 emoji', 'café']);
  });

  it('handles empty lists, empty cells, whitespace and trailing commas', () => {
    expect(parseListCell('[]')).toEqual([]);
    expect(parseListCell('  [ ]  ')).toEqual([]);
    expect(parseListCell('')).toEqual([]);
    expect(parseListCell('   ')).toEqual([]);
    expect(parseListCell("['a',]")).toEqual(['a']);
    expect(parseListCell("[\n  'a' ,\n\t'b' ,\n]")).toEqual(['a', 'b']);
    expect(parseListCell("['']")).toEqual(['']);
  });

  it('accepts tuples, u/r prefixes and raw line breaks inside items', () => {
    expect(parseListCell("('a', 'b')")).toEqual(['a', 'b']);
    expect(parseListCell("('a',)")).toEqual(['a']);
    expect(parseListCell('()')).toEqual([]);
    expect(parseListCell("[u'a', r'\\n']")).toEqual(['a', '\\n']);
    expect(parseListCell("['typed in\nExcel']")).toEqual(['typed in\nExcel']);
  });

  it('accepts JSON arrays', () => {
    expect(parseListCell('["a","b"]')).toEqual(['a', 'b']);
    expect(parseListCell('["\\u4e2d\\/x", "\\ud83d\\ude00"]')).toEqual(['中/x', '😀']);
  });
});

describe('parseListCell: errors', () => {
  it('reports an unterminated string at its opening quote', () => {
    const e = parseError("['a', 'bc");
    expect(e.reason).toBe('unterminated_string');
    expect(e.position).toBe(7);
    expect(e.message).toMatch(/unterminated string.*position 7/);
  });

  it('reports a missing closing bracket at the end', () => {
    const e = parseError("['a', 'b'");
    expect(e.reason).toBe('unterminated_list');
    expect(e.position).toBe(10);
    expect(e.message).toContain("missing closing ']'");
  });

  it('counts positions in characters, not UTF-16 units', () => {
    // [ ' 😀 😀 ' , space x: the x is the 8th character although it is the 10th UTF-16 unit
    expect(parseError("['😀😀', x]").position).toBe(8);
  });

  it('rejects plain text, non-string items, mismatched brackets and trailing text', () => {
    expect(parseError('just text').reason).toBe('not_a_list');
    expect(parseError('[1, 2]').reason).toBe('expected_string');
    expect(parseError('[None]').reason).toBe('expected_string');
    expect(parseError("['a')").reason).toBe('mismatched_bracket');
    expect(parseError("['a'] tail").reason).toBe('trailing_text');
    expect(parseError("[, 'a']").reason).toBe('expected_string');
    expect(parseError("['a' 'b']").message).toContain('numpy');
  });

  it('rejects bad and unsupported escapes and bytes literals', () => {
    expect(parseError(String.raw`['\x4']`).reason).toBe('bad_escape');
    expect(parseError(String.raw`['\U00110000']`).reason).toBe('bad_escape');
    expect(parseError(String.raw`['\N{BULLET}']`).reason).toBe('unsupported_escape');
    expect(parseError("[b'a']").reason).toBe('bytes_literal');
    expect(parseError("['a\\").reason).toBe('unterminated_string');
  });
});

describe('parseListCellLenient', () => {
  it('treats plain text as one item and empty as none', () => {
    expect(parseListCellLenient('a single passage')).toEqual(['a single passage']);
    expect(parseListCellLenient('(see section 3) details')).toEqual(['(see section 3) details']);
    expect(parseListCellLenient('(not a tuple)')).toEqual(['(not a tuple)']);
    expect(parseListCellLenient(' ')).toEqual([]);
    expect(parseListCellLenient("['a', 'b']")).toEqual(['a', 'b']);
  });

  it('still rejects a malformed list: a cell starting with [ is meant as a list', () => {
    expect(() => parseListCellLenient("['a', 'b")).toThrow(ParseError);
  });
});
