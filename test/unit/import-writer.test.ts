// The import writes rows while a worker thread is still reading the file. These tests hold it to
// what a user relies on whatever the batch boundaries: a bad row anywhere undoes everything, the
// first row of a repeated question wins, only questions that were there before can "differ", and
// the reading thread survives an import that stops early.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';
import type { DB } from '../../server/db/connection.ts';
import type { AppContext } from '../../server/app-context.ts';
import { readerThread, type ReadRow } from '../../server/importexport/reader-thread.ts';
import { WARM_ROWS, warmUp } from '../../server/importexport/reader-warmup.ts';
import { questionKey } from '../../server/samples/key.ts';
import type { ImportSummary } from '../../server/importexport/import-service.ts';

let dir: string;
let db: DB;
let ctx: AppContext;
let env: TestContext;
let datasetId: number;

beforeEach(() => {
  ({ dir, db, ctx } = env = openTestContext('goldset-import-'));
  datasetId = ctx.datasets.create(null, { name: 'hr', description: '', language: 'zh', domain: '' }).id;
});
afterEach(() => env.close());

function writeJsonl(records: object[], name = `f-${Math.random()}.jsonl`): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

/** A question long enough that a few thousand rows span many of the reader's 256 KB batches. */
const question = (i: number) => `第 ${i} 题：新员工入职第一周需要完成哪些培训和手续？${'请详细说明流程。'.repeat(20)}`;

/** The trigger that indexes a sample for search when it is added (imports drop it for their transaction). */
const indexTrigger = () => db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = 'sample_fts_insert'").pluck().get();

const samples = () => db.prepare('SELECT question, ground_truth, tags FROM sample WHERE dataset_id = ? ORDER BY id').all(datasetId) as
  { question: string; ground_truth: string; tags: string }[];

async function importOk(file: string): Promise<ImportSummary> {
  const result = await ctx.imports.importFile(null, datasetId, file, { format: 'jsonl' });
  if (!result.ok) throw new Error(`import failed: ${JSON.stringify(result)}`);
  return result;
}

describe('import written while the file is read', () => {
  it('undoes rows from earlier batches when a bad row comes late in the file', async () => {
    const trigger = indexTrigger();
    expect(trigger).toContain('CREATE TRIGGER');
    await importOk(writeJsonl([{ user_input: '已有的问题', reference: '原来的答案' }]));
    expect(indexTrigger()).toBe(trigger);
    const before = samples();
    const records: object[] = Array.from({ length: 3000 }, (_, i) => ({ user_input: question(i), reference: `答案 ${i}` }));
    records.push({ reference: 'a row without a question' });
    const file = writeJsonl(records);
    expect(fs.statSync(file).size).toBeGreaterThan(4 * 256 * 1024);

    const result = await ctx.imports.importFile(null, datasetId, file, { format: 'jsonl' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ line: 3001 });
    expect(samples()).toEqual(before);
    expect(db.prepare('SELECT deferring FROM search_index_state').pluck().get()).toBe(0);
    expect(indexTrigger()).toBe(trigger);
    // Once the background indexer has caught up, a sample typed in is indexed at once: the trigger is back.
    ctx.searchIndex.catchUp();
    ctx.samples.create(null, datasetId, { question: '试用期多长？', ground_truth: '三个月。', reference_contexts: [], tags: [], source: '', notes: '' });
    expect(db.prepare("SELECT count(*) FROM sample_fts WHERE sample_fts MATCH '\"试用期\"'").pluck().get()).toBe(1);
    expect(db.prepare("SELECT count(*) FROM audit_event WHERE action = 'import'").pluck().get()).toBe(1);
  });

  it('keeps the first of a repeated question and reports only questions from before that differ', async () => {
    await importOk(writeJsonl([
      { user_input: question(10), reference: '旧答案' },
      { user_input: question(70), reference: '答案 70' },
    ]));
    const records: object[] = [];
    for (let i = 0; i < 130; i++) records.push({ user_input: question(i), reference: `答案 ${i}` });
    // Repeats of questions first seen in this file, near and far from their first row: never "differ".
    records.splice(49, 0, { user_input: question(48), reference: '第二次出现' });
    records.push({ user_input: question(5), reference: '最后又出现' });
    // A repeat with tags after a plain question: the plain one was first.
    records.push({ user_input: question(6), reference: '带标签', tags: ['onboarding'] });
    const result = await importOk(writeJsonl(records));

    expect(result.rows).toBe(133);
    expect(result.created).toBe(128);
    expect(result.matched).toBe(5);
    // Line 11 is question 10, there before with another ground truth; question 70 was there with the same one.
    expect(result.differs).toEqual([11]);
    const byQuestion = new Map(samples().map((s) => [s.question, s]));
    expect(byQuestion.get(question(10))?.ground_truth).toBe('旧答案');
    expect(byQuestion.get(question(48))?.ground_truth).toBe('答案 48');
    expect(byQuestion.get(question(5))?.ground_truth).toBe('答案 5');
    expect(byQuestion.get(question(6))?.ground_truth).toBe('答案 6');
    expect(samples()).toHaveLength(130);
  });

  it('writes tags and answers of rows that carry them, and the same file again changes nothing', async () => {
    const records = Array.from({ length: 120 }, (_, i) => i % 3 === 0
      ? { user_input: question(i), reference: `答案 ${i}`, response: `回答 ${i}`, retrieved_contexts: [`上下文 ${i}`], tags: ['hr', `t${i % 2}`] }
      : { user_input: question(i), reference: `答案 ${i}` });
    const file = writeJsonl(records);
    const first = await importOk(file);
    expect(first).toMatchObject({ created: 120, responsesCreated: 40, differs: [] });
    expect(db.prepare('SELECT count(*) FROM sample_tag').pluck().get()).toBe(80);
    const again = await importOk(file);
    expect(again).toMatchObject({ created: 0, matched: 120, responsesCreated: 0, responsesMatched: 40, differs: [] });
    expect(samples()).toHaveLength(120);
  });
});

