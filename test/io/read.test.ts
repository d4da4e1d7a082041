import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { detectFormat, readImport, readImportFile } from '../../server/io/index.ts';
import type { ImportFormat, ImportItem, ImportRow, RowError } from '../../server/io/index.ts';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

async function collect(items: AsyncIterable<ImportItem>): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

function rows(items: ImportItem[]): ImportRow[] {
  return items.flatMap((i) => ('row' in i ? [i.row] : []));
}

function errors(items: ImportItem[]): RowError[] {
  return items.flatMap((i) => ('errors' in i ? i.errors : []));
}

/** Reads text split into small chunks, so values cross chunk boundaries as in a real stream. */
function fromText(text: string, format: ImportFormat, chunkSize = 7): Promise<ImportItem[]> {
  const buf = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < buf.length; i += chunkSize) chunks.push(buf.subarray(i, i + chunkSize));
  return collect(readImport(Readable.from(chunks), { format }));
}

describe('detectFormat', () => {
  it('uses the extension, case-insensitively', () => {
    expect(detectFormat('results.CSV')).toBe('csv');
    expect(detectFormat('a.jsonl')).toBe('jsonl');
    expect(detectFormat('a.ndjson')).toBe('jsonl');
    expect(detectFormat('dir.v2/a.json')).toBe('json');
    expect(detectFormat('a.XLSX')).toBe('xlsx');
    expect(detectFormat('old.xls')).toBe(null);
    expect(detectFormat('upload-4f2a')).toBe(null);
  });

  it('reports an unknown format as a file-level error', async () => {
    const items = await collect(readImportFile(fixture('ragas_results.csv'), { filename: 'results.xls' }));
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ line: 0, error: { code: 'unknown_format', params: { filename: 'results.xls' } } });
  });
});

describe('file-system errors', () => {
  it('rejects (does not hang) when the file cannot be read: that is a server fault, not a row error', async () => {
    for (const name of ['missing.csv', 'missing.jsonl', 'missing.json']) {
      await expect(collect(readImportFile(fixture(name)))).rejects.toThrow(/ENOENT/);
    }
  });
});

