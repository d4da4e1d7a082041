// The samples page reads tag counts from dataset_tag, which triggers keep (migration 0010). They
// must always equal counting sample_tag, whatever adds or removes tags: edits, imports, deleted
// samples, deleted datasets; and the migration counts the tags that were there before it.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';
import { openDatabase, type DB } from '../../server/db/connection.ts';
import { listMigrations, migrate, MIGRATIONS_DIR } from '../../server/db/migrate.ts';
import type { AppContext } from '../../server/app-context.ts';

let dir: string;
let db: DB;
let ctx: AppContext;
let env: TestContext;

beforeEach(() => {
  ({ dir, db, ctx } = env = openTestContext('goldset-tags-'));
});
afterEach(() => env.close());

/** Tag counts as the samples page shows them, per dataset. */
const shown = (d: DB = db) => (d.prepare('SELECT dataset_id, tag, n FROM dataset_tag WHERE n > 0 ORDER BY dataset_id, tag').all());
/** The same counted from scratch. */
const counted = (d: DB = db) => d.prepare(`SELECT s.dataset_id, t.tag, count(*) AS n FROM sample_tag t JOIN sample s ON s.id = t.sample_id
  GROUP BY s.dataset_id, t.tag ORDER BY s.dataset_id, t.tag`).all();

describe('tag counts per dataset', () => {
  it('follow edits, imports, deleted samples and deleted datasets', async () => {
    const hr = ctx.datasets.create(null, { name: 'hr', description: '', language: 'zh', domain: '' }).id;
    const it_ = ctx.datasets.create(null, { name: 'it', description: '', language: 'en', domain: '' }).id;
    const a = ctx.samples.create(null, hr, { question: '张伟是哪个部门的？', ground_truth: '研发部', reference_contexts: [], tags: ['hr', 'people'], source: '', notes: '' });
    ctx.samples.create(null, hr, { question: '年假有几天？', ground_truth: '15 天', reference_contexts: [], tags: ['hr'], source: '', notes: '' });
    ctx.samples.create(null, it_, { question: 'VPN?', ground_truth: 'Use the client.', reference_contexts: [], tags: ['hr', 'vpn'], source: '', notes: '' });
    expect(shown()).toEqual(counted());
    expect(ctx.samples.queries.tags(hr)).toEqual([{ tag: 'hr', n: 2 }, { tag: 'people', n: 1 }]);

    const editor = (await ctx.users.createUser(null, { email: 'li@example.com', name: 'li', role: 'expert', password: 'a long enough password' })).id;
    ctx.samples.update(editor, a.id, a.version, { question: a.question, ground_truth: a.ground_truth, reference_contexts: [], tags: ['people', 'onboarding'],
      source: '', notes: '' });
    expect(shown()).toEqual(counted());

    const file = path.join(dir, 'tags.jsonl');
    fs.writeFileSync(file, [1, 2, 3].map((i) => JSON.stringify({ user_input: `问题 ${i}`, reference: `答案 ${i}`, tags: ['hr', `t${i % 2}`] })).join('\n'));
    expect((await ctx.imports.importFile(null, hr, file, { format: 'jsonl' })).ok).toBe(true);
    expect(shown()).toEqual(counted());

    db.prepare('DELETE FROM sample WHERE id = ?').run(a.id);
    db.prepare("DELETE FROM sample_tag WHERE tag = 't1'").run();
    expect(shown()).toEqual(counted());
    expect(ctx.samples.queries.tags(hr).map((t) => t.tag)).not.toContain('onboarding');

    db.prepare('DELETE FROM dataset WHERE id = ?').run(it_);
    expect(shown()).toEqual(counted());
  });

  it('counts the tags of samples that were there before the migration', () => {
    const old = path.join(dir, 'old');
    fs.mkdirSync(old);
    for (const m of listMigrations().filter((m) => m.version <= 9)) fs.copyFileSync(path.join(MIGRATIONS_DIR, m.file), path.join(old, m.file));
    const legacy = openDatabase(path.join(dir, 'legacy.db'));
    try {
      migrate(legacy, old);
      legacy.exec("INSERT INTO dataset (name, language, holdout_seed) VALUES ('d', 'en', 1)");
      for (const [i, tags] of [['a', 'b'], ['a'], []].entries()) {
        const id = Number(legacy.prepare('INSERT INTO sample (dataset_id, question_key, question) VALUES (1, ?, ?)').run(`k${i}`, `q${i}`).lastInsertRowid);
        for (const t of tags) legacy.prepare('INSERT INTO sample_tag (sample_id, tag) VALUES (?, ?)').run(id, t);
      }
      migrate(legacy);
      expect(shown(legacy)).toEqual([{ dataset_id: 1, tag: 'a', n: 2 }, { dataset_id: 1, tag: 'b', n: 1 }]);
    } finally {
      legacy.close();
    }
  });
});
