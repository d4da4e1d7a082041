// normalizeRow checks by hand what ImportRowSchema states (it runs once per imported row): every
// row it accepts must satisfy the schema unchanged, and every problem it reports names a column.
import { describe, expect, it } from 'vitest';
import { normalizeRecord } from '../../server/io/normalize.ts';
import { ImportRowSchema } from '../../server/io/schema.ts';

const COLUMNS = ['user_input', 'question', 'reference', 'ground_truths', 'contexts', 'response', 'retrieved_contexts', 'system', 'model',
  'latency_ms', 'cost', 'tags', 'source', 'notes', 'faithfulness', 'human.correct', 'extra_column'];
const VALUES: unknown[] = ['', '  ', '年假有几天？', ' padded question ', "['a', 'b']", '["x"]', '[broken', 'a, b，c', 3, -2, 0.5, 'nan', 'NaN',
  '-1', '1e3', null, undefined, ['ctx 1', 'ctx 2'], [1, 2], { nested: true }, true];

describe('normalizeRow', () => {
  it('returns only rows that satisfy ImportRowSchema unchanged; a refused row names its problems', () => {
    let seed = 11;
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    let accepted = 0, refused = 0;
    for (let i = 0; i < 3000; i++) {
      const record: Record<string, unknown> = { user_input: pick(VALUES) };
      for (let k = 0; k < 1 + Math.floor(rand() * 6); k++) record[pick(COLUMNS)] = pick(VALUES);
      const result = normalizeRecord(record, { line: i + 1, unit: 'line' });
      if (result.ok) {
        accepted++;
        expect(ImportRowSchema.parse(result.row)).toEqual(result.row);
      } else {
        refused++;
        expect(result.errors.length).toBeGreaterThan(0);
        for (const e of result.errors) expect(e.field).toBeTruthy();
      }
    }
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });

  it('trims the question and refuses negative latency and cost, naming the column', () => {
    const ok = normalizeRecord({ user_input: '  年假有几天？ ', latency_ms: '12' }, { line: 1, unit: 'line' });
    expect(ok.ok && ok.row.sample.question).toBe('年假有几天？');
    const bad = normalizeRecord({ user_input: 'q', latency_ms: -1, cost: '-0.5' }, { line: 4, unit: 'line' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.map((e) => [e.code, e.field, e.params])).toEqual([
      ['invalid_value', 'latency_ms', { detail: 'must not be negative' }],
      ['invalid_value', 'cost', { detail: 'must not be negative' }],
    ]);
  });
});