describe('CSV', () => {
  it('reads a Ragas results CSV as pandas writes it', async () => {
    const items = await collect(readImportFile(fixture('ragas_results.csv')));
    expect(errors(items)).toEqual([]);
    // The second data row has a two-line answer; the third is still spreadsheet row 4.
    expect(items.map((i) => i.line)).toEqual([2, 3, 4]);
    const [first, second, third] = rows(items);
    expect(first?.sample).toMatchObject({ question: '谁负责课程研发？', ground_truth: '张伟' });
    expect(first?.response?.retrieved_contexts).toEqual(['张伟 教研部工程师，他最近在负责课程研发', `It's the "curriculum" team\nsecond line`]);
    expect(first?.scores).toEqual({ faithfulness: 1, answer_correctness: 0.8333333333333334 });
    expect(second?.response?.retrieved_contexts).toEqual(['a backslash: \\', 'tab\there', '\x01 control']);
    expect(second?.response?.answer).toBe('A newline escape.\nIt spans two lines.');
    expect(second?.sample.question).toBe('What is \\n in Python?');
    expect(second?.scores).toEqual({ faithfulness: null, answer_correctness: 0.25 });
    expect(third?.response?.retrieved_contexts).toEqual([]);
    expect(third?.scores['answer_correctness']).toBe(null);
  });

  it('reads an old-style Ragas CSV saved with a BOM', async () => {
    const items = await collect(readImportFile(fixture('ragas_old.csv')));
    expect(errors(items)).toEqual([]);
    const [first, second] = rows(items);
    expect(first?.sample).toMatchObject({ question: '退货期限是多久？', ground_truth: '7天' });
    expect(first?.response).toEqual({
      answer: '七天无理由退货。',
      retrieved_contexts: ['退货政策：自签收之日起七天内可无理由退货。'],
      system: null,
      metadata: { model: null, latency_ms: null, cost: null },
    });
    expect(second?.response?.retrieved_contexts).toEqual(['Hamlet is a tragedy written by William Shakespeare.', 'He said "to be"']);
  });

  it('handles BOM, CRLF, quoted multi-line cells, blank rows, labels and unknown columns', async () => {
    const csv =
      '\uFEFFQuestion,Contexts,Answer,faithfulness,human.correct,reviewer\r\n' +
      '"first\r\nquestion","[\'c1\', ""c \'2\'""]",A1,0.5,yes,amy\r\n' +
      '\r\n' +
      'second,[],A2,,,bob\r\n';
    const items = await fromText(csv, 'csv');
    expect(errors(items)).toEqual([]);
    expect(items.map((i) => i.line)).toEqual([2, 4]);
    const [first, second] = rows(items);
    expect(first?.sample.question).toBe('first\r\nquestion');
    expect(first?.response?.retrieved_contexts).toEqual(['c1', "c '2'"]);
    expect(first?.labels).toEqual({ correct: 'yes' });
    expect(first?.ignored).toEqual(['reviewer']);
    expect(first?.extra).toEqual({ reviewer: 'amy' });
    expect(second?.scores).toEqual({ faithfulness: null });
    expect(second?.labels).toEqual({});
  });

  it('reports a row without a question by row and column, and keeps going', async () => {
    const items = await fromText('user_input,response\nq1,a1\n,a2\nq3,a3\n', 'csv');
    expect(rows(items).map((r) => r.sample.question)).toEqual(['q1', 'q3']);
    expect(errors(items)).toMatchObject([{ code: 'missing_value', line: 3, field: 'user_input' }]);
    expect(errors(items)[0]?.message).toBe("row 3: column 'user_input' is empty; every row needs a question");
  });

  it('stops at the header when there is no question column', async () => {
    const items = await fromText('prompt,response\nq1,a1\n', 'csv');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ line: 1, error: { code: 'missing_column', params: { accepted: ['question', 'user_input'] } } });
  });

  it('reports rows with too many cells, non-UTF-8 text and broken list cells', async () => {
    // q4's trailing empty cell is tolerated: spreadsheet tools often write one.
    const gbk = Buffer.from([0xc4, 0xe3, 0xba, 0xc3]); // 你好 in GBK
    const text = Buffer.concat([
      Buffer.from('question,contexts\nq1,"[\'a\']",extra\nq2,'),
      gbk,
      Buffer.from("\nq3,\"['a', 'b\"\nq4,\"['ok']\",\n"),
    ]);
    const items = await collect(readImport(Readable.from([text]), { format: 'csv' }));
    expect(items.map((i) => ('error' in i ? [i.line, i.error.code] : [i.line, 'ok']))).toEqual([
      [2, 'column_count'],
      [3, 'not_utf8'],
      [4, 'not_a_list'],
      [5, 'ok'],
    ]);
  });

  it('turns a CSV syntax error into one error naming the row', async () => {
    const items = await fromText('question,answer\nq1,a1\nq2,"unclosed\nq3,a3\n', 'csv');
    const last = items[items.length - 1];
    expect(last).toMatchObject({ line: 3, error: { code: 'csv_syntax', params: { csvCode: 'CSV_QUOTE_NOT_CLOSED' } } });
    expect('error' in last! && last.error.message).toBe(
      'row 3: CSV syntax error: Quote Not Closed: the parsing is finished with an opening quote (near line 4 of the file); the rest of the file was not read',
    );
  });
});