describe('reader thread', () => {
  it('reads a file again after an earlier read was stopped part-way, and reports a missing file as an error', async () => {
    const reader = readerThread();
    try {
      await reader.ready();
      const file = writeJsonl(Array.from({ length: 3000 }, (_, i) => ({ user_input: question(i), reference: `答案 ${i}` })));
      for (const message of reader.read(file, { format: 'jsonl' })) {
        expect(message.type).toBe('rows');
        break;
      }
      expect(() => [...reader.read(path.join(dir, 'missing.jsonl'), { format: 'jsonl' })]).toThrow(/ENOENT/);
      let rows = 0, summary = null;
      for (const message of reader.read(file, { format: 'jsonl' })) {
        if (message.type === 'rows') rows += message.rows.length;
        else summary = message.summary;
      }
      expect(rows).toBe(3000);
      expect(summary).toMatchObject({ rows: 3000, totalErrors: 0 });
    } finally {
      await reader.close();
    }
  });
});

describe('reader thread warm-up', () => {
  it('reads every made-up row as a row, through the same checks and question keys as a file', async () => {
    const keys = new Set<string>();
    const rows = await warmUp((_line, row) => keys.add(questionKey(row.sample.question)));
    // All of them read as rows (had they failed the checks, only the error path would have run), each a question of its own.
    expect(rows).toBe(WARM_ROWS);
    expect(keys.size).toBe(WARM_ROWS);
  });

  it('leaves nothing of itself in the first file a warmed-up thread reads', async () => {
    const reader = readerThread();
    try {
      await reader.ready({ warmUp: true }); // as the server starts it (import-service.ts warm)
      const file = writeJsonl(Array.from({ length: 5 }, (_, i) => ({ user_input: question(i), reference: `答案 ${i}` })));
      const rows: ReadRow[] = [];
      let summary = null;
      for (const message of reader.read(file, { format: 'jsonl' })) {
        if (message.type === 'rows') rows.push(...message.rows);
        else summary = message.summary;
      }
      expect(rows.map((r) => [r[0], r[2]])).toEqual(Array.from({ length: 5 }, (_, i) => [i + 1, question(i)]));
      expect(summary).toMatchObject({ rows: 5, totalErrors: 0 });
    } finally {
      await reader.close();
    }
  });
});
