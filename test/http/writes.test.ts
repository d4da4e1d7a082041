// Writes: an archived dataset refuses every write path but un-archiving; every write of a thing two
// people can edit carries the version it read ("none yet" included), and a stale one gets the
// conflict view; approval needs someone who neither wrote nor last changed the sample; ids from
// another dataset are never used; a labeller's prompt lab offers only items they may read.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { ADMIN, Client, loginAs, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';
import { holdoutPart } from '../../server/calibration/holdout.ts';

let app: TestApp;
let fake: FakeOpenAI;
let admin: Client;
let adminId: number;

interface Seeded { id: number; responses: number[]; criterion: number; run: number; samples: number[] }

async function seed(name: string): Promise<Seeded> {
  const id = app.ctx.datasets.create(adminId, { name, description: '', language: 'en', domain: '' }).id;
  const file = path.join(app.dir, `${name}.jsonl`);
  fs.writeFileSync(file, Array.from({ length: 6 }, (_, i) => JSON.stringify({
    user_input: `${name} question ${i}: how many leave days?`, reference: 'Ten.', response: i % 2 ? 'Ten days.' : 'Five days.',
    retrieved_contexts: ['Leave is ten days.'], 'human.correct': i % 2 ? 'yes' : 'no', faithfulness: (i % 3) / 2,
  })).join('\n'));
  const expert = app.ctx.users.queries.byEmail('li@example.com')?.id
    ?? app.ctx.users.queries.insert({ email: 'li@example.com', name: 'Li', role: 'expert', password_hash: null });
  const res = await app.ctx.imports.importFile(adminId, id, file, { format: 'jsonl', annotatorId: expert, runName: 'ragas' });
  if (!res.ok) throw new Error(JSON.stringify(res));
  const all = (sql: string) => app.ctx.db.prepare(sql).pluck().all(id) as number[];
  return { id, responses: all('SELECT id FROM response WHERE dataset_id = ? ORDER BY id'), criterion: all('SELECT id FROM criterion WHERE dataset_id = ?')[0]!,
    run: all('SELECT id FROM run WHERE dataset_id = ?')[0]!, samples: all('SELECT id FROM sample WHERE dataset_id = ? ORDER BY id') };
}

beforeAll(async () => {
  fake = await startFakeOpenAI();
  app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
  admin = await setupAdmin(app);
  adminId = app.ctx.users.queries.byEmail(ADMIN.email)!.id;
}, 60_000);
afterAll(async () => { await app.close(); await fake.close(); });

/** Everything a write could change, to compare before and after a refused one. */
function snapshot(datasetId: number) {
  const one = (sql: string) => app.ctx.db.prepare(sql).all(datasetId);
  return JSON.stringify({
    dataset: one('SELECT name, archived, version, overlap FROM dataset WHERE id = ?'),
    samples: one('SELECT id, question, status, version FROM sample WHERE dataset_id = ? ORDER BY id'),
    responses: one('SELECT count(*) AS n FROM response WHERE dataset_id = ?'),
    criteria: one('SELECT id, guidelines, version FROM criterion WHERE dataset_id = ? ORDER BY id'),
    annotations: one('SELECT id, state, rationale, version FROM annotation WHERE dataset_id = ? ORDER BY id'),
    adjudications: one('SELECT j.id FROM adjudication j JOIN response r ON r.id = j.response_id WHERE r.dataset_id = ?'),
    runs: one('SELECT id, status FROM run WHERE dataset_id = ? ORDER BY id'),
    prompts: one('SELECT id FROM prompt_version WHERE dataset_id = ?'),
    metrics: one('SELECT id FROM metric WHERE dataset_id = ?'),
    calibrations: one('SELECT id FROM calibration WHERE dataset_id = ?'),
    verdicts: one('SELECT id FROM review_verdict WHERE dataset_id = ?'),
    members: one('SELECT user_id FROM dataset_member WHERE dataset_id = ?'),
  });
}

