// The trigram index of imported samples is filled after the import commits. Until then search
// finds those rows by scanning them; afterwards by the index; the answers must be the same, and
// the index must match the table exactly whatever happens to the rows in between.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../server/db/connection.ts';
import { listMigrations, migrate, MIGRATIONS_DIR } from '../../server/db/migrate.ts';
import { createAppContext, type AppContext } from '../../server/app-context.ts';
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/log.ts';
import { foldQuestion, questionKey } from '../../server/samples/key.ts';

const QUESTIONS = [
  ['张伟是哪个部门的？', '张伟在研发部。'],
  ['How many days of annual leave do new employees get?', 'Fifteen working days.'],
  ['报销发票需要哪些材料？', '发票原件和审批单。'],
  ['Who approves travel expenses?', 'The department head approves travel expenses.'],
  ['年假可以跨年使用吗？', '可以顺延到次年三月。'],
  ['What is the retrieval pipeline timeout?', 'Thirty seconds per request.'],
];

let dir: string;
let db: DB;
let ctx: AppContext;
let datasetId: number;

function open(file: string): void {
  db = openDatabase(file);
  migrate(db);
  ctx = createAppContext(db, loadConfig({ GOLDSET_DB: file }), createLogger('silent'));
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-search-'));
  open(path.join(dir, 'g.db'));
  datasetId = ctx.datasets.create(null, { name: 'hr', description: '', language: 'zh', domain: '' }).id;
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function importRows(rows: string[][]): Promise<void> {
  const file = path.join(dir, `rows-${Math.random()}.jsonl`);
  fs.writeFileSync(file, rows.map(([q, a]) => JSON.stringify({ user_input: q, reference: a })).join('\n'));
  const result = await ctx.imports.importFile(null, datasetId, file, { format: 'jsonl' });
  expect(result.ok).toBe(true);
}

const search = (q: string): string[] =>
  ctx.samples.queries.list({ datasetId, q }, { limit: 100, offset: 0 }).rows.map((r) => r.question).sort();

/** FTS5's own check that an external-content index holds exactly the table's current text. */
const indexIsExact = (): boolean => {
  try { db.exec("INSERT INTO sample_fts (sample_fts) VALUES ('integrity-check')"); return true; } catch { return false; }
};

const QUERIES = ['部门', '张伟', 'annual leave', 'APPROVES', '需要哪些', 'pipeline timeout', '三月', 'nothing like this', '报销 发票'];

describe('search over imported samples', () => {
  it('finds imported rows before the background indexer reaches them, and the same rows after', async () => {
    await importRows(QUESTIONS);
    expect(ctx.searchIndex.pending()).toBe(QUESTIONS.length); // the import did not index its rows itself
    const before = QUERIES.map(search);
    expect(before[0]).toEqual(['张伟是哪个部门的？']);
    expect(before[3]).toEqual(['Who approves travel expenses?']); // case-insensitive, like the trigram index
    expect(before[7]).toEqual([]);
    expect(before[8]).toEqual(['报销发票需要哪些材料？']);

    await ctx.searchIndex.idle();
    expect(ctx.searchIndex.pending()).toBe(0);
    expect(db.prepare("SELECT count(*) FROM sample_fts WHERE sample_fts MATCH '\"部门\"'").pluck().get()).toBe(0); // 2 characters: below a trigram
    expect(db.prepare("SELECT count(*) FROM sample_fts WHERE sample_fts MATCH '\"张伟是\"'").pluck().get()).toBe(1);
    expect(QUERIES.map(search)).toEqual(before);
    expect(indexIsExact()).toBe(true);
  });

  it('keeps the index exact when rows are edited or deleted before they are indexed, and when an id is reused', async () => {
    await importRows(QUESTIONS.slice(0, 3));
    await ctx.searchIndex.idle();
    await importRows(QUESTIONS.slice(3));
    const [edited, deleted] = ctx.samples.queries.list({ datasetId, q: 'pipeline' }, { limit: 1, offset: 0 }).rows
      .concat(ctx.samples.queries.list({ datasetId, q: '年假可以' }, { limit: 1, offset: 0 }).rows);
    ctx.samples.update(null as unknown as number, edited!.id, edited!.version, {
      question: 'What is the reranker timeout?', ground_truth: 'Five seconds.', reference_contexts: [], tags: [], source: '', notes: '' });
    db.prepare('DELETE FROM sample WHERE id = ?').run(deleted!.id);
    expect(search('pipeline')).toEqual([]);
    expect(search('reranker')).toEqual(['What is the reranker timeout?']);

    await ctx.searchIndex.idle();
    expect(indexIsExact()).toBe(true);
    expect(search('reranker')).toEqual(['What is the reranker timeout?']);
    expect(search('pipeline')).toEqual([]);

    // The newest row deleted, then a new one takes its id: it must be indexed although the mark is past it.
    const maxId = db.prepare('SELECT max(id) FROM sample').pluck();
    db.prepare('DELETE FROM sample WHERE id = ?').run(maxId.get());
    const reused = (maxId.get() as number) + 1;
    expect(reused).toBeLessThanOrEqual(db.prepare('SELECT indexed_upto FROM search_index_state').pluck().get() as number);
    await importRows([['入职第一天需要带什么？', '身份证和学历证明。']]);
    expect(db.prepare('SELECT id FROM sample WHERE question = ?').pluck().get('入职第一天需要带什么？')).toBe(reused);
    expect(indexIsExact()).toBe(true);
    expect(search('第一天')).toEqual(['入职第一天需要带什么？']);
  });

  it('indexes a sample typed into the app at once', () => {
    ctx.samples.create(null, datasetId, { question: '试用期多长？', ground_truth: '三个月。', reference_contexts: [], tags: [], source: '', notes: '' });
    expect(ctx.searchIndex.pending()).toBe(0);
    expect(search('试用期')).toEqual(['试用期多长？']);
    expect(indexIsExact()).toBe(true);
  });

  it('picks up rows left unindexed by a stopped process when the app starts again', async () => {
    await importRows(QUESTIONS);
    db.close(); // stopped before the background indexer ran
    open(path.join(dir, 'g.db'));
    expect(ctx.searchIndex.pending()).toBe(QUESTIONS.length);
    expect(search('张伟')).toEqual(['张伟是哪个部门的？']);
    ctx.searchIndex.schedule();
    await ctx.searchIndex.idle();
    expect(ctx.searchIndex.pending()).toBe(0);
    expect(indexIsExact()).toBe(true);
  });
});

describe('question keys', () => {
  /** The folding rule as it was written before keys became digests. */
  const oldFold = (q: string): string => q.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();

  it('fold a question exactly as before, for any mix of whitespace, width and case', () => {
    const parts = [' ', '  ', '\t', '\n', '\u3000', '\u00a0', 'Ａ', 'ｂ', '１', '？', 'Leave', '年假', 'é', 'ﬁ', '\r\n ', 'x'];
    let seed = 7;
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 2000; i++) {
      const q = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => parts[Math.floor(rand() * parts.length)]).join('');
      expect(foldQuestion(q)).toBe(oldFold(q));
    }
  });

  it('are equal for the same question typed differently and differ otherwise', () => {
    expect(questionKey('  张伟是哪个部门的？ ')).toBe(questionKey('张伟是哪个部门的?'.replace('?', '？')));
    expect(questionKey('ＨＲ  policy')).toBe(questionKey('hr policy'));
    expect(questionKey('hr policy')).not.toBe(questionKey('hr policies'));
    expect(questionKey('x')).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('are rewritten as digests by the migration, which also marks every existing row as indexed', () => {
    const old = path.join(dir, 'old');
    fs.mkdirSync(old);
    for (const m of listMigrations().filter((m) => m.version <= 6)) fs.copyFileSync(path.join(MIGRATIONS_DIR, m.file), path.join(old, m.file));
    const legacy = openDatabase(path.join(dir, 'legacy.db'));
    migrate(legacy, old);
    legacy.exec("INSERT INTO dataset (name, language, holdout_seed) VALUES ('d', 'en', 1)");
    const insert = legacy.prepare('INSERT INTO sample (dataset_id, question_key, question) VALUES (1, ?, ?)');
    for (const [q] of QUESTIONS) insert.run(oldFold(q!), q);
    expect(migrate(legacy)).toEqual([7, ...listMigrations().filter((m) => m.version > 7).map((m) => m.version)]);
    const rows = legacy.prepare('SELECT question, question_key FROM sample').all() as { question: string; question_key: string }[];
    for (const r of rows) expect(r.question_key).toBe(questionKey(r.question));
    expect(legacy.prepare('SELECT indexed_upto FROM search_index_state').pluck().get()).toBe(QUESTIONS.length);
    legacy.exec("INSERT INTO sample_fts (sample_fts) VALUES ('integrity-check')");
    legacy.close();
  });
});
