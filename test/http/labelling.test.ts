// Responses, criteria, the labelling queue and workspace, drafts, conflicts, disagreements and adjudication.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loginAs, setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';

let app: TestApp;
let admin: Client;
let datasetId: number;

const RESULTS = [
  'user_input,retrieved_contexts,response,reference,system',
  `张伟是哪个部门的？,"['牛顿发现了万有引力', '张伟 教研部工程师，他最近在负责课程研发']",张伟是教研部的,张伟是教研部的成员,rag-v1`,
  `张伟是哪个部门的？,"['李凯 教研部主任 ', '牛顿发现了万有引力']",张伟是人事部门的,张伟是教研部的成员,rag-v2`,
  `How do I request leave?,"['Leave is requested in the OA system.']",Use the OA system.,Submit it in the OA system.,rag-v1`,
].join('\n');

beforeEach(async () => {
  app = await startTestApp({}, { labelThread: true }); // as server/main.ts runs it: htmx save-and-next in the labelling thread
  admin = await setupAdmin(app);
  const res = await admin.post('/datasets', { name: 'Labels', language: 'zh', description: '', domain: '' });
  datasetId = Number(res.headers.get('location')!.split('/').pop());
  await admin.get(`/datasets/${datasetId}/import`);
  const imported = await admin.upload(`/datasets/${datasetId}/import`, 'results.csv', RESULTS);
  expect(imported.status).toBe(200);
});
afterEach(async () => { await app.close(); });

const responseIds = () => app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(datasetId) as number[];

async function addCriteria(c: Client) {
  await c.get(`/datasets/${datasetId}/criteria`);
  expect((await c.post(`/datasets/${datasetId}/criteria`, { name: 'correct', kind: 'binary', target: 'response', options: 'Correct\nWrong', guidelines: 'Is the answer right?' })).status).toBe(303);
  expect((await c.post(`/datasets/${datasetId}/criteria`, { name: 'relevant', kind: 'binary', target: 'context', options: '', guidelines: '' })).status).toBe(303);
  const [correct, relevant] = app.ctx.criteria.forDataset(datasetId);
  return { correct: correct!.id, relevant: relevant!.id };
}

/** The "Start labelling" / Skip button as htmx posts it: reserves the next item and answers with its workspace. */
function handOut(c: Client, fields: Record<string, string | number> = {}) {
  return c.post(`/datasets/${datasetId}/label/next`, fields, { headers: { 'HX-Request': 'true' } });
}

function submit(c: Client, responseId: number, fields: Record<string, string | number>) {
  return c.post(`/responses/${responseId}/label`, fields, { headers: { 'HX-Request': 'true' } });
}

describe('responses', () => {
  it('attaches imported answers to their samples, two systems for one question, and never stores one twice', async () => {
    expect(responseIds()).toHaveLength(3);
    const samples = app.ctx.db.prepare('SELECT count(*) FROM sample WHERE dataset_id = ?').pluck().get(datasetId);
    expect(samples).toBe(2);
    const again = await admin.upload(`/datasets/${datasetId}/import`, 'results.csv', RESULTS);
    expect(again.text).toContain('Responses: 0 new, 3 already present.');
    expect(responseIds()).toHaveLength(3);
    const systems = app.ctx.responses.systems(datasetId).map((s) => s.system);
    expect(systems).toEqual(['rag-v1', 'rag-v2']);
  });
});

describe('criteria', () => {
  it('refuses a categorical criterion with one option and a per-context criterion that is not binary', async () => {
    await admin.get(`/datasets/${datasetId}/criteria`);
    const one = await admin.post(`/datasets/${datasetId}/criteria`, { name: 'verdict', kind: 'categorical', target: 'response', options: 'only', guidelines: '' });
    expect(one.status).toBe(422);
    expect(one.text).toContain('at least two options');
    const ctx = await admin.post(`/datasets/${datasetId}/criteria`, { name: 'score', kind: 'ordinal', target: 'context', options: '', scale_min: '1', scale_max: '5', guidelines: '' });
    expect(ctx.status).toBe(422);
    expect(ctx.text).toContain('must be binary');
    expect(app.ctx.criteria.forDataset(datasetId)).toHaveLength(0);
  });
});