describe('archived datasets', () => {
  it('refuse every write path with 409, changing nothing; un-archiving still works', async () => {
    const d = await seed('Archived');
    const { id } = d;
    const sample = app.ctx.samples.get(d.samples[0]!)!;
    const criterion = app.ctx.criteria.get(d.criterion)!;
    await admin.get(`/datasets/${id}/settings`);
    expect((await admin.post(`/datasets/${id}/settings`, { name: 'Archived', language: 'en', description: '', domain: '', archived: '1', version: 1 })).status).toBe(303);
    const version = app.ctx.datasets.get(id)!.version;
    const before = snapshot(id);
    await admin.get(`/datasets/${id}`);
    const token = app.ctx.tokens.create(adminId, 'ci');
    const form = { metric: 'faithfulness', step: 'statements', instruction: 'x', output_format: '', examples: '[]', language: 'en', note: '', criterion: d.criterion };
    const writes: [string, () => Promise<number>][] = [
      ['add a sample', async () => (await admin.post(`/datasets/${id}/samples`, { question: 'New?' })).status],
      ['edit a sample', async () => (await admin.post(`/samples/${sample.id}`, { question: 'Edited?', version: sample.version })).status],
      ['submit a sample', async () => (await admin.post(`/samples/${sample.id}/status`, { version: sample.version, action: 'submit' })).status],
      ['add a criterion', async () => (await admin.post(`/datasets/${id}/criteria`, { name: 'new_one', kind: 'binary', target: 'response', guidelines: '' })).status],
      ['edit a criterion', async () => (await admin.post(`/criteria/${criterion.id}`, { guidelines: 'changed', version: criterion.version })).status],
      ['label', async () => (await admin.post(`/responses/${d.responses[0]}/label`, { [`c${criterion.id}`]: '1', version: 0 })).status],
      ['save a draft', async () => (await admin.post(`/responses/${d.responses[0]}/draft`, { [`c${criterion.id}`]: '1' })).status],
      ['reserve the next item', async () => (await admin.post(`/datasets/${id}/label/next`, {})).status],
      ['adjudicate', async () => (await admin.post(`/responses/${d.responses[0]}/adjudicate`, { criterion: criterion.id, context_index: -1, value: '1', reason: 'r', version: 0 })).status],
      ['record a verdict', async () => (await admin.post(`/runs/${d.run}/review/${d.responses[0]}?criterion=${criterion.id}`, { verdict: 'ambiguous', note: '' })).status],
      ['start a run', async () => (await admin.post(`/datasets/${id}/runs`, { metric: 'exact_match', name: 'new run' })).status],
      ['save a prompt version', async () => (await admin.post(`/datasets/${id}/prompts`, form)).status],
      ['create a metric', async () => (await admin.post(`/datasets/${id}/metrics`, { key: 'combo', kind: 'composite', components: 'exact_match=1' })).status],
      ['run a prompt-lab draft', async () => (await admin.post(`/datasets/${id}/prompt-lab/run`, form)).status],
      ['run the held-out check', async () => (await admin.post(`/datasets/${id}/prompt-lab/final`, { run: d.run, criterion: d.criterion })).status],
      ['record a calibration', async () => (await admin.post(`/datasets/${id}/calibration/record`, { criterion: d.criterion, run: d.run, part: 'all', threshold: '0.5' })).status],
      ['import a file', async () => (await admin.upload(`/datasets/${id}/import`, 'more.jsonl', '{"question": "Imported?"}')).status],
      ['push through the API', async () => (await fetch(`${app.url}/api/v1/datasets/${id}/responses`, { method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: '[{"question": "API?", "response": "a"}]' })).status],
      ['change a metric setting', async () => (await admin.post(`/datasets/${id}/metrics/answer_relevancy/settings`, { noncommittal: 'any', version: 0 })).status],
      ['draw an estimation sample', async () => (await admin.post(`/datasets/${id}/estimate/samples`, { system: '', size: 2, seed: 1 })).status],
      ['change the assignment', async () => (await admin.post(`/datasets/${id}/assignment`, { overlap: 2, version })).status],
      ['rename while archived', async () => (await admin.post(`/datasets/${id}/settings`, { name: 'Renamed', language: 'en', description: '', domain: '', archived: '1', version })).status],
    ];
    for (const [what, write] of writes) expect(await write(), what).toBe(409);
    const cli = await new Promise<number | null>((resolve) => {
      const file = path.join(app.dir, 'cli.jsonl');
      fs.writeFileSync(file, '{"question": "From the CLI?"}');
      spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'import', file, '--dataset', 'Archived'], {
        cwd: path.resolve(import.meta.dirname, '../..'), env: { ...process.env, GOLDSET_DB: app.ctx.config.dbFile },
      }).on('close', resolve);
    });
    expect(cli).toBe(2);
    expect(snapshot(id)).toBe(before);
    expect((await admin.post(`/datasets/${id}/settings`, { name: 'Archived', language: 'en', description: '', domain: '', version })).status).toBe(303);
    expect(app.ctx.datasets.get(id)!.archived).toBe(0);
  });
});