describe('JSONL', () => {
  it('reads Ragas JSONL with NaN scores, labels and line numbers that count blank lines', async () => {
    const items = await collect(readImportFile(fixture('ragas_results.jsonl')));
    expect(errors(items)).toEqual([]);
    expect(items.map((i) => i.line)).toEqual([1, 3]);
    const [first, second] = rows(items);
    expect(first?.sample.question).toBe('谁负责课程研发？');
    expect(first?.response).toEqual({
      answer: '张伟。',
      retrieved_contexts: ['张伟 教研部工程师'],
      system: 'rag-v2',
      metadata: { model: null, latency_ms: 812, cost: null },
    });
    expect(first?.scores).toEqual({ faithfulness: 1, 'factual_correctness(mode=f1)': 0.67 });
    expect(first?.labels).toEqual({ correct: 'yes' });
    expect(second?.scores).toEqual({ faithfulness: null, 'factual_correctness(mode=f1)': null });
    expect(second?.labels).toEqual({});
    expect(second?.response?.answer).toBe('');
  });

  it('reports bad lines with their line number and keeps going', async () => {
    const items = await fromText('{"question":"a"}\n{"question": "b",}\n[1]\n\n{"question":"d"}', 'jsonl');
    expect(items.map((i) => ('error' in i ? [i.line, i.error.code] : [i.line, 'ok']))).toEqual([
      [1, 'ok'],
      [2, 'invalid_json'],
      [3, 'not_an_object'],
      [5, 'ok'],
    ]);
    expect(errors(items)[0]?.message).toMatch(/^line 2: not valid JSON \(/);
  });
});

describe('JSON', () => {
  it('streams a JSON array of goldset samples, with lines where records start', async () => {
    const items = await collect(readImportFile(fixture('samples.json')));
    expect(errors(items)).toEqual([]);
    expect(items.map((i) => i.line)).toEqual([2, 17]);
    const [first, second] = rows(items);
    expect(first?.sample).toEqual({
      id: 's-1',
      question: 'How long is the warranty?',
      ground_truth: 'Two years.',
      reference_contexts: ['Warranty: 2 years from purchase.'],
      tags: ['warranty', 'policy'],
      source: 'faq.pdf',
      notes: null,
      status: 'approved',
    });
    expect(second?.sample.tags).toEqual(['保修', '政策', 'policy']);
    expect(second?.ignored).toEqual(['owner']);
    expect(first?.response).toBe(null);
  });

  it('cuts records correctly when brackets and quotes sit inside strings and across chunks', async () => {
    const text = '[\n {"question": "a ] } [ \\" {", "contexts": ["x]"]},\n\n {"question": "b"},\n]';
    for (const size of [1, 3, 64]) {
      const items = await fromText(text, 'json', size);
      expect(errors(items)).toEqual([]);
      expect(rows(items).map((r) => r.sample.question)).toEqual(['a ] } [ " {', 'b']);
      expect(items.map((i) => i.line)).toEqual([2, 4]);
    }
  });

  it('reads pandas to_json() output (orient=columns and orient=index) and JSON Lines in a .json file', async () => {
    const columns = await fromText('{"question":{"0":"a","1":"b"},"faithfulness":{"0":0.5,"1":null}}', 'json');
    expect(rows(columns).map((r) => [r.sample.question, r.scores['faithfulness']])).toEqual([['a', 0.5], ['b', null]]);
    expect(columns.map((i) => i.line)).toEqual([1, 2]);
    const index = await fromText('{"0":{"question":"a"},"1":{"question":"b"}}', 'json');
    expect(rows(index).map((r) => r.sample.question)).toEqual(['a', 'b']);
    const lines = await fromText('{"question":"a"}\n{"question":"b"}\n', 'json');
    expect(rows(lines).map((r) => r.sample.question)).toEqual(['a', 'b']);
    expect(lines.map((i) => i.line)).toEqual([1, 2]);
    const single = await fromText('{"question":"only"}', 'json');
    expect(rows(single).map((r) => r.sample.question)).toEqual(['only']);
  });

  it('reports structural errors', async () => {
    expect(errors(await fromText('"just a string"', 'json'))).toMatchObject([{ code: 'not_an_array', line: 0 }]);
    expect(errors(await fromText('[{"question":"a"}, 3]', 'json'))).toMatchObject([{ code: 'not_an_object', line: 1 }]);
    const truncated = await fromText('[\n{"question":"a"},\n{"question":"b"', 'json');
    expect(rows(truncated)).toHaveLength(1);
    expect(errors(truncated)).toMatchObject([{ code: 'invalid_json', line: 3 }, { code: 'invalid_json' }]);
    const big = await collect(
      readImport(Readable.from([`[{"question":"${'x'.repeat(500)}"}]`]), { format: 'json', maxJsonValueChars: 100 }),
    );
    expect(errors(big)).toMatchObject([{ code: 'file_too_large', line: 1 }]);
  });
});
