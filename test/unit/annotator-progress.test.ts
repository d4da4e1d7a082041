// Migration 0008: the running count of each expert's submitted annotations per dataset.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../server/db/connection.ts';
import { listMigrations, migrate, MIGRATIONS_DIR } from '../../server/db/migrate.ts';

/** A database migrated up to (not including) 0008, in a folder holding just those migrations. */
function beforeMigration(): { db: DB; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-progress-'));
  for (const m of listMigrations()) if (m.version < 8) fs.copyFileSync(path.join(MIGRATIONS_DIR, m.file), path.join(dir, m.file));
  const db = openDatabase(path.join(dir, 'test.db'));
  migrate(db, dir);
  return { db, dir };
}

function applyMigration(db: DB, dir: string): void {
  const m = listMigrations().find((x) => x.version === 8)!;
  fs.copyFileSync(path.join(MIGRATIONS_DIR, m.file), path.join(dir, m.file));
  expect(migrate(db, dir)).toEqual([8]);
}

/** Two datasets with three responses each, two experts. */
function seed(db: DB): { responses: number[][]; users: number[] } {
  const users = ['a@example.com', 'b@example.com'].map((email) => Number(db.prepare("INSERT INTO user (email, role) VALUES (?, 'expert')").run(email).lastInsertRowid));
  const responses = [1, 2].map((d) => {
    const ds = Number(db.prepare("INSERT INTO dataset (name, language, holdout_seed) VALUES (?, 'en', 1)").run(`ds${d}`).lastInsertRowid);
    return [1, 2, 3].map((i) => {
      const sample = Number(db.prepare('INSERT INTO sample (dataset_id, question_key, question) VALUES (?, ?, ?)').run(ds, `q${d}-${i}`, `q${d}-${i}`).lastInsertRowid);
      return Number(db.prepare("INSERT INTO response (sample_id, dataset_id, answer, content_hash) VALUES (?, ?, 'a', ?)").run(sample, ds, `h${i}`).lastInsertRowid);
    });
  });
  return { responses, users };
}

const annotate = (db: DB, response: number, user: number, state: 'draft' | 'submitted') =>
  Number(db.prepare('INSERT INTO annotation (response_id, dataset_id, annotator_id, state) SELECT id, dataset_id, ?, ? FROM response WHERE id = ?')
    .run(user, state, response).lastInsertRowid);

const counted = (db: DB) => db.prepare(`SELECT dataset_id, annotator_id, count(*) AS n FROM annotation WHERE state = 'submitted'
  GROUP BY dataset_id, annotator_id ORDER BY dataset_id, annotator_id`).all();
const kept = (db: DB) => db.prepare(`SELECT dataset_id, annotator_id, n_submitted AS n FROM annotator_progress WHERE n_submitted > 0
  ORDER BY dataset_id, annotator_id`).all();

describe('annotator progress counts (migration 0008)', () => {
  it('start from the submitted annotations already there, drafts not counted', () => {
    const { db, dir } = beforeMigration();
    const { responses, users } = seed(db);
    annotate(db, responses[0]![0]!, users[0]!, 'submitted');
    annotate(db, responses[0]![1]!, users[0]!, 'submitted');
    annotate(db, responses[0]![2]!, users[0]!, 'draft');
    annotate(db, responses[1]![0]!, users[1]!, 'submitted');
    applyMigration(db, dir);
    expect(kept(db)).toEqual(counted(db));
    expect(kept(db)).toHaveLength(2);
  });

  it('follow inserts, submissions, un-submissions and deletes (cascades included)', () => {
    const { db, dir } = beforeMigration();
    applyMigration(db, dir);
    const { responses, users } = seed(db);
    const draft = annotate(db, responses[0]![0]!, users[0]!, 'draft');
    expect(kept(db)).toEqual([]);
    annotate(db, responses[0]![1]!, users[0]!, 'submitted');
    annotate(db, responses[1]![1]!, users[1]!, 'submitted');
    expect(kept(db)).toEqual(counted(db));
    db.prepare("UPDATE annotation SET state = 'submitted' WHERE id = ?").run(draft);
    db.prepare("UPDATE annotation SET state = 'submitted' WHERE id = ?").run(draft); // already submitted: counted once
    expect(kept(db)).toEqual(counted(db));
    db.prepare("UPDATE annotation SET state = 'draft' WHERE id = ?").run(draft);
    expect(kept(db)).toEqual(counted(db));
    db.prepare('DELETE FROM response WHERE id = ?').run(responses[0]![1]!);
    expect(kept(db)).toEqual(counted(db));
    db.prepare('DELETE FROM dataset WHERE id = (SELECT dataset_id FROM response WHERE id = ?)').run(responses[1]![1]!);
    expect(kept(db)).toEqual(counted(db));
    expect(db.prepare('SELECT count(*) FROM annotator_progress').pluck().get()).toBe(1); // the other dataset's row went with it
  });
});
