// Save-and-next inside a group commit runs without a savepoint of its own (group-commit.ts
// withoutSavepoint; labels/service.ts submitAndHandOut): each savepoint keeps a copy of every page it
// changes and spilled to a temporary file past 64 KiB. That is only right if everything the save
// refuses is refused before its first change, and if a failure after one takes the whole group down.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';
import { LabelConflict, LabelError, type ArchivedAsRead } from '../../server/labels/service.ts';
import { ArchivedError } from '../../server/datasets/archived.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import type { CurrentUser } from '../../server/http/context.ts';

let env: TestContext;
let other: Database.Database;
let ds: number;
let criteria: Criterion[];
let experts: CurrentUser[];
let responses: { id: number; dataset_id: number }[];

beforeEach(async () => {
  env = openTestContext('goldset-label-group-');
  const { ctx, db } = env;
  ds = ctx.datasets.create(null, { name: 'group', description: '', language: 'en', domain: '' }).id;
  ctx.criteria.create(null, ds, { name: 'correct', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null, guidelines: '' });
  criteria = ctx.criteria.forDataset(ds);
  const sample = db.prepare('INSERT INTO sample (dataset_id, question_key, question) VALUES (?, ?, ?)');
  const response = db.prepare(`INSERT INTO response (sample_id, dataset_id, system, answer, retrieved_contexts, metadata, content_hash)
    VALUES (?, ?, 'rag', ?, '[]', '{}', ?)`);
  responses = Array.from({ length: 6 }, (_v, i) => {
    const sampleId = Number(sample.run(ds, `q${i}`, `Question ${i}?`).lastInsertRowid);
    return { id: Number(response.run(sampleId, ds, `Answer ${i}`, `hash-${i}`).lastInsertRowid), dataset_id: ds };
  });
  experts = [];
  for (const who of ['li', 'wang']) {
    const id = (await ctx.users.createUser(null, { email: `${who}@example.com`, name: who, role: 'expert', password: 'a long enough password' })).id;
    experts.push(ctx.users.queries.byId(id)!);
  }
  other = new Database(env.file, { readonly: true });
});
afterEach(async () => {
  other.close();
  await env.close();
});

const verdict = (value: string) => ({ values: new Map([[String(criteria[0]!.id), value]]), rationale: '', corrected_answer: '' });
const submitted = () => other.prepare("SELECT response_id FROM annotation WHERE state = 'submitted' ORDER BY response_id").pluck().all();
const saveAndNext = (expert: number, response: number, value = '1', version: number | null = 0, archived?: ArchivedAsRead) =>
  env.ctx.labels.submitAndHandOut(experts[expert]!, responses[response]!, criteria, verdict(value), version, 1, archived);

