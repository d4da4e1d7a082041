import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { readImportFile } from '../../server/io/index.ts';

const LINES = 200_000;
let dir = '';

/** Writes lines through a stream with backpressure, so the test itself never holds the file. */
async function writeLines(path: string, count: number, line: (i: number) => string): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < count; i++) {
    if (!out.write(line(i))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'goldset-io-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('streaming large files', () => {
  it(`reads a ${LINES}-line JSONL file row by row`, async () => {
    const path = join(dir, 'big.jsonl');
    await writeLines(path, LINES, (i) =>
      `${JSON.stringify({ user_input: `问题 ${i}`, retrieved_contexts: [`context ${i}`], response: `answer ${i}`, faithfulness: (i % 10) / 10 })}\n`,
    );
    let rows = 0;
    let errors = 0;
    let lastLine = 0;
    for await (const item of readImportFile(path)) {
      if ('row' in item) rows++;
      else errors++;
      lastLine = item.line;
    }
    expect(errors).toBe(0);
    expect(rows).toBe(LINES);
    expect(lastLine).toBe(LINES);
  });

  it('reads a large CSV with list cells and stops cleanly when the consumer breaks early', async () => {
    const path = join(dir, 'big.csv');
    await writeLines(path, 50_001, (i) => (i === 0 ? 'user_input,retrieved_contexts,faithfulness\n' : `q${i},"['c${i}', ""it's""]",0.5\n`));
    let rows = 0;
    for await (const item of readImportFile(path)) {
      expect('row' in item && item.row.response?.retrieved_contexts).toEqual([`c${rows + 1}`, "it's"]);
      rows++;
      if (rows === 1000) break;
    }
    expect(rows).toBe(1000);
    let total = 0;
    for await (const item of readImportFile(path)) if ('row' in item) total++;
    expect(total).toBe(50_000);
  });
});
