// What the import reader thread reads when it starts (reader-worker.ts): made-up rows, run through the
// code that reads a file's rows (splitting lines, JSON, checking, the question keys), so that the first
// import after a start is read by optimised code. A new thread read its first ~10,000 rows 3–4× slower
// than the rest, and the importing thread waited for them: 150–280 ms of a 100,000-row import
// (bench/README.md, import). The warm-up costs the thread ~0.2 s when it starts; nothing waits for it
// but an import sent in that time.
import { readImport } from '../io/read.ts';
import type { ImportRow } from '../io/schema.ts';

/** Fewer did not reach the optimised code: 3,000 left the import where it was. */
export const WARM_ROWS = 12_000;

/** Reads WARM_ROWS made-up rows, mixed Chinese and English as real ones are, each through `use`; returns how many were read as rows. */
export async function warmUp(use: (line: number, row: ImportRow) => unknown): Promise<number> {
  const lines: string[] = [];
  for (let i = 0; i < WARM_ROWS; i++) {
    lines.push(JSON.stringify({ user_input: `第 ${i} 个问题：新员工 how many days of annual leave 年假 do I get in year ${i % 7}?`,
      reference: `Five days 五天，满十年 ten days 十天 (${i}).` }));
  }
  const bytes = Buffer.from(lines.join('\n'));
  async function* chunks() {
    for (let at = 0; at < bytes.length; at += 256 * 1024) yield bytes.subarray(at, at + 256 * 1024);
  }
  let rows = 0;
  for await (const item of readImport(chunks(), { format: 'jsonl' })) {
    if (!('row' in item)) continue;
    use(item.line, item.row);
    rows++;
  }
  return rows;
}