/** Every statement source run while `fn` runs. */
function statementsOf(fn: () => void): string[] {
  const seen: string[] = [];
  const proto = Object.getPrototypeOf(env.db.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  const saved = (['run', 'get', 'all'] as const).map((m) => [m, proto[m]!] as const);
  for (const [m, orig] of saved) proto[m] = function (this: { source: string }, ...a: unknown[]) { seen.push(this.source); return orig.apply(this, a); };
  try { fn(); } finally { for (const [m, orig] of saved) proto[m] = orig; }
  return seen;
}

describe('save-and-next in a group commit', () => {
  it('writes in the group\'s own transaction, without a savepoint, and is kept by its COMMIT', () => {
    const { group } = env.ctx;
    const inGroup = statementsOf(() => {
      group.join();
      saveAndNext(0, 0);
      saveAndNext(1, 1);
      expect(submitted()).toEqual([]); // not committed yet
      group.flush();
    });
    expect(inGroup.filter((sql) => /^(SAVEPOINT|RELEASE)/.test(sql))).toEqual([]);
    expect(submitted()).toEqual([responses[0]!.id, responses[1]!.id]);
    // Outside a group it is a transaction of its own, as before.
    const alone = statementsOf(() => saveAndNext(0, 2));
    expect(alone.some((sql) => sql.startsWith('BEGIN'))).toBe(true);
    expect(submitted()).toHaveLength(3);
  });

  it('refuses an invalid value, a stale version and an archived dataset before any change: the rest of the group commits', () => {
    const { ctx, db } = env;
    ctx.group.join();
    saveAndNext(0, 0);
    expect(() => saveAndNext(1, 1, 'maybe')).toThrow(LabelError);
    saveAndNext(1, 1); // first version
    expect(() => saveAndNext(0, 1, '0', 0)).not.toThrow(); // another expert's own annotation: no conflict
    expect(() => saveAndNext(1, 1, '0', 0)).toThrow(LabelConflict); // the form saw none; one is submitted now
    ctx.group.flush();
    expect(submitted()).toEqual([responses[0]!.id, responses[1]!.id, responses[1]!.id]);
    db.prepare('UPDATE dataset SET archived = 1 WHERE id = ?').run(ds);
    ctx.group.join();
    expect(() => saveAndNext(0, 3)).toThrow(ArchivedError);
    ctx.group.flush();
    expect(db.inTransaction).toBe(false);
    expect(submitted()).toHaveLength(3);
  });

  it('refuses an archived dataset on the flag read in the group\'s transaction, and reads the flag again when it was read elsewhere', () => {
    const { ctx, db } = env;
    const archive = (archived: 0 | 1) => db.prepare('UPDATE dataset SET archived = ? WHERE id = ?').run(archived, ds);
    const guard = (sql: string[]) => sql.filter((s) => s === 'SELECT archived FROM dataset WHERE id = ?');
    const asRead = (): ArchivedAsRead => ({ archived: ctx.datasets.get(ds)!.archived === 1, mark: ctx.group.mark() });
    // Read in the transaction the write runs in (as the labelling routes read it): refused, and saved, on that flag.
    archive(1);
    ctx.group.join();
    let read = asRead();
    expect(guard(statementsOf(() => expect(() => saveAndNext(0, 0, '1', 0, read)).toThrow(ArchivedError)))).toEqual([]);
    ctx.group.flush();
    archive(0);
    ctx.group.join();
    read = asRead();
    expect(guard(statementsOf(() => saveAndNext(0, 0, '1', 0, read)))).toEqual([]);
    ctx.group.flush();
    expect(submitted()).toEqual([responses[0]!.id]);
    // Read in an earlier group, archived since: read again and refused.
    ctx.group.join();
    read = asRead();
    ctx.group.flush();
    archive(1);
    ctx.group.join();
    expect(read.archived).toBe(false);
    expect(guard(statementsOf(() => expect(() => saveAndNext(0, 1, '1', 0, read)).toThrow(ArchivedError)))).toHaveLength(1);
    ctx.group.flush();
    // Read in the same group, but another request joined it since and archived the dataset: read again and refused.
    archive(0);
    ctx.group.join();
    read = asRead();
    ctx.group.join();
    archive(1);
    expect(() => saveAndNext(0, 1, '1', 0, read)).toThrow(ArchivedError);
    ctx.group.flush();
    // Read outside any group (its own read transaction): read again and refused.
    read = { archived: false, mark: ctx.group.mark() };
    expect(read.mark).toBeNull();
    expect(() => saveAndNext(0, 1, '1', 0, read)).toThrow(ArchivedError);
    expect(db.inTransaction).toBe(false);
    expect(submitted()).toEqual([responses[0]!.id]);
  });

  it('takes the whole group down when it fails after its first change: nothing of the group is kept', () => {
    const { ctx, db } = env;
    // The audit event is the save's last write: a failure there comes after every other change.
    db.exec(`CREATE TRIGGER audit_fails BEFORE INSERT ON audit_event WHEN new.actor_id = ${experts[1]!.id} BEGIN
      SELECT RAISE(ABORT, 'the disk is full'); END`);
    const versionBefore = other.prepare('SELECT data_version FROM dataset WHERE id = ?').pluck().get(ds);
    ctx.group.join();
    saveAndNext(0, 0);
    expect(() => saveAndNext(1, 1)).toThrow(/the disk is full/);
    saveAndNext(0, 2); // later requests of the turn still run; they are rolled back with it
    ctx.group.flush();
    expect(db.inTransaction).toBe(false);
    expect(submitted()).toEqual([]);
    expect(other.prepare('SELECT count(*) FROM audit_event WHERE entity_type = ?').pluck().get('label')).toBe(0);
    expect(other.prepare('SELECT data_version FROM dataset WHERE id = ?').pluck().get(ds)).toBe(versionBefore);
    // The next group commits again.
    db.exec('DROP TRIGGER audit_fails');
    ctx.group.join();
    saveAndNext(1, 1);
    ctx.group.flush();
    expect(submitted()).toEqual([responses[1]!.id]);
  });
});
