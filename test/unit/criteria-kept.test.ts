// A dataset's criteria are kept between requests under the dataset's criteria_stamp (migration 0023,
// criteria/queries.ts forDatasetRow): the kept list must be the one the dataset row says, whoever
// changed the criteria, and a change rolled back must not leave a list behind that a later row matches.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';

let env: TestContext;
let ds: number;

beforeEach(() => {
  env = openTestContext('goldset-criteria-kept-');
  ds = env.ctx.datasets.create(null, { name: 'kept', description: '', language: 'en', domain: '' }).id;
  env.ctx.criteria.create(null, ds, { name: 'correct', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null, guidelines: 'g1' });
});
afterEach(async () => { await env.close(); });

const row = () => env.ctx.datasets.get(ds)!;
const kept = () => env.ctx.criteria.forDatasetRow(row());
const names = () => kept().map((c) => `${c.name}:${c.guidelines}:${c.archived}`);

/** How many times the criteria list query runs while `fn` runs. */
function criteriaReads(fn: () => void): number {
  let n = 0;
  const proto = Object.getPrototypeOf(env.db.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  const orig = proto.all!;
  proto.all = function (this: { source: string }, ...a: unknown[]) { if (this.source.startsWith('SELECT * FROM criterion WHERE dataset_id')) n++; return orig.apply(this, a); };
  try { fn(); } finally { proto.all = orig; }
  return n;
}

describe('kept criteria (forDatasetRow)', () => {
  it('reads the list once while the criteria do not change, and gives what forDataset reads', () => {
    expect(criteriaReads(() => { kept(); kept(); kept(); })).toBe(1);
    expect(kept()).toEqual(env.ctx.criteria.forDataset(ds));
    // Labels do not change criteria: the stamp stays, the list is not read again.
    expect(criteriaReads(() => { env.db.prepare('UPDATE dataset SET slots_filled = slots_filled + 1 WHERE id = ?').run(ds); kept(); })).toBe(0);
  });

  it('follows every change of the criteria through the service: create, update, archive', async () => {
    const admin = (await env.ctx.users.createUser(null, { email: 'admin@example.com', name: 'admin', role: 'admin', password: 'a long enough password' })).id;
    expect(names()).toEqual(['correct:g1:0']);
    const second = env.ctx.criteria.create(null, ds, { name: 'relevant', kind: 'binary', target: 'context', options: [], scale_min: null, scale_max: null, guidelines: '' });
    expect(names()).toEqual(['correct:g1:0', 'relevant::0']);
    const first = env.ctx.criteria.forDataset(ds)[0]!;
    env.ctx.criteria.update(admin, first.id, first.version, { guidelines: 'g2', archived: false });
    expect(names()).toEqual(['correct:g2:0', 'relevant::0']);
    env.ctx.criteria.update(admin, second.id, second.version, { guidelines: '', archived: true });
    expect(names()).toEqual(['correct:g2:0']);
  });

  it('follows a change made by another connection, outside the app', () => {
    expect(names()).toEqual(['correct:g1:0']);
    const other = new Database(env.file);
    try { other.prepare("UPDATE criterion SET guidelines = 'from sqlite3' WHERE dataset_id = ?").run(ds); } finally { other.close(); }
    expect(names()).toEqual(['correct:from sqlite3:0']);
  });

  it('does not keep a list read inside a transaction that rolled back as the list of the row after it', () => {
    const before = names();
    const stampBefore = row().criteria_stamp;
    expect(() => env.db.transaction(() => {
      env.db.prepare("UPDATE criterion SET guidelines = 'rolled back' WHERE dataset_id = ?").run(ds);
      expect(names()).toEqual(['correct:rolled back:0']); // kept under the stamp of this transaction
      throw new Error('roll back');
    })()).toThrow('roll back');
    expect(row().criteria_stamp).toBe(stampBefore);
    // The next change, with nothing read in between, gets a stamp of its own: a counter rolled back
    // would count up to the rolled-back stamp again, and the list kept under it would be given.
    env.db.prepare("UPDATE criterion SET guidelines = 'g3' WHERE dataset_id = ?").run(ds);
    expect(names()).toEqual(['correct:g3:0']);
    // And a row read after a rollback gets the list from before it.
    expect(() => env.db.transaction(() => {
      env.db.prepare("UPDATE criterion SET guidelines = 'rolled back again' WHERE dataset_id = ?").run(ds);
      expect(names()).toEqual(['correct:rolled back again:0']);
      throw new Error('roll back');
    })()).toThrow('roll back');
    expect(names()).toEqual(['correct:g3:0']);
    expect(before).toEqual(['correct:g1:0']);
  });

  it('gives a frozen list: a caller cannot change what the next request reads', () => {
    const list = kept();
    expect(() => { (list as unknown as unknown[]).push(null); }).toThrow(TypeError);
    expect(() => { (list[0] as { name: string }).name = 'changed'; }).toThrow(TypeError);
    expect(names()).toEqual(['correct:g1:0']);
  });

  it('each change of the criteria sets a new stamp (migration 0023), on insert, update and delete', () => {
    const stamps = [row().criteria_stamp];
    const c = env.ctx.criteria.create(null, ds, { name: 'second', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null, guidelines: '' });
    stamps.push(row().criteria_stamp);
    env.db.prepare("UPDATE criterion SET guidelines = 'x' WHERE id = ?").run(c.id);
    stamps.push(row().criteria_stamp);
    env.db.prepare('DELETE FROM criterion WHERE id = ?').run(c.id);
    stamps.push(row().criteria_stamp);
    expect(new Set(stamps).size).toBe(stamps.length);
  });
});
