// Reading a workbook takes bounded memory: a process whose heap is capped at 64 MB reads 25,000 rows
// holding about 72 MB of text as JavaScript strings, from inline strings and from shared strings
// (which go to a temporary file past 16 million characters), and every row comes back whole.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-bounded-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('reads 25,000 rows of 1,500 Chinese characters each in a 64 MB heap, inline and shared strings alike', () => {
  const out = execFileSync(process.execPath, ['--max-old-space-size=64', '--import', 'tsx', path.join(import.meta.dirname, 'bounded-child.mts'), dir, '25000', '1500'],
    { cwd: path.resolve(import.meta.dirname, '..', '..'), encoding: 'utf8', timeout: 240_000 });
  const result = JSON.parse(out.trim().split('\n').pop()!);
  expect(result.textMb).toBeGreaterThan(64);
  expect(result.inline).toEqual({ rows: 25_001, ok: 25_000 });
  expect(result.shared).toEqual({ rows: 25_001, ok: 25_000 });
  console.log(`bounded read: peak RSS ${result.maxRssMb} MB for ${result.textMb} MB of text`);
}, 300_000);