describe('lost updates', () => {
  let d: Seeded;
  let other: Client;
  beforeAll(async () => {
    d = await seed('Versions');
    other = await loginAs(app, 'judge2@example.com', 'admin');
  });

  it('refuses the second of two first decisions on a disputed item', async () => {
    const rid = d.responses[1]!;
    await admin.get(`/responses/${rid}`);
    await other.get(`/responses/${rid}`);
    const base = { criterion: d.criterion, context_index: -1, version: 0 };
    expect((await admin.post(`/responses/${rid}/adjudicate`, { ...base, value: '0', reason: 'first' })).status).toBe(303);
    const late = await other.post(`/responses/${rid}/adjudicate`, { ...base, value: '1', reason: 'second' });
    expect(late.status).toBe(409);
    expect(app.ctx.labels.adjudications(rid)[0]).toMatchObject({ value: '0', reason: 'first' });
  });

  it('refuses a "judge right" correction based on a gold value someone changed meanwhile, and a second first verdict', async () => {
    const rid = d.responses[2]!;
    const url = `/runs/${d.run}/review/${rid}?criterion=${d.criterion}`;
    const page = await admin.get(url);
    const goldVersion = Number(/name="gold_version" value="(\d+)"/.exec(page.text)![1]);
    expect(goldVersion).toBe(0);
    await other.get(`/responses/${rid}`);
    expect((await other.post(`/responses/${rid}/adjudicate`, { criterion: d.criterion, context_index: -1, value: '1', reason: 'checked', version: 0 })).status).toBe(303);
    const stale = await admin.post(url, { verdict: 'judge_right', gold: '0', note: 'the judge is right', verdict_version: 0, gold_version: goldVersion });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('Someone else recorded a verdict or set the gold value');
    expect(app.ctx.labels.adjudications(rid)[0]).toMatchObject({ value: '1', reason: 'checked' });
    // Two reviewers recording the first verdict on one item.
    expect((await other.post(url, { verdict: 'expert_right', note: '', verdict_version: 0 })).status).toBe(303);
    expect((await admin.post(url, { verdict: 'ambiguous', note: '', verdict_version: 0 })).status).toBe(409);
    expect(app.ctx.calibration.verdict(d.run, rid, d.criterion)?.verdict).toBe('expert_right');
  });

  it('refuses the second of one expert\'s two tabs on an item without an annotation yet', async () => {
    const expert = await loginAs(app, 'tabs@example.com', 'expert');
    const rid = d.responses[3]!;
    const tab1 = await expert.get(`/responses/${rid}/label`);
    const tab2 = await expert.get(`/responses/${rid}/label`);
    expect(tab1.status, tab1.text.slice(-600)).toBe(200);
    // No annotation yet: the form's version is empty (preact writes a bare `value`), read as 0, "none yet".
    const version = (html: string) => /name="version" value(?:="(\d*)")?/.exec(html)![1] ?? '';
    expect((await expert.post(`/responses/${rid}/label`, { [`c${d.criterion}`]: '1', rationale: 'tab one', version: version(tab1.text) })).status).toBe(303);
    const late = await expert.post(`/responses/${rid}/label`, { [`c${d.criterion}`]: '0', rationale: 'tab two', version: version(tab2.text) });
    expect(late.status).toBe(409);
    expect(app.ctx.labels.mine(rid, app.ctx.users.queries.byEmail('tabs@example.com')!.id)!.annotation.rationale).toBe('tab one');
  });

  it('refuses stale criterion guidelines, dataset settings and assignment, keeping the first change', async () => {
    const c = app.ctx.criteria.get(d.criterion)!;
    await admin.get(`/datasets/${d.id}/criteria`);
    expect((await admin.post(`/criteria/${c.id}`, { guidelines: 'first guidelines', version: c.version })).status).toBe(303);
    const stale = await other.post(`/criteria/${c.id}`, { guidelines: 'second guidelines', version: c.version });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('second guidelines');
    expect(app.ctx.criteria.get(c.id)!.guidelines).toBe('first guidelines');
    // The reason is in that criterion's own form, which shows what the other person saved.
    const ownForm = (html: string) => new RegExp(`<form method="post" action="/criteria/${c.id}">(.*?)</form>`, 's').exec(html)![1]!;
    expect(ownForm(stale.text)).toContain('role="alert">Someone else saved');
    expect(ownForm(stale.text)).toContain('>first guidelines</textarea>');
    // An invalid change keeps what was typed in that form, and says why there.
    const fresh = app.ctx.criteria.get(c.id)!;
    const invalid = await admin.post(`/criteria/${c.id}`, { guidelines: 'kept guidelines', options: 'Yes\nNo\nMaybe', version: fresh.version });
    expect(invalid.status).toBe(422);
    expect(ownForm(invalid.text)).toContain('role="alert">A yes/no criterion has exactly two options');
    expect(ownForm(invalid.text)).toContain('>Yes\nNo\nMaybe</textarea>');
    expect(ownForm(invalid.text)).toContain('>kept guidelines</textarea>');
    expect(app.ctx.criteria.get(c.id)!.guidelines).toBe('first guidelines');

    const v = app.ctx.datasets.get(d.id)!.version;
    const settings = { language: 'en', description: '', domain: '', version: v };
    expect((await admin.post(`/datasets/${d.id}/settings`, { ...settings, name: 'Versions 2' })).status).toBe(303);
    const late = await other.post(`/datasets/${d.id}/settings`, { ...settings, name: 'Versions 3' });
    expect(late.status).toBe(409);
    expect(late.text).toContain('Versions 3'); // what they typed stays in the form
    expect(app.ctx.datasets.get(d.id)!.name).toBe('Versions 2');
    expect((await other.post(`/datasets/${d.id}/assignment`, { overlap: 3, version: v })).status).toBe(409);
    expect(app.ctx.datasets.get(d.id)!.overlap).toBe(1);
  });
});

