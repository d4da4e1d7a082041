// The JSONL reader cuts lines from the file's bytes and decodes each line on its own. Whatever the
// chunk boundaries, it must give the lines that decoding the whole file as UTF-8 and splitting it
// would: multi-byte characters split across chunks, CRLF line ends, invalid bytes (reported as
// not_utf8 on their own line), a byte order mark at the start, blank lines and a last line without
// a line end, in random files cut into random chunks.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { readImport, readImportFile, type ImportItem } from '../../server/io/index.ts';
import { createRng } from '../../server/stats/bootstrap.ts';

const PIECES = ['入职', '培训', 'leave', ' ', '？', '😀', 'é', 'x', '年假', '\\n', '\\"'];
const BAD_BYTES = [[0xff], [0xe5, 0x85], [0xc3], [0xed, 0xa0, 0x80]];

interface Case { bytes: Buffer; expected: [number, string][] }

/** A random file and what each of its records should read as: the question, or the error code. */
function randomFile(rand: () => number): Case {
  const parts: Buffer[] = [];
  const expected: [number, string][] = [];
  if (rand() < 0.3) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  const lines = 1 + Math.floor(rand() * 12);
  for (let line = 1; line <= lines; line++) {
    const kind = rand();
    if (kind < 0.15) {
      parts.push(Buffer.from(rand() < 0.5 ? '' : ' \t'));
    } else {
      let question = '';
      for (let i = Math.floor(rand() * 8); i >= 0; i--) question += PIECES[Math.floor(rand() * PIECES.length)];
      const json = Buffer.from(JSON.stringify({ question: `q${line} ${question}` }));
      if (kind < 0.3) {
        const at = 2 + Math.floor(rand() * (json.length - 3));
        parts.push(json.subarray(0, at), Buffer.from(BAD_BYTES[Math.floor(rand() * BAD_BYTES.length)]!), json.subarray(at));
        expected.push([line, 'not_utf8']);
      } else {
        parts.push(json);
        expected.push([line, JSON.parse(json.toString()).question.trim()]);
      }
    }
    if (line < lines || rand() < 0.5) parts.push(Buffer.from(rand() < 0.3 ? '\r\n' : '\n'));
  }
  return { bytes: Buffer.concat(parts), expected };
}

function chunks(bytes: Buffer, rand: () => number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length;) {
    const size = rand() < 0.2 ? bytes.length : 1 + Math.floor(rand() * 9);
    out.push(bytes.subarray(i, i + size));
    i += size;
  }
  return out;
}

/** What the reader gave before it cut bytes: the whole file decoded by TextDecoder (which drops a BOM), split at line feeds. */
function reference(bytes: Buffer): [number, string][] {
  const out: [number, string][] = [];
  new TextDecoder().decode(bytes).split('\n').forEach((raw, i) => {
    const text = (i === 0 ? raw.replace(/^\uFEFF/, '') : raw).replace(/\r$/, '');
    if (text.trim() === '') return;
    if (text.includes('\uFFFD')) out.push([i + 1, 'not_utf8']);
    else {
      // A byte order mark inside a file is not JSON whitespace.
      try { out.push([i + 1, JSON.parse(text).question.trim()]); } catch { out.push([i + 1, 'invalid_json']); }
    }
  });
  return out;
}

async function items(source: AsyncIterable<ImportItem>): Promise<[number, string][]> {
  const out: [number, string][] = [];
  for await (const item of source) out.push([item.line, 'row' in item ? item.row.sample.question : item.error.code]);
  return out;
}

const read = (parts: Buffer[]) => items(readImport(Readable.from(parts), { format: 'jsonl' }));

describe('JSONL lines cut from bytes', () => {
  it('reads every random file the same whatever its chunks', async () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rand = createRng(seed);
      const { bytes, expected } = randomFile(rand);
      expect(reference(bytes), `seed ${seed}, the file as made`).toEqual(expected);
      expect(await read([bytes]), `seed ${seed}, one chunk`).toEqual(expected);
      expect(await read(chunks(bytes, rand)), `seed ${seed}, small chunks`).toEqual(expected);
    }
  });

  it('drops one byte order mark at the start of the file and a second one from the first line, as before', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const line = Buffer.from('{"question":"a"}\n');
    expect(await read([Buffer.concat([bom, bom, line])])).toEqual([[1, 'a']]);
    expect(await read([bom.subarray(0, 1), bom.subarray(1), line])).toEqual([[1, 'a']]);
    expect(await read([Buffer.concat([line, bom, line])])).toEqual([[1, 'a'], [2, 'invalid_json']]);
  });

  it('reads a file of many chunks the same, lines longer than a chunk included', async () => {
    const rand = createRng(2024);
    const parts: Buffer[] = [];
    for (let i = 0; i < 400; i++) parts.push(randomFile(rand).bytes, Buffer.from('\n'));
    // Lines of 300,000 and 700,000 bytes: each spans two or three of the reader's 256 KB reads.
    parts.push(Buffer.from(JSON.stringify({ question: '长 1', comment: '长'.repeat(100_000) }) + '\n'));
    parts.push(Buffer.from(JSON.stringify({ question: 'long 2', comment: 'x'.repeat(700_000) }) + '\r\n'));
    for (let i = 0; i < 400; i++) parts.push(randomFile(rand).bytes, Buffer.from('\n'));
    const bytes = Buffer.concat(parts);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-jsonl-'));
    try {
      const file = path.join(dir, 'big.jsonl');
      fs.writeFileSync(file, bytes);
      const expected = reference(bytes);
      expect(expected.length).toBeGreaterThan(1000);
      expect(await items(readImportFile(file))).toEqual(expected);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
