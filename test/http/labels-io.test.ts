// Expert labels in and out: human.<criterion> imports by --annotator, Ragas exports with gold labels,
// and goldset JSONL that restores everything into an empty instance.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { goldsetCli } from '../cli.ts';

let dir: string;

const goldset = (db: string, args: string[], input?: string) => goldsetCli(args, { env: { GOLDSET_DB: db }, ...(input === undefined ? {} : { input }) });
function write(name: string, content: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n');

const ROWS = [
  { user_input: '张伟是哪个部门的？', response: '张伟是教研部的', retrieved_contexts: ['牛顿发现了万有引力', '张伟 教研部工程师'], reference: '张伟是教研部的成员', system: 'v1' },
  { user_input: '张伟是哪个部门的？', response: '张伟是人事部门的', retrieved_contexts: ['李凯 教研部主任'], reference: '张伟是教研部的成员', system: 'v2' },
  { user_input: 'How do I request leave?', response: 'Use the OA system.', retrieved_contexts: ['Leave is requested in OA.'], reference: 'In the OA system.', system: 'v1' },
];

beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-labels-io-')); });

describe('importing expert labels', () => {
  it('creates the criterion, the expert, and submitted labels; files from two experts merge', async () => {
    const db = path.join(dir, 'a.db');
    const a = write('a.jsonl', jsonl(ROWS.map((r, i) => ({ ...r, 'human.correct': ['yes', 'no', 'yes'][i], 'human.quality': [5, 2, 4][i] }))));
    const res = await goldset(db, ['import', a, '--dataset', 'HR', '--annotator', 'li@example.com', '--criterion-type', 'quality=ordinal', '--json']);
    expect(res.code).toBe(0);
    expect(res.json()).toMatchObject({ responses_created: 3, labels: 6, criteria_created: ['correct', 'quality'] });
    const b = write('b.jsonl', jsonl(ROWS.map((r, i) => ({ ...r, 'human.correct': ['yes', 'yes', 'no'][i] }))));
    expect((await goldset(db, ['import', b, '--dataset', 'HR', '--annotator', 'wang@example.com', '--json'])).json()).toMatchObject({ responses_created: 0, labels: 3, criteria_created: [] });
    // Re-importing the first file changes nothing.
    expect((await goldset(db, ['import', a, '--dataset', 'HR', '--annotator', 'li@example.com', '--json'])).json()).toMatchObject({ responses_created: 0, labels: 6 });
    const sqlite = new Database(db, { readonly: true });
    expect(sqlite.prepare("SELECT kind, scale_min, scale_max FROM criterion WHERE name = 'quality'").get()).toEqual({ kind: 'ordinal', scale_min: 1, scale_max: 5 });
    expect(sqlite.prepare("SELECT kind FROM criterion WHERE name = 'correct'").pluck().get()).toBe('binary');
    expect(sqlite.prepare("SELECT role FROM user WHERE email = 'li@example.com'").pluck().get()).toBe('expert');
    expect(sqlite.prepare("SELECT count(*) FROM annotation WHERE state = 'submitted'").pluck().get()).toBe(6);
    expect(sqlite.prepare('SELECT sum(n_submitted) FROM response').pluck().get()).toBe(6);
    sqlite.close();
  });

  it('imports nothing when a value does not fit the declared type, naming the line', async () => {
    const db = path.join(dir, 'b.db');
    const file = write('bad.jsonl', jsonl(ROWS.map((r, i) => ({ ...r, 'human.correct': ['yes', 'maybe', 'no'][i] }))));
    const res = await goldset(db, ['import', file, '--dataset', 'HR', '--annotator', 'li@example.com', '--criterion-type', 'correct=binary']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Line 2: "maybe" is not a valid value for criterion correct (Binary).'); // as the import page says it
    const sqlite = new Database(db, { readonly: true });
    expect(sqlite.prepare('SELECT count(*) FROM response').pluck().get()).toBe(0);
    expect(sqlite.prepare('SELECT count(*) FROM criterion').pluck().get()).toBe(0);
    sqlite.close();
  });

  it('asks for --annotator when a file has label columns', async () => {
    const file = write('c.jsonl', jsonl([{ ...ROWS[0], 'human.correct': 'yes' }]));
    const res = await goldset(path.join(dir, 'c.db'), ['import', file, '--dataset', 'HR']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--annotator EMAIL');
  });
});

describe('exports with gold labels', () => {
  it('writes one Ragas record per response with human.<criterion> gold values, unanimous or adjudicated', async () => {
    const db = path.join(dir, 'd.db');
    await goldset(db, ['import', write('a.jsonl', jsonl(ROWS.map((r, i) => ({ ...r, 'human.correct': ['yes', 'no', 'yes'][i] })))), '--dataset', 'HR', '--annotator', 'li@example.com']);
    await goldset(db, ['import', write('b.jsonl', jsonl(ROWS.map((r, i) => ({ ...r, 'human.correct': ['yes', 'yes', 'no'][i] })))), '--dataset', 'HR', '--annotator', 'wang@example.com']);
    const out = path.join(dir, 'gold.jsonl');
    expect((await goldset(db, ['export', '--dataset', 'HR', '--format', 'ragas-jsonl', '--status', 'all', '--responses', '--out', out, '--json'])).json()).toMatchObject({ responses: 3 });
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ user_input: '张伟是哪个部门的？', retrieved_contexts: ['牛顿发现了万有引力', '张伟 教研部工程师'], response: '张伟是教研部的',
      reference: '张伟是教研部的成员', reference_contexts: [], system: 'v1', 'human.correct': 1 });
    expect(lines.map((l) => l['human.correct'])).toEqual([1, null, null]); // disagreements have no gold yet
    const csv = path.join(dir, 'gold.csv');
    await goldset(db, ['export', '--dataset', 'HR', '--format', 'ragas-csv', '--status', 'all', '--responses', '--out', csv]);
    expect(fs.readFileSync(csv, 'utf8').split('\n')[0]).toBe('user_input,retrieved_contexts,response,reference,reference_contexts,system,human.correct');
  });
});

describe('goldset JSONL', () => {
  it('round-trips samples, responses, criteria, labels and adjudications into an empty instance', async () => {
    const a = path.join(dir, 'source.db');
    await goldset(a, ['import', write('a.jsonl', jsonl(ROWS.map((r, i) => ({ ...r, 'human.correct': ['yes', 'no', 'yes'][i], tags: ['hr'] })))), '--dataset', 'HR', '--language', 'zh', '--annotator', 'li@example.com']);
    await goldset(a, ['import', write('b.jsonl', jsonl(ROWS.map((r, i) => ({ ...r, 'human.correct': ['yes', 'yes', 'no'][i] })))), '--dataset', 'HR', '--annotator', 'wang@example.com']);
    const sqlite = new Database(a);
    const adjudicator = sqlite.prepare("SELECT id FROM user WHERE email = 'li@example.com'").pluck().get();
    sqlite.prepare(`INSERT INTO adjudication (response_id, criterion_id, context_index, value, reason, adjudicator_id)
      SELECT min(id), (SELECT id FROM criterion), -1, '0', 'wrong department', ? FROM response WHERE system = 'v2'`).run(adjudicator);
    sqlite.prepare("UPDATE sample SET status = 'approved', approved_by = ? WHERE question LIKE 'How%'").run(adjudicator);
    sqlite.close();

    const first = path.join(dir, 'first.goldset.jsonl');
    expect((await goldset(a, ['export', '--dataset', 'HR', '--format', 'goldset-jsonl', '--out', first])).code).toBe(0);
    const b = path.join(dir, 'empty.db');
    const restored = await goldset(b, ['import', first, '--json']);
    expect(restored.code).toBe(0);
    expect(restored.json()).toMatchObject({ restored: true, dataset: 'HR', sample: 2, response: 3, criterion: 1, annotation: 6, label: 6, adjudication: 1 });
    const second = path.join(dir, 'second.goldset.jsonl');
    await goldset(b, ['export', '--dataset', 'HR', '--format', 'goldset-jsonl', '--out', second]);
    const strip = (text: string) => text.trim().split('\n').map((l) => { const r = JSON.parse(l); delete r.dataset?.holdout_seed; return r; });
    expect(strip(fs.readFileSync(second, 'utf8'))).toEqual(strip(fs.readFileSync(first, 'utf8')));
    const restoredDb = new Database(b, { readonly: true });
    expect(restoredDb.prepare('SELECT holdout_seed FROM dataset').pluck().get()).toBe(new Database(a, { readonly: true }).prepare('SELECT holdout_seed FROM dataset').pluck().get());
    expect(restoredDb.prepare('SELECT sum(n_submitted) FROM response').pluck().get()).toBe(6);
    restoredDb.close();
    // Restoring into an instance that has the dataset already is refused.
    expect((await goldset(b, ['import', first])).code).toBe(2);
  });
});