describe('labelling workspace', () => {
  it('shows a pending flash message on the full labelling page', async () => {
    const { correct } = await addCriteria(admin);
    // Saving a criterion leaves "Saved." for the next page; here that page is the labelling queue.
    expect((await admin.post(`/criteria/${correct}`, { guidelines: 'Right and complete?', options: 'Correct\nWrong', version: app.ctx.criteria.get(correct)!.version })).status).toBe(303);
    const page = await admin.get(`/datasets/${datasetId}/label`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div class="flash" role="status">Saved.</div>');
  });

  it('shows the question, ground truth, answer and contexts, marked for the browser to highlight the question\'s terms', async () => {
    await addCriteria(admin);
    const page = await admin.get(`/responses/${responseIds()[0]}/label`);
    expect(page.status).toBe(200);
    // The terms come from the question and ground truth, the contexts are sent as text (public/highlight.js marks them).
    expect(page.text).toMatch(/<h1 [^>]*data-highlight-terms[^>]*>张伟是哪个部门的？<\/h1>/);
    expect(page.text).toMatch(/<dd [^>]*data-highlight-terms[^>]*>张伟是教研部的成员<\/dd>/);
    expect(page.text).toMatch(/<p class="context-text" [^>]*data-highlight[^>]*>张伟 教研部工程师/);
    // An English page; the item's texts are marked as the dataset's Chinese (WCAG language of parts).
    expect(page.text).toContain('<html lang="en">');
    expect(page.text).toMatch(/<h1 class="ws-q" id="ws-question" lang="zh-CN"[^>]*>张伟是哪个部门的？/);
    expect(page.text).toMatch(/<dd lang="zh-CN"[^>]*>张伟是教研部的成员<\/dd>/);
    expect(page.text).toMatch(/<dd class="answer" lang="zh-CN">/);
    expect(page.text).toMatch(/<p class="context-text" lang="zh-CN"[^>]*>张伟 教研部工程师/);
    // So are they where they are listed and edited: the sample list, the sample's form.
    const list = await admin.get(`/datasets/${datasetId}`);
    expect(list.text).toMatch(/<td lang="zh-CN"><a href="\/samples\/\d+">张伟是哪个部门的？<\/a><\/td>/);
    const sampleId = app.ctx.db.prepare('SELECT id FROM sample WHERE dataset_id = ? ORDER BY id LIMIT 1').pluck().get(datasetId) as number;
    const form = (await admin.get(`/samples/${sampleId}`)).text;
    expect(form).toMatch(/<textarea id="f-question"[^>]* lang="zh-CN"[^>]*>张伟是哪个部门的？<\/textarea>/);
    for (const field of ['ground_truth', 'reference_contexts']) expect(form, field).toMatch(new RegExp(`<textarea id="f-${field}"[^>]* lang="zh-CN"`));
    expect(page.text).not.toContain('<mark>');
    expect(page.text).toContain('<script type="module" src="/static/highlight.js"></script>');
    expect(page.text).toContain('Is the answer right?');
  });

  it('saves a submitted label and answers with the next item without a full page', async () => {
    const { correct, relevant } = await addCriteria(admin);
    const [first, second] = responseIds();
    await admin.get(`/datasets/${datasetId}/label`);
    const start = await handOut(admin);
    expect(start.text).toContain(`data-response="${first}"`);
    const res = await submit(admin, first!, { [`c${correct}`]: '1', [`c${relevant}_1`]: '1', rationale: '对的', corrected_answer: '', version: '' });
    expect(res.status).toBe(200);
    expect(res.text.startsWith('<div id="workspace"')).toBe(true);
    expect(res.text).toContain(`data-response="${second}"`);
    expect(res.headers.get('hx-push-url')).toBe(`/responses/${second}/label`);
    const mine = app.ctx.labels.mine(first!, app.ctx.users.queries.byEmail('admin@example.com')!.id)!;
    expect(mine.annotation.state).toBe('submitted');
    expect(mine.labels.map((l) => [l.criterion_id, l.context_index, l.value]).sort()).toEqual([[correct, -1, '1'], [relevant, 0, '0'], [relevant, 1, '1']]);
    expect(app.ctx.audit.page({}).some((e) => e.entity_type === 'label' && e.action === 'submit')).toBe(true);
  });

  it('counts the expert\'s own submitted labels in the progress line, not drafts, and counts a re-submission once', async () => {
    const { correct } = await addCriteria(admin);
    const [first, second] = responseIds();
    await admin.get(`/datasets/${datasetId}/label`);
    const one = await submit(admin, first!, { [`c${correct}`]: '1', version: '' });
    expect(one.text).toContain('1 of 3 labels (33%) · 1 by you');
    await admin.post(`/responses/${second}/draft`, { [`c${correct}`]: '0' });
    const again = await submit(admin, first!, { [`c${correct}`]: '0', version: '' });
    expect(again.text).toContain('1 of 3 labels (33%) · 1 by you');
    const two = await submit(admin, second!, { [`c${correct}`]: '0', version: '' });
    expect(two.text).toContain('2 of 3 labels (67%) · 2 by you');
  });

  it('shows the keyboard help in each expert\'s own language, whoever asked before', async () => {
    await addCriteria(admin);
    const zh = await loginAs(app, 'zh@example.com', 'expert', 'zh');
    for (const [c, title, help] of [[admin, 'Keyboard', 'show these keys'], [zh, '快捷键', '显示快捷键'], [admin, 'Keyboard', 'show these keys']] as const) {
      const page = await c.get(`/responses/${responseIds()[0]}/label`);
      expect(page.text).toContain(`<h2 id="keys-title">${title}</h2>`);
      expect(page.text).toContain(`<td>${help}</td>`);
      // Once per page: the workspace an htmx swap brings does not carry it again.
      expect(page.text.match(/id="keys-help"/g)).toHaveLength(1);
      expect((await c.get(`/responses/${responseIds()[0]}/label`, { 'HX-Request': 'true' })).text).not.toContain('keys-help"');
    }
  });

  it('refuses a submission with a criterion unanswered, a value outside the options, or a context the response lacks', async () => {
    const { correct, relevant } = await addCriteria(admin);
    const id = responseIds()[0]!;
    await admin.get(`/responses/${id}/label`);
    const missing = await submit(admin, id, { rationale: '' });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('Answer &quot;correct&quot; before submitting.');
    const invalid = await submit(admin, id, { [`c${correct}`]: 'maybe' });
    expect(invalid.status).toBe(422);
    const outOfRange = await submit(admin, id, { [`c${correct}`]: '1', [`c${relevant}_7`]: '1' });
    expect(outOfRange.status).toBe(422);
    expect(outOfRange.text).toContain('no such context');
    expect(app.ctx.db.prepare('SELECT count(*) FROM annotation').pluck().get()).toBe(0);
  });

  it('keeps drafts and shows them when the item is opened again', async () => {
    const { correct } = await addCriteria(admin);
    const id = responseIds()[0]!;
    await admin.get(`/responses/${id}/label`);
    const draft = await admin.post(`/responses/${id}/draft`, { [`c${correct}`]: '0', rationale: 'half-way thought' });
    expect(draft.text).toBe('Draft saved');
    const page = await admin.get(`/responses/${id}/label`);
    expect(page.text).toContain('half-way thought');
    expect(page.text).toMatch(/value="0" checked/);
    expect(app.ctx.db.prepare('SELECT n_submitted FROM response WHERE id = ?').pluck().get(id)).toBe(0);
  });

  it('hands out an item the expert had started with the values of their draft, and a fresh one with none', async () => {
    const { correct } = await addCriteria(admin);
    const [first, second, third] = responseIds();
    await admin.get(`/datasets/${datasetId}/label`);
    // The second item's draft, autosaved before the first was submitted: the queue hands it out next.
    expect((await admin.post(`/responses/${second}/draft`, { [`c${correct}`]: '0', rationale: 'half-way thought' })).text).toBe('Draft saved');
    const resumed = await submit(admin, first!, { [`c${correct}`]: '1', version: '' });
    expect(resumed.text).toContain(`data-response="${second}"`);
    expect(resumed.text).toContain('half-way thought');
    expect(resumed.text).toMatch(/value="0" checked/);
    const fresh = await submit(admin, second!, { [`c${correct}`]: '0', version: '' });
    expect(fresh.text).toContain(`data-response="${third}"`);
    expect(fresh.text).not.toMatch(/ checked/);
  });

  it('tells the expert about a conflict when the same annotation was saved elsewhere meanwhile', async () => {
    const { correct } = await addCriteria(admin);
    const id = responseIds()[0]!;
    await admin.get(`/responses/${id}/label`);
    await submit(admin, id, { [`c${correct}`]: '1', version: '' });
    const page = await admin.get(`/responses/${id}/label`);
    const version = /name="version" value="(\d+)"/.exec(page.text)![1]!;
    expect((await submit(admin, id, { [`c${correct}`]: '0', version })).status).toBe(200);
    const stale = await submit(admin, id, { [`c${correct}`]: '1', version });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('You saved this item in another window');
    const adminId = app.ctx.users.queries.byEmail('admin@example.com')!.id;
    expect(app.ctx.labels.mine(id, adminId)!.labels[0]!.value).toBe('0');
  });

  it('refuses viewers and experts outside the assigned labellers', async () => {
    await addCriteria(admin);
    const viewer = await loginAs(app, 'v@example.com', 'viewer');
    expect((await viewer.get(`/datasets/${datasetId}/label`)).status).toBe(403);
    const a = await loginAs(app, 'a@example.com', 'expert');
    const b = await loginAs(app, 'b@example.com', 'expert');
    await admin.get(`/datasets/${datasetId}/assignment`);
    const aId = app.ctx.users.queries.byEmail('a@example.com')!.id;
    expect((await admin.post(`/datasets/${datasetId}/assignment`, { overlap: 2, label: String(aId), version: app.ctx.datasets.get(datasetId)!.version })).status).toBe(303);
    expect((await a.get(`/datasets/${datasetId}/label`)).status).toBe(200);
    expect((await b.get(`/datasets/${datasetId}/label`)).status).toBe(403);
    const res = await b.post(`/responses/${responseIds()[0]}/label`, { c1: '1' });
    expect(res.status).toBe(403);
    const bId = app.ctx.users.queries.byEmail('b@example.com')!.id;
    expect(app.ctx.db.prepare('SELECT count(*) FROM annotation WHERE annotator_id = ?').pluck().get(bId)).toBe(0);
  });
});

describe('queues and overlap', () => {
  it('gives each expert the items they have not labelled, fewest labels first, until the overlap is met', async () => {
    const { correct } = await addCriteria(admin);
    await admin.get(`/datasets/${datasetId}/assignment`);
    await admin.post(`/datasets/${datasetId}/assignment`, { overlap: 2, version: app.ctx.datasets.get(datasetId)!.version });
    const [r1, r2, r3] = responseIds();
    const a = await loginAs(app, 'a@example.com', 'expert');
    const b = await loginAs(app, 'b@example.com', 'expert');
    const c = await loginAs(app, 'c@example.com', 'expert');
    await a.get(`/responses/${r1}/label`);
    await submit(a, r1!, { [`c${correct}`]: '1' });
    expect((await handOut(b)).text).toContain(`data-response="${r2}"`); // 0 labels before 1 label
    await b.get(`/responses/${r2}/label`);
    await submit(b, r2!, { [`c${correct}`]: '1' });
    await submit(b, r3!, { [`c${correct}`]: '1' });
    expect((await handOut(b)).text).toContain(`data-response="${r1}"`);
    await submit(b, r1!, { [`c${correct}`]: '0' });
    // r1 has its two labels; r2 is reserved by the item A was handed after submitting (a fresh draft), so c gets r3.
    await c.get(`/datasets/${datasetId}/label`);
    const next = await handOut(c);
    expect(next.text).toContain(`data-response="${r3}"`);
    // Two experts asking at once are never handed the same last slot.
    const d = await loginAs(app, 'd@example.com', 'expert');
    await d.get(`/datasets/${datasetId}/label`);
    expect((await handOut(d)).text).toContain('Queue done');
    expect((await d.get(`/datasets/${datasetId}/label`)).text).toContain('Queue done');
    expect(app.ctx.labels.progress(datasetId, 0)).toMatchObject({ done: 4, total: 6 });
  });
});

describe('disagreements and adjudication', () => {
  async function twoExpertsDisagree() {
    const { correct } = await addCriteria(admin);
    await admin.get(`/datasets/${datasetId}/assignment`);
    await admin.post(`/datasets/${datasetId}/assignment`, { overlap: 2, version: app.ctx.datasets.get(datasetId)!.version });
    const r1 = responseIds()[0]!;
    const a = await loginAs(app, 'a@example.com', 'expert');
    const b = await loginAs(app, 'b@example.com', 'expert');
    await a.get(`/responses/${r1}/label`);
    await submit(a, r1, { [`c${correct}`]: '1', rationale: 'A thinks it is right' });
    return { correct, r1, a, b };
  }

  it('keeps the kept open disagreements current in place through a save over HTTP, which commits with its turn\'s group', async () => {
    const { correct, r1, b } = await twoExpertsDisagree();
    const kept = app.ctx.labels.openDisagreements(datasetId);
    expect(kept.count).toBe(0);
    await b.get(`/responses/${r1}/label`);
    expect((await submit(b, r1, { [`c${correct}`]: '0', rationale: 'B disagrees' })).status).toBe(200);
    const version = app.ctx.db.prepare('SELECT data_version FROM dataset WHERE id = ?').pluck().get(datasetId) as number;
    // Followed inside the group's transaction (not dropped as if nested in someone else's), then committed.
    expect(app.ctx.derived.peek(datasetId, 'disagreements:open', version)).toBe(kept);
    expect(kept.count).toBe(1);
    expect(app.ctx.labels.disagreementCount(datasetId)).toBe(1);
  });

  it('hides other experts\' labels until one has submitted one\'s own', async () => {
    const { correct, r1, b } = await twoExpertsDisagree();
    const before = await b.get(`/responses/${r1}`);
    expect(before.text).toContain('Submit your own label for this item first');
    expect(before.text).not.toContain('A thinks it is right');
    await b.get(`/responses/${r1}/label`);
    await submit(b, r1, { [`c${correct}`]: '0', rationale: 'B disagrees' });
    const after = await b.get(`/responses/${r1}`);
    expect(after.text).toContain('A thinks it is right');
    expect(after.text).toContain('a@example.com');
  });

  it('lists the item as a disagreement and lets the adjudicator set the gold value with a reason, audited', async () => {
    const { correct, r1, b } = await twoExpertsDisagree();
    await b.get(`/responses/${r1}/label`);
    await submit(b, r1, { [`c${correct}`]: '0' });
    expect((await b.get(`/datasets/${datasetId}/disagreements`)).status).toBe(403);
    const list = await admin.get(`/datasets/${datasetId}/disagreements`);
    expect(list.text).toContain(`/responses/${r1}#c-${correct}--1`);
    const criterion = app.ctx.criteria.get(correct)!;
    expect(app.ctx.labels.gold(criterion, r1, -1)).toBeNull();
    await admin.get(`/responses/${r1}`);
    const noReason = await admin.post(`/responses/${r1}/adjudicate`, { criterion: correct, context_index: -1, value: '0', reason: '', version: '' });
    expect(noReason.status).toBe(422);
    const ok = await admin.post(`/responses/${r1}/adjudicate`, { criterion: correct, context_index: -1, value: '0', reason: 'The answer names the wrong department', version: '' });
    expect(ok.status).toBe(303);
    expect(app.ctx.labels.gold(criterion, r1, -1)).toBe('0');
    expect((await admin.get(`/datasets/${datasetId}/disagreements`)).text).toContain('No open disagreements');
    const event = app.ctx.audit.page({}).find((e) => e.entity_type === 'adjudication')!;
    expect(JSON.parse(event.after!)).toMatchObject({ value: '0', reason: 'The answer names the wrong department' });
  });

  it('refuses the second of two adjudicators working from the same version', async () => {
    const { correct, r1 } = await twoExpertsDisagree();
    const other = await loginAs(app, 'admin2@example.com', 'admin');
    await admin.get(`/responses/${r1}`);
    await other.get(`/responses/${r1}`);
    await admin.post(`/responses/${r1}/adjudicate`, { criterion: correct, context_index: -1, value: '1', reason: 'first', version: '' });
    const page = await other.get(`/responses/${r1}`);
    const version = /name="version" value="(\d+)"/.exec(page.text)![1]!;
    await admin.post(`/responses/${r1}/adjudicate`, { criterion: correct, context_index: -1, value: '0', reason: 'changed my mind', version });
    const late = await other.post(`/responses/${r1}/adjudicate`, { criterion: correct, context_index: -1, value: '1', reason: 'second', version });
    expect(late.status).toBe(409);
    expect(late.text).toContain('Someone else set this gold value meanwhile');
    expect(app.ctx.labels.gold(app.ctx.criteria.get(correct)!, r1, -1)).toBe('0');
  });

  it('uses the unanimous value as gold, and the mean for numeric criteria', async () => {
    const { goldValue } = await import('../../server/labels/gold.ts');
    expect(goldValue('binary', ['1', '1'], null)).toBe('1');
    expect(goldValue('binary', ['1', '0'], null)).toBeNull();
    expect(goldValue('binary', ['1', '0'], '0')).toBe('0');
    expect(goldValue('numeric', ['0.5', '1'], null)).toBe('0.75');
  });
});

describe('database guard', () => {
  it('refuses a label pointing at a context the response does not have, even from SQL', async () => {
    const { relevant } = await addCriteria(admin);
    const r1 = responseIds()[0]!;
    const adminId = app.ctx.users.queries.byEmail('admin@example.com')!.id;
    app.ctx.db.prepare("INSERT INTO annotation (response_id, dataset_id, annotator_id, state) VALUES (?, ?, ?, 'draft')").run(r1, datasetId, adminId);
    const annotation = app.ctx.db.prepare('SELECT id FROM annotation').pluck().get();
    expect(() => app.ctx.db.prepare('INSERT INTO label (annotation_id, criterion_id, context_index, value) VALUES (?, ?, 2, ?)').run(annotation, relevant, '1'))
      .toThrow(/out of range/);
  });
});

describe('labelling pages that only show (issue #10.12) and the expert\'s own history (issue #11.7)', () => {
  const annotations = () => app.ctx.db.prepare('SELECT id, state, updated_at FROM annotation ORDER BY id').all();

  it('GET and HEAD of every labelling page write nothing: no reservation, no draft', async () => {
    await addCriteria(admin);
    const [first] = responseIds();
    const before = { annotations: annotations(), audit: app.ctx.audit.page({}).length };
    for (const url of [`/datasets/${datasetId}/label`, `/datasets/${datasetId}/label?after=${first}`, `/responses/${first}/label`,
      `/responses/${first}/label/prev`, `/responses/${first}/label/next`, `/datasets/${datasetId}/label/history`]) {
      for (const method of ['GET', 'HEAD']) {
        const res = await admin.request(method, url);
        expect(res.status, `${method} ${url}`).toBeLessThan(400);
      }
    }
    expect(annotations()).toEqual(before.annotations);
    expect(before.annotations).toHaveLength(0);
    expect(app.ctx.audit.page({}).length).toBe(before.audit);
  });

  it('reserves the next item only on a POST carrying the page\'s CSRF token', async () => {
    await addCriteria(admin);
    await admin.get(`/datasets/${datasetId}/label`);
    expect((await admin.post(`/datasets/${datasetId}/label/next`, {}, { csrf: null })).status).toBe(403);
    expect(annotations()).toHaveLength(0);
    const started = await admin.post(`/datasets/${datasetId}/label/next`, {});
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toBe(`/responses/${responseIds()[0]}/label`);
    expect(annotations()).toMatchObject([{ state: 'draft' }]);
  });

  it('B and N walk the expert\'s own history, back to the session\'s first item and forward again', async () => {
    const { correct } = await addCriteria(admin);
    const [r1, r2, r3] = responseIds();
    await admin.get(`/datasets/${datasetId}/label`);
    expect((await handOut(admin)).text).toContain(`data-response="${r1}"`);
    expect((await submit(admin, r1!, { [`c${correct}`]: '1' })).text).toContain(`data-response="${r2}"`);
    expect((await submit(admin, r2!, { [`c${correct}`]: '0' })).text).toContain(`data-response="${r3}"`);
    const hx = { 'HX-Request': 'true' };
    const back1 = await admin.get(`/responses/${r3}/label/prev`, hx);
    expect(back1.text).toContain(`data-response="${r2}"`);
    expect(back1.headers.get('hx-push-url')).toBe(`/responses/${r2}/label`);
    expect(back1.text).toMatch(/value="0" checked/);
    const back2 = await admin.get(`/responses/${r2}/label/prev`, hx);
    expect(back2.text).toContain(`data-response="${r1}"`);
    const atStart = await admin.get(`/responses/${r1}/label/prev`, hx);
    expect(atStart.text).toContain(`data-response="${r1}"`);
    expect(atStart.text).toContain('This is the first item in your history.');
    expect((await admin.get(`/responses/${r1}/label/next`, hx)).text).toContain(`data-response="${r2}"`);
    expect((await admin.get(`/responses/${r2}/label/next`, hx)).text).toContain(`data-response="${r3}"`);
    expect((await admin.get(`/responses/${r3}/label/next`, hx)).text).toContain('This is the newest item in your history.');
    // Without htmx, B is a link answered with a redirect to the item.
    const plain = await admin.get(`/responses/${r2}/label/prev`);
    expect(plain.status).toBe(303);
    expect(plain.headers.get('location')).toBe(`/responses/${r1}/label`);
    // Another expert's history is their own.
    const other = await loginAs(app, 'other@example.com', 'expert');
    expect((await other.get(`/responses/${r3}/label/prev`, hx)).text).toContain('This is the first item in your history.');
  });

  it('lists what the expert labelled, newest first, filtered by text, state and value, each a link into the workspace', async () => {
    const { correct } = await addCriteria(admin);
    const [r1, r2, r3] = responseIds();
    await admin.get(`/datasets/${datasetId}/label`);
    await handOut(admin);
    await submit(admin, r1!, { [`c${correct}`]: '1' });
    await submit(admin, r2!, { [`c${correct}`]: '0' }); // r3 is now handed out: a draft
    const all = await admin.get(`/datasets/${datasetId}/label/history`);
    expect(all.text).toContain('3 items');
    const order = [...all.text.matchAll(/href="\/responses\/(\d+)\/label"/g)].map((m) => Number(m[1]));
    expect(order).toEqual([r3, r2, r1]);
    expect(all.text).toContain('correct: Wrong');
    const wrong = await admin.get(`/datasets/${datasetId}/label/history?value=${correct}:0`);
    expect([...wrong.text.matchAll(/href="\/responses\/(\d+)\/label"/g)].map((m) => Number(m[1]))).toEqual([r2]);
    const drafts = await admin.get(`/datasets/${datasetId}/label/history?state=draft`);
    expect([...drafts.text.matchAll(/href="\/responses\/(\d+)\/label"/g)].map((m) => Number(m[1]))).toEqual([r3]);
    const text = await admin.get(`/datasets/${datasetId}/label/history?q=${encodeURIComponent('leave')}`);
    expect([...text.text.matchAll(/href="\/responses\/(\d+)\/label"/g)].map((m) => Number(m[1]))).toEqual([r3]);
  });

  it('shows the guidelines of per-context criteria beside the contexts, and puts the relevance boxes before Submit', async () => {
    await addCriteria(admin);
    const relevant = app.ctx.criteria.forDataset(datasetId).find((c) => c.target === 'context')!;
    await admin.get(`/datasets/${datasetId}/criteria`);
    await admin.post(`/criteria/${relevant.id}`, { guidelines: 'Relevant = it says which department.', version: relevant.version });
    const page = await admin.get(`/responses/${responseIds()[0]}/label`);
    expect(page.text).toContain('Relevant = it says which department.');
    expect(page.text.indexOf(`name="c${relevant.id}_0"`)).toBeLessThan(page.text.indexOf('Submit and next'));
    expect(page.text).toMatch(/<h1 class="ws-q"/);
  });
});

describe('what to do next (issue #11.6)', () => {
  async function disagreeOn(ids: number[]) {
    const { correct } = await addCriteria(admin);
    await admin.get(`/datasets/${datasetId}/assignment`);
    await admin.post(`/datasets/${datasetId}/assignment`, { overlap: 2, version: app.ctx.datasets.get(datasetId)!.version });
    const a = await loginAs(app, 'a@example.com', 'expert');
    const b = await loginAs(app, 'b@example.com', 'expert');
    for (const id of ids) {
      for (const [c, v] of [[a, '1'], [b, '0']] as const) {
        await c.get(`/responses/${id}/label`);
        await submit(c, id, { [`c${correct}`]: v });
      }
    }
    return { correct, a, b };
  }

  it('the end of the queue and the dataset page say what waits for whom, with the links that do it', async () => {
    const [r1, r2, r3] = responseIds();
    const { correct, a } = await disagreeOn([r1!, r2!]);
    await submit(a, r3!, { [`c${correct}`]: '1' });
    const done = await handOut(a);
    expect(done.text).toContain('Queue done');
    expect(done.text).toContain(`/datasets/${datasetId}/label/history`);
    const page = await admin.get(`/datasets/${datasetId}`);
    expect(page.text).toContain('2</strong> expert disagreements wait for a gold value.');
    expect(page.text).toContain(`href="/datasets/${datasetId}/disagreements">Adjudicate them`);
    expect(page.text).toContain('1</strong> labels are still wanted from experts.');
    expect(page.text).toContain(`action="/datasets/${datasetId}/label/next"`);
    const adminDone = await handOut(admin, {});
    expect(adminDone.status).toBe(200);
  });

  it('adjudication leads to the next disagreement, and an htmx post answers with the adjudicated row alone', async () => {
    const [r1, r2] = responseIds();
    const { correct } = await disagreeOn([r1!, r2!]);
    const first = await admin.get(`/responses/${r1}`);
    expect(first.text).toContain(`href="/responses/${r2}">Next disagreement →`);
    const row = await admin.post(`/responses/${r1}/adjudicate`, { criterion: correct, context_index: -1, value: '1', reason: 'The context says so', version: '' },
      { headers: { 'HX-Request': 'true' } });
    expect(row.status).toBe(200);
    expect(row.text.startsWith(`<tr id="c-${correct}--1"`)).toBe(true);
    expect(row.text).toContain('Gold value set.');
    const bad = await admin.post(`/responses/${r1}/adjudicate`, { criterion: correct, context_index: -1, value: '1', reason: '', version: '' },
      { headers: { 'HX-Request': 'true' } });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('Give a reason for the gold value.');
    expect((await admin.get(`/responses/${r2}`)).text).not.toContain('Next disagreement →');
  });

  it('a reviewer\'s inbox lists samples in review; sending one back to draft carries a comment its author sees', async () => {
    const author = await loginAs(app, 'author@example.com', 'expert');
    await author.get(`/datasets/${datasetId}`);
    await author.post(`/datasets/${datasetId}/samples`, { question: 'What is the dress code?', ground_truth: 'Business casual.' });
    const sample = app.ctx.db.prepare("SELECT id, version FROM sample WHERE question = 'What is the dress code?'").get() as { id: number; version: number };
    await author.get(`/samples/${sample.id}`);
    await author.post(`/samples/${sample.id}/status`, { version: sample.version, action: 'submit' });
    const inbox = await admin.get(`/datasets/${datasetId}/inbox`);
    expect(inbox.text).toContain('Waiting for your review (1)');
    expect(inbox.text).toContain('What is the dress code?');
    expect((await author.get(`/datasets/${datasetId}/inbox`)).text).toContain('Yours, waiting for another reviewer (1)');
    const page = await admin.get(`/samples/${sample.id}`);
    const version = /name="version" value="(\d+)"/.exec(page.text)![1]!;
    const back = await admin.post(`/samples/${sample.id}/status`, { version, action: 'reopen', comment: 'Name the days it applies to.', from: 'inbox' });
    expect(back.headers.get('location')).toBe(`/datasets/${datasetId}/inbox`);
    const seen = await author.get(`/samples/${sample.id}`);
    expect(seen.text).toContain('Sent back to draft by admin@example.com');
    expect(seen.text).toContain('Name the days it applies to.');
  });
});

describe('criteria form (issue #11.13)', () => {
  it('groups the fields of each type, so the page (app.js, or the reader without it) shows only the selected type\'s', async () => {
    const page = await admin.get(`/datasets/${datasetId}/criteria`);
    const group = (kinds: string) => new RegExp(`<fieldset class="kind-fields" data-kinds="${kinds}">([\\s\\S]*?)</fieldset>`).exec(page.text)?.[1] ?? '';
    expect(group('binary categorical')).toContain('name="options"');
    expect(group('binary categorical')).not.toContain('name="scale_min"');
    expect(group('ordinal')).toContain('name="scale_min"');
    expect(group('ordinal')).toContain('name="scale_max"');
    expect(page.text).toContain('data-kind-select');
  });
});
