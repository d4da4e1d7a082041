// Scores of context precision runs are kept beside their per-context verdicts in a narrow table
// (migration 0019) by a trigger: every score of such a run, none of any other, deleted with its run or
// response; and the migration copies the scores that were there before it.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';
import { openDatabase, type DB } from '../../server/db/connection.ts';
import { listMigrations, migrate, MIGRATIONS_DIR } from '../../server/db/migrate.ts';

let env: TestContext;
beforeEach(() => { env = openTestContext('goldset-cps-'); });
afterEach(() => env.close());

const trace = (verdicts: number[] | null) => JSON.stringify({ steps: [], ...(verdicts ? { values: { verdicts } } : {}), computation: '' });

function seed(db: DB): { responses: number[]; run: (metric: string) => number } {
  db.exec("INSERT INTO dataset (name, language, holdout_seed) VALUES ('d', 'en', 1)");
  const sample = Number(db.prepare("INSERT INTO sample (dataset_id, question_key, question) VALUES (1, 'k', 'q')").run().lastInsertRowid);
  const responses = [1, 2, 3].map((i) => Number(db.prepare(`INSERT INTO response (sample_id, dataset_id, answer, retrieved_contexts, content_hash)
    VALUES (?, 1, 'a', '["x", "y"]', ?)`).run(sample, `h${i}`).lastInsertRowid));
  return { responses, run: (metric) => Number(db.prepare("INSERT INTO run (dataset_id, name, metric_key, source, status) VALUES (1, ?, ?, 'goldset', 'done')").run(metric, metric).lastInsertRowid) };
}
const insertScore = (db: DB, run: number, response: number, status: string, value: number | null, t: string | null) =>
  db.prepare('INSERT INTO score (run_id, response_id, status, value, trace) VALUES (?, ?, ?, ?, ?)').run(run, response, status, value, t);
const kept = (db: DB) => db.prepare('SELECT run_id, response_id, status, value, verdicts FROM context_precision_score ORDER BY run_id, response_id').all();

describe('context_precision_score', () => {
  it('keeps every score of a context precision run with its verdicts, none of other metrics, and follows deletions', () => {
    const { db } = env;
    const { responses: [a, b, c], run } = seed(db);
    const cp = run('context_precision');
    const ragas = run('llm_context_precision_without_reference');
    const other = run('faithfulness');
    insertScore(db, cp, a!, 'ok', 0.5, trace([0, 1]));
    insertScore(db, cp, b!, 'error', null, trace(null));
    insertScore(db, ragas, a!, 'ok', 1, null);
    insertScore(db, other, a!, 'ok', 1, trace([1, 1]));
    expect(kept(db)).toEqual([
      { run_id: cp, response_id: a, status: 'ok', value: 0.5, verdicts: '[0,1]' },
      { run_id: cp, response_id: b, status: 'error', value: null, verdicts: null },
      { run_id: ragas, response_id: a, status: 'ok', value: 1, verdicts: null },
    ]);
    insertScore(db, cp, c!, 'ok', 1, trace([1, 0]));
    db.prepare('DELETE FROM response WHERE id = ?').run(a);
    expect(kept(db).map((r) => (r as { response_id: number }).response_id)).toEqual([b, c]);
    db.prepare('DELETE FROM run WHERE id = ?').run(cp);
    expect(kept(db)).toEqual([]);
  });

  it('copies the scores that were there before the migration', () => {
    const old = path.join(env.dir, 'old');
    fs.mkdirSync(old);
    for (const m of listMigrations().filter((m) => m.version <= 14)) fs.copyFileSync(path.join(MIGRATIONS_DIR, m.file), path.join(old, m.file));
    const legacy = openDatabase(path.join(env.dir, 'legacy.db'));
    try {
      migrate(legacy, old);
      const { responses: [a, b], run } = seed(legacy);
      const cp = run('context_precision');
      insertScore(legacy, cp, a!, 'ok', 1, trace([1, 0]));
      insertScore(legacy, cp, b!, 'skipped', null, trace(null));
      insertScore(legacy, run('faithfulness'), a!, 'ok', 1, trace(null));
      migrate(legacy);
      expect(kept(legacy)).toEqual([
        { run_id: cp, response_id: a, status: 'ok', value: 1, verdicts: '[1,0]' },
        { run_id: cp, response_id: b, status: 'skipped', value: null, verdicts: null },
      ]);
    } finally {
      legacy.close();
    }
  });
});
