// Pages must stay fast at 100,000 items: a handful of prepared queries per request, never one per
// item. Every main page and export is requested for a dataset of 6 items and 2 judge runs and for one
// of 60 items (more than a list page holds) and 4 runs, and the SQL statements each request executes
// are counted: the counts must be the same, so nothing runs a query per row or per run.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAs, setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';

let app: TestApp;
let admin: Client;
interface Seeded { datasetId: number; runId: number; firstRunId: number; responseId: number; sampleId: number; criterionId: number }
const seeded: Record<'small' | 'large', Seeded> = {} as Record<'small' | 'large', Seeded>;

/** Every statement execution (run, get, all, iterate) during `fn`, by SQL text. */
async function countStatements(fn: () => Promise<unknown>): Promise<Map<string, number>> {
  const proto = Object.getPrototypeOf(app.ctx.db.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  const counts = new Map<string, number>();
  const originals = (['run', 'get', 'all', 'iterate'] as const).map((m) => [m, proto[m]!] as const);
  for (const [m, original] of originals) {
    proto[m] = function (this: { source: string }, ...a: unknown[]) {
      counts.set(this.source, (counts.get(this.source) ?? 0) + 1);
      return original.apply(this, a);
    };
  }
  try {
    await fn();
  } finally {
    for (const [m, original] of originals) proto[m] = original;
  }
  return counts;
}

const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

/** `runs` judge runs are imported (one per expert file, the rest from score-only files), so pages listing runs are checked too. */
async function seed(name: string, items: number, runs: number): Promise<Seeded> {
  const ctx = app.ctx;
  const adminId = ctx.users.queries.byEmail('admin@example.com')!.id;
  const datasetId = ctx.datasets.create(adminId, { name, description: '', language: 'zh', domain: 'hr' }).id;
  const experts = await Promise.all(['li', 'wang'].map(async (n) => {
    const email = `${n}-${name}@example.com`;
    return (await ctx.users.createUser(null, { email, name: n, role: 'expert', password: 'a long enough password' })).id;
  }));
  const rows = Array.from({ length: items }, (_, i) => ({
    user_input: `第 ${i} 个问题：张伟是哪个部门的？`, reference: `张伟在部门 ${i}。`, response: `回答 ${i}`,
    retrieved_contexts: [`上下文 ${i} 张伟`, `无关 ${i}`], system: i % 2 ? 'v1' : 'v2', tags: [i % 3 ? 'hr' : 'it'],
    faithfulness: (i % 10) / 10,
  }));
  for (const [k, annotatorId] of experts.entries()) {
    const file = path.join(app.dir, `${name}-${k}.jsonl`);
    // The second expert disagrees on every third item, so there are disagreements to list.
    fs.writeFileSync(file, rows.map((r, i) => JSON.stringify({ ...r, 'human.correct': (i % 2 === 0) !== (k === 1 && i % 3 === 0) ? 'yes' : 'no' })).join('\n'));
    const result = await ctx.imports.importFile(adminId, datasetId, file, { format: 'jsonl', annotatorId, runName: `judge-v${k + 1}` });
    if (!result.ok) throw new Error(`seed import failed: ${JSON.stringify(result)}`);
  }
  for (let k = experts.length; k < runs; k++) {
    const file = path.join(app.dir, `${name}-run-${k}.jsonl`);
    fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n'));
    const result = await ctx.imports.importFile(adminId, datasetId, file, { format: 'jsonl', runName: `judge-v${k + 1}` });
    if (!result.ok) throw new Error(`seed import failed: ${JSON.stringify(result)}`);
  }
  const one = <T>(sql: string) => ctx.db.prepare(sql).pluck().get(datasetId) as T;
  return {
    datasetId,
    runId: one<number>('SELECT max(id) FROM run WHERE dataset_id = ?'),
    firstRunId: one<number>('SELECT min(id) FROM run WHERE dataset_id = ?'),
    responseId: one<number>('SELECT min(id) FROM response WHERE dataset_id = ?'),
    sampleId: one<number>('SELECT min(id) FROM sample WHERE dataset_id = ?'),
    criterionId: one<number>('SELECT min(id) FROM criterion WHERE dataset_id = ?'),
  };
}

beforeAll(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
  seeded.small = await seed('small', 6, 2);
  seeded.large = await seed('large', 60, 4);
}, 60_000);
afterAll(async () => { await app.close(); });