describe('approval', () => {
  it('needs someone who neither wrote the sample nor last changed it', async () => {
    const ds = app.ctx.datasets.create(adminId, { name: 'Four eyes', description: '', language: 'en', domain: '' }).id;
    const writer = await loginAs(app, 'writer@example.com', 'expert');
    const editor = await loginAs(app, 'editor@example.com', 'expert');
    const reviewer = await loginAs(app, 'reviewer@example.com', 'expert');
    await writer.get(`/datasets/${ds}`);
    await writer.post(`/datasets/${ds}/samples`, { question: 'How long is probation?', ground_truth: 'Three months.' });
    const id = app.ctx.samples.queries.list({ datasetId: ds }, { limit: 1, offset: 0 }).rows[0]!.id;
    await writer.post(`/samples/${id}/status`, { version: 1, action: 'submit' });
    await editor.get(`/samples/${id}`);
    expect((await editor.post(`/samples/${id}`, { question: 'How long is probation?', ground_truth: 'Three months; can be shortened.', version: 2 })).status).toBe(303);
    const page = await editor.get(`/samples/${id}`);
    expect(page.text).toContain('You last changed this sample');
    const own = await editor.post(`/samples/${id}/status`, { version: 3, action: 'approve' });
    expect(own.status).toBe(422);
    expect(own.text).toContain('You last changed this sample; another expert must approve it.');
    expect((await writer.post(`/samples/${id}/status`, { version: 3, action: 'approve' })).status).toBe(422);
    expect((await reviewer.post(`/samples/${id}/status`, { version: 3, action: 'approve' })).status).toBe(303);
    expect(app.ctx.samples.get(id)!.status).toBe('approved');
  });
});

