// Migration *_ragas_metric_names: goldset-scored runs, their calibrations and composite metrics
// follow the non-LLM metrics' new names; imported runs keep their file's column names.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../server/db/connection.ts';
import { listMigrations, migrate, MIGRATIONS_DIR } from '../../server/db/migrate.ts';

const target = listMigrations().find((m) => m.name === 'ragas_metric_names')!;

function beforeMigration(): { db: DB; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-rename-'));
  for (const m of listMigrations()) if (m.version < target.version) fs.copyFileSync(path.join(MIGRATIONS_DIR, m.file), path.join(dir, m.file));
  const db = openDatabase(path.join(dir, 'test.db'));
  migrate(db, dir);
  return { db, dir };
}

describe('migration ragas_metric_names', () => {
  it('renames goldset runs, their calibrations and composite components; keeps imported runs and name clashes', () => {
    const { db, dir } = beforeMigration();
    const ds = Number(db.prepare("INSERT INTO dataset (name, language, holdout_seed) VALUES ('d', 'en', 1)").run().lastInsertRowid);
    const run = (name: string, metric: string, source: string) => Number(db.prepare(`INSERT INTO run (dataset_id, name, metric_key, source, status)
      VALUES (?, ?, ?, ?, 'done')`).run(ds, name, metric, source).lastInsertRowid);
    const bleu = run('nightly', 'bleu', 'goldset');
    const presence = run('nightly', 'string_presence', 'goldset');
    const imported = run('ragas', 'bleu', 'imported');
    const clash = run('twice', 'rouge_l', 'goldset');
    run('twice', 'rouge_l_zh', 'goldset');
    const criterion = Number(db.prepare("INSERT INTO criterion (dataset_id, name, kind, target) VALUES (?, 'ok', 'binary', 'response')").run(ds).lastInsertRowid);
    db.prepare(`INSERT INTO calibration (dataset_id, criterion_id, run_id, metric_key, part, threshold, strength_name, report, item_ids)
      VALUES (?, ?, ?, 'bleu', 'all', 0.5, 'spearman', '{}', '[]')`).run(ds, criterion, bleu);
    db.prepare(`INSERT INTO metric (dataset_id, key, kind, config) VALUES (?, 'mix', 'composite', ?)`)
      .run(ds, JSON.stringify({ components: [{ metric: 'levenshtein_similarity', weight: 2 }, { metric: 'faithfulness', weight: 1 }] }));

    fs.copyFileSync(path.join(MIGRATIONS_DIR, target.file), path.join(dir, target.file));
    expect(migrate(db, dir)).toEqual([target.version]);

    const key = (id: number) => db.prepare('SELECT metric_key FROM run WHERE id = ?').pluck().get(id);
    expect([key(bleu), key(presence), key(imported), key(clash)]).toEqual(['bleu_zh', 'string_present', 'bleu', 'rouge_l']);
    expect(db.prepare('SELECT metric_key FROM calibration').pluck().all()).toEqual(['bleu_zh']);
    expect(JSON.parse(db.prepare("SELECT config FROM metric WHERE key = 'mix'").pluck().get() as string)).toEqual({
      components: [{ metric: 'non_llm_string_similarity', weight: 2 }, { metric: 'faithfulness', weight: 1 }],
    });
  });
});