const PAGES: [string, (s: Seeded) => string][] = [
  ['dataset list', () => '/datasets'],
  ['samples list', (s) => `/datasets/${s.datasetId}`],
  ['samples search', (s) => `/datasets/${s.datasetId}?q=${encodeURIComponent('张伟')}`],
  ['sample page', (s) => `/samples/${s.sampleId}`],
  ['response page', (s) => `/responses/${s.responseId}`],
  ['labelling queue', (s) => `/datasets/${s.datasetId}/label`],
  ['labelling workspace', (s) => `/responses/${s.responseId}/label`],
  ['disagreements', (s) => `/datasets/${s.datasetId}/disagreements`],
  ['agreement', (s) => `/datasets/${s.datasetId}/agreement`],
  ['criteria', (s) => `/datasets/${s.datasetId}/criteria`],
  ['assignment', (s) => `/datasets/${s.datasetId}/assignment`],
  ['runs', (s) => `/datasets/${s.datasetId}/runs`],
  ['run', (s) => `/runs/${s.runId}`],
  ['run score', (s) => `/runs/${s.runId}/scores/${s.responseId}`],
  ['review queue', (s) => `/runs/${s.runId}/review`],
  ['review item', (s) => `/runs/${s.runId}/review/${s.responseId}`],
  ['calibration report', (s) => `/datasets/${s.datasetId}/calibration?criterion=${s.criterionId}&run=${s.runId}`],
  ['metrics', (s) => `/datasets/${s.datasetId}/metrics`],
  ['compare two runs', (s) => `/datasets/${s.datasetId}/compare?a=${s.firstRunId}&b=${s.runId}&criterion=${s.criterionId}`],
  ['run progress', (s) => `/runs/${s.runId}/progress`],
  ['dataset settings', (s) => `/datasets/${s.datasetId}/settings`],
  ['import page', (s) => `/datasets/${s.datasetId}/import`],
  ['users', () => '/admin/users'],
  ['API tokens', () => '/tokens'],
  ['prompt lab', (s) => `/datasets/${s.datasetId}/prompt-lab?criterion=${s.criterionId}`],
  ['export page', (s) => `/datasets/${s.datasetId}/export`],
  ['export Ragas JSONL', (s) => `/datasets/${s.datasetId}/export/download?format=ragas-jsonl&status=all`],
  ['export Ragas CSV with responses', (s) => `/datasets/${s.datasetId}/export/download?format=ragas-csv&status=all&responses=1`],
  ['export goldset JSONL', (s) => `/datasets/${s.datasetId}/export/download?format=goldset-jsonl`],
  ['audit log', () => '/audit'],
];

describe('SQL per request does not grow with the number of items', () => {
  it.each(PAGES)('%s', async (_name, url) => {
    // An expert who has labelled nothing in either dataset, so both queues are in the same state.
    const client = url(seeded.small).includes('/label') ? await loginAs(app, 'zhao@example.com', 'expert') : admin;
    // The first request of a page may prepare statements or warm caches; count a second one.
    const measure = async (s: Seeded) => {
      await client.get(url(s));
      let status = 0;
      const counts = await countStatements(async () => { status = (await client.get(url(s))).status; });
      expect(status).toBe(200);
      return counts;
    };
    const small = await measure(seeded.small);
    const large = await measure(seeded.large);
    const grown = [...large].filter(([sql, n]) => n > (small.get(sql) ?? 0)).map(([sql, n]) => `${small.get(sql) ?? 0} → ${n}: ${sql.replace(/\s+/g, ' ').slice(0, 120)}`);
    expect(grown).toEqual([]);
    expect(total(large)).toBe(total(small));
  });
});

describe('query plans', () => {
  it('lists a dataset\'s samples newest first from an index, without sorting the dataset', () => {
    const plan = (q: Record<string, unknown>) => {
      const list = app.ctx.db.prepare('SELECT 1'); // a statement to find the prototype
      const proto = Object.getPrototypeOf(list) as { all: (...a: unknown[]) => unknown[] };
      const original = proto.all;
      let sql = '';
      proto.all = function (this: { source: string }, ...a: unknown[]) { if (!sql) sql = this.source; return original.apply(this, a); };
      try { app.ctx.samples.queries.list({ datasetId: seeded.large.datasetId, ...q }, { limit: 50, offset: 0 }); } finally { proto.all = original; }
      return (app.ctx.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ datasetId: seeded.large.datasetId, limit: 50, offset: 0, ...q }) as { detail: string }[])
        .map((r) => r.detail).join(' | ');
    };
    for (const filter of [{}, { status: 'draft' }, { authorId: 1 }]) expect(plan(filter)).not.toContain('TEMP B-TREE FOR ORDER BY');
  });
});
