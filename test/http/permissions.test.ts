// The permission table, generated from server/access/permissions.ts: for every resource and action of
// PERMISSIONS, every role and assignment (listed labeller or not, adjudicator, own label submitted,
// dataset archived), the rule says allowed or refused, and a real request through the app must agree.
// The test works out each user's standing from its own setup, not from the app's facts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, type ItemFacts, type Standing } from '../../server/access/permissions.ts';
import type { Role } from '../../server/http/context.ts';
import { ADMIN, Client, loginAs, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';

let app: TestApp;
const clients = new Map<string, Client>();
const ids = new Map<string, number>();

/** Who the users are, and what they are in dataset A (labellers listed) — B lists nobody, C is A archived. */
const USERS: { name: string; role: Role; labeller: boolean; adjudicator: boolean; submitted: boolean }[] = [
  { name: 'admin', role: 'admin', labeller: false, adjudicator: false, submitted: false },
  { name: 'lab', role: 'expert', labeller: true, adjudicator: false, submitted: false },
  { name: 'labdone', role: 'expert', labeller: true, adjudicator: false, submitted: true },
  { name: 'adj', role: 'expert', labeller: false, adjudicator: true, submitted: false },
  { name: 'outside', role: 'expert', labeller: false, adjudicator: false, submitted: false },
  { name: 'viewer', role: 'viewer', labeller: false, adjudicator: false, submitted: false },
];
const DATASETS = [
  { name: 'A', listed: true, archived: false },
  { name: 'B', listed: false, archived: false },
  { name: 'C', listed: true, archived: true },
];
const email = (name: string) => (name === 'admin' ? ADMIN.email : `${name}@example.com`);

function standing(user: (typeof USERS)[number], d: (typeof DATASETS)[number]): Standing {
  return { role: user.role, labellersListed: d.listed, listedLabeller: d.listed && user.labeller, listedAdjudicator: d.listed && user.adjudicator, archived: d.archived };
}

beforeAll(async () => {
  app = await startTestApp();
  const { ctx } = app;
  clients.set('admin', await setupAdmin(app));
  for (const u of USERS.slice(1)) clients.set(u.name, await loginAs(app, email(u.name), u.role));
  const writer = (await ctx.users.createUser(null, { email: 'writer@example.com', name: 'w', role: 'expert', password: 'a long enough password' })).id;
  const uid = (name: string) => ctx.users.queries.byEmail(email(name))!.id;
  for (const d of DATASETS) {
    const ds = ctx.datasets.create(null, { name: d.name, description: '', language: 'en', domain: '' }).id;
    ids.set(d.name, ds);
    const sample = ctx.samples.create(writer, ds, { question: `Leave in ${d.name}?`, ground_truth: 'Ten days.', reference_contexts: [], tags: [], source: '', notes: '' });
    const rid = Number(ctx.db.prepare(`INSERT INTO response (sample_id, dataset_id, answer, retrieved_contexts, content_hash) VALUES (?, ?, 'Ten.', '["ctx"]', 'h')`)
      .run(sample.id, ds).lastInsertRowid);
    ids.set(`${d.name}:response`, rid);
    const criterion = ctx.criteria.create(null, ds, { name: 'correct', kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null, guidelines: '' });
    ids.set(`${d.name}:criterion`, criterion.id);
    ctx.labels.setAssignment(uid('admin'), ds, ctx.datasets.get(ds)!.version, 1, d.listed
      ? USERS.filter((u) => u.role !== 'viewer').map((u) => ({ userId: uid(u.name), label: u.labeller, adjudicate: u.adjudicator }))
      : []);
    const author = { id: uid('labdone'), email: email('labdone'), name: 'labdone', role: 'expert' as const, locale: null };
    ctx.labels.submit(author, { id: rid, dataset_id: ds }, [criterion], { values: new Map([[String(criterion.id), '1']]), rationale: `RATIONALE-MARK ${d.name}`, corrected_answer: '' }, 0);
    // One sample in review per user, written by someone else, for the approval probe.
    for (const u of USERS) {
      const s = ctx.samples.create(writer, ds, { question: `To approve by ${u.name} in ${d.name}`, ground_truth: 'g', reference_contexts: [], tags: [], source: '', notes: '' });
      ctx.samples.transition(writer, s.id, s.version, 'submit');
      ids.set(`${d.name}:approve:${u.name}`, s.id);
    }
    if (d.archived) ctx.db.prepare('UPDATE dataset SET archived = 1 WHERE id = ?').run(ds);
  }
  for (const c of clients.values()) await c.get('/datasets');
}, 60_000);
afterAll(async () => { await app.close(); });

type Probe = (c: Client, d: (typeof DATASETS)[number], user: string) => Promise<boolean>;
const ok = (status: number) => status >= 200 && status < 400;
const refused = (status: number) => status === 403 || status === 409;

/** One request per resource and action that succeeds exactly when the rule allows it (and is refused with 403/409 otherwise). */
const PROBES: { [R in keyof typeof PERMISSIONS]: { [A in keyof (typeof PERMISSIONS)[R]]: Probe } } = {
  dataset: {
    read: async (c, d) => (await c.get(`/datasets/${ids.get(d.name)}`)).status === 200,
    write: async (c, d, user) => {
      const res = await c.post(`/datasets/${ids.get(d.name)}/criteria`, { name: `made_by_${user}`, kind: 'binary', target: 'response', guidelines: '' });
      const made = app.ctx.criteria.queries.byName(ids.get(d.name)!, `made_by_${user}`) !== undefined;
      expect(made ? ok(res.status) : refused(res.status), `${user} ${d.name} write ${res.status}`).toBe(true);
      return made;
    },
    settings: async (c, d) => (await c.get(`/datasets/${ids.get(d.name)}/settings`)).status === 200,
    assign: async (c, d, user) => {
      const ds = ids.get(d.name)!;
      const before = app.ctx.datasets.get(ds)!.version;
      const res = await c.post(`/datasets/${ds}/assignment`, { overlap: 1, version: before });
      const changed = app.ctx.datasets.get(ds)!.version !== before;
      expect(changed ? ok(res.status) : refused(res.status), `${user} ${d.name} assign ${res.status}`).toBe(true);
      // Put the assignment back as it was for the probes that follow.
      if (changed) {
        const uid = (n: string) => app.ctx.users.queries.byEmail(email(n))!.id;
        app.ctx.db.prepare('DELETE FROM dataset_member WHERE dataset_id = ?').run(ds);
        if (d.listed) for (const u of USERS.filter((x) => x.role !== 'viewer' && (x.labeller || x.adjudicator))) {
          app.ctx.db.prepare('INSERT INTO dataset_member (dataset_id, user_id, can_label, can_adjudicate) VALUES (?, ?, ?, ?)').run(ds, uid(u.name), u.labeller ? 1 : 0, u.adjudicator ? 1 : 0);
        }
      }
      return changed;
    },
  },
  labels: {
    write: async (c, d, user) => {
      const rid = ids.get(`${d.name}:response`)!;
      const res = await c.post(`/responses/${rid}/draft`, { [`c${ids.get(`${d.name}:criterion`)}`]: '1', rationale: `draft by ${user}` });
      const saved = app.ctx.db.prepare("SELECT count(*) FROM annotation WHERE response_id = ? AND rationale = ?").pluck().get(rid, `draft by ${user}`) === 1;
      if (!saved && user === 'labdone') return false; // a submitted annotation keeps its rationale only on submit
      expect(saved ? ok(res.status) : refused(res.status), `${user} ${d.name} label ${res.status}`).toBe(true);
      return saved;
    },
    adjudicate: async (c, d, user) => {
      const rid = ids.get(`${d.name}:response`)!, cid = ids.get(`${d.name}:criterion`)!;
      const current = app.ctx.labels.adjudications(rid)[0];
      const res = await c.post(`/responses/${rid}/adjudicate`, { criterion: cid, context_index: -1, value: '0', reason: `by ${user}`, version: current?.version ?? 0 });
      const decided = app.ctx.labels.adjudications(rid)[0]?.reason === `by ${user}`;
      expect(decided ? ok(res.status) : refused(res.status), `${user} ${d.name} adjudicate ${res.status}`).toBe(true);
      return decided;
    },
    readItem: async (c, d) => {
      // labdone's submitted label, with its rationale (which the labels.write probe may have edited since).
      const page = await c.get(`/responses/${ids.get(`${d.name}:response`)}`);
      return page.text.includes(`<div class="rationale"><p class="sub">${email('labdone')}`);
    },
    readAll: async (c, d) => {
      const res = await c.get(`/datasets/${ids.get(d.name)}/export/download?format=ragas-jsonl&status=all&responses=1`);
      expect(res.status === 200 || res.status === 403).toBe(true);
      return res.status === 200;
    },
  },
  sample: {
    approve: async (c, d, user) => {
      const id = ids.get(`${d.name}:approve:${user}`)!;
      const res = await c.post(`/samples/${id}/status`, { version: app.ctx.samples.get(id)!.version, action: 'approve' });
      const approved = app.ctx.samples.get(id)!.status === 'approved';
      expect(approved ? ok(res.status) : [403, 409, 422].includes(res.status), `${user} ${d.name} approve ${res.status}`).toBe(true);
      return approved;
    },
  },
};

describe('the permission table (generated from server/access/permissions.ts)', () => {
  const rows: string[] = [];
  for (const [resource, actions] of Object.entries(PERMISSIONS) as [keyof typeof PERMISSIONS, Record<string, (s: Standing, f: never) => boolean>][]) {
    for (const action of Object.keys(actions)) {
      it(`${resource}.${action}: every role and assignment gets what the rule says`, async () => {
        for (const d of DATASETS) {
          for (const user of USERS) {
            const item: ItemFacts & { wroteOrLastChanged: boolean } = { submittedOwn: user.submitted, wroteOrLastChanged: false };
            const expected = (actions[action] as (s: Standing, f: typeof item) => boolean)(standing(user, d), item);
            const probe = (PROBES[resource] as Record<string, Probe>)[action]!;
            const actual = await probe(clients.get(user.name)!, d, user.name);
            rows.push(`${resource}.${action} ${d.name} ${user.name}: ${expected}`);
            expect(actual, `${resource}.${action} in ${d.name} (${d.listed ? 'labellers listed' : 'nobody listed'}${d.archived ? ', archived' : ''}) for ${user.name}`).toBe(expected);
          }
        }
      });
    }
  }

  it('covers every rule with a probe', () => {
    for (const [resource, actions] of Object.entries(PERMISSIONS)) {
      for (const action of Object.keys(actions)) expect((PROBES as Record<string, Record<string, unknown>>)[resource]?.[action], `${resource}.${action}`).toBeTypeOf('function');
    }
  });
});