describe('ids from another dataset', () => {
  it('are not found (or not used) on every route that takes one', async () => {
    const mine = await seed('Mine');
    const theirs = await seed('Theirs');
    await admin.get(`/datasets/${mine.id}`);
    const runsBefore = app.ctx.db.prepare('SELECT count(*) FROM run').pluck().get();
    const lab = { metric: 'faithfulness', step: 'statements', instruction: 'x', output_format: '', examples: '[]', language: 'en', note: '' };
    expect((await admin.post(`/datasets/${mine.id}/prompt-lab/final`, { run: mine.run, criterion: theirs.criterion })).status).toBe(422);
    expect((await admin.post(`/datasets/${mine.id}/prompt-lab/final`, { run: theirs.run, criterion: mine.criterion })).status).toBe(404);
    expect(app.ctx.db.prepare('SELECT count(*) FROM run').pluck().get()).toBe(runsBefore);
    expect((await admin.post(`/datasets/${mine.id}/prompt-lab/add-example`, { ...lab, criterion: mine.criterion, example: theirs.responses[0]! })).status).toBe(404);
    expect((await admin.get(`/datasets/${mine.id}/compare?a=${mine.run}&b=${mine.run}&criterion=${theirs.criterion}`)).status).toBe(404);
    expect((await admin.get(`/datasets/${mine.id}/compare?a=${mine.run}&b=${theirs.run}&criterion=${mine.criterion}`)).status).toBe(404);
    const adjudicate = await admin.post(`/responses/${mine.responses[0]}/adjudicate`, { criterion: theirs.criterion, context_index: -1, value: '1', reason: 'r', version: 0 });
    expect(adjudicate.status).toBe(422);
    expect((await admin.get(`/runs/${mine.run}/review/${theirs.responses[0]}?criterion=${mine.criterion}`)).status).toBe(404);
    expect((await admin.post(`/runs/${mine.run}/review/${theirs.responses[0]}?criterion=${mine.criterion}`, { verdict: 'ambiguous', note: '' })).status).toBe(404);
    expect((await admin.get(`/runs/${mine.run}/scores/${theirs.responses[0]}`)).status).toBe(404);
    expect((await admin.post(`/responses/${mine.responses[0]}/label`, { [`c${theirs.criterion}`]: '1', [`c${mine.criterion}`]: '1', version: 0 })).status).toBe(422);
    // Pages that pick a criterion or run from a list fall back to the dataset's own, never show the other's.
    const report = await admin.get(`/datasets/${mine.id}/calibration?criterion=${theirs.criterion}&run=${theirs.run}`);
    expect(report.text).toContain(`name="run"`);
    expect(report.text).not.toContain(`value="${theirs.run}" selected`);
    expect((await admin.post(`/datasets/${mine.id}/calibration/record`, { criterion: theirs.criterion, run: theirs.run, part: 'all', threshold: '0.5' })).status).toBe(303);
    expect(app.ctx.db.prepare('SELECT DISTINCT run_id FROM calibration WHERE dataset_id = ?').pluck().all(mine.id)).toEqual([mine.run]);
    expect(app.ctx.db.prepare('SELECT count(*) FROM adjudication j JOIN response r ON r.id = j.response_id WHERE r.dataset_id IN (?, ?)').pluck().get(mine.id, theirs.id)).toBe(0);
    expect(app.ctx.db.prepare('SELECT count(*) FROM review_verdict WHERE response_id = ?').pluck().get(theirs.responses[0])).toBe(0);
  });
});

describe('blind labels in the prompt lab and exports', () => {
  it('offers a labeller only items they labelled as few-shot examples, and refuses them exports with gold', async () => {
    const d = await seed('Blind');
    const lab = await loginAs(app, 'labeller@example.com', 'expert');
    const labId = app.ctx.users.queries.byEmail('labeller@example.com')!.id;
    app.ctx.labels.setAssignment(adminId, d.id, app.ctx.datasets.get(d.id)!.version, 1, [{ userId: labId, label: true, adjudicate: false }]);
    const page = await lab.get(`/datasets/${d.id}/prompt-lab?metric=faithfulness`);
    expect([...page.text.matchAll(/<tr id="cand-(\d+)"/g)]).toHaveLength(0);
    const seedOf = app.ctx.datasets.get(d.id)!.holdout_seed;
    const rid = d.responses.find((r) => holdoutPart(seedOf, r) === 'calibration')!;
    await lab.get(`/responses/${rid}/label`);
    // Agreeing with the other expert, so the item has a gold value and can be an example.
    const agreed = d.responses.indexOf(rid) % 2 ? '1' : '0';
    expect((await lab.post(`/responses/${rid}/label`, { [`c${d.criterion}`]: agreed, version: 0 })).status).toBe(303);
    const after = await lab.get(`/datasets/${d.id}/prompt-lab?metric=faithfulness`);
    const offered = [...after.text.matchAll(/<tr id="cand-(\d+)"/g)].map((m) => Number(m[1]));
    expect(offered).toEqual([rid]);
    for (const query of ['format=goldset-jsonl', 'format=ragas-jsonl&responses=1', 'format=spreadsheet-csv&responses=1']) {
      expect((await lab.get(`/datasets/${d.id}/export/download?${query}`)).status, query).toBe(403);
    }
    expect((await lab.get(`/datasets/${d.id}/export/download?format=ragas-jsonl`)).status).toBe(200);
    const exportPage = await lab.get(`/datasets/${d.id}/export`);
    expect(exportPage.text).toMatch(/value="goldset-jsonl" disabled/);
  });
});
