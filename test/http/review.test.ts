// The audit queue end to end: which items disagree and in which order, the filters, an item with its
// labels, rationales and judge trace, the three verdicts (audited), a gold value corrected through
// adjudication, who may do what, form errors, and escaping.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, loginAs, setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import type { VerdictRow } from '../../server/calibration/service.ts';
import { buildQueue, type QueuePair } from '../../server/review/queue.ts';

let app: TestApp;
let admin: Client;
let datasetId: number;
let adminId: number;
let correct: Criterion;
/** Response ids in file order. */
let ids: number[];
/** The imported run's id (metric column `faithfulness`). */
let ragas: number;

const SCRIPT = '<script>alert("x")</script>';

// Binary criterion `correct`, threshold 0.5: the judge passes when faithfulness >= 0.5.
const ROWS = [
  { q: 'Which department is Zhang Wei in?', sys: 'A', tags: ['hr'], gold: 'yes', score: 0.1 }, // 0: disagrees, gap 0.9
  { q: 'How do I reset my VPN password?', sys: 'B', tags: ['it'], gold: 'no', score: 0.8 }, // 1: disagrees, gap 0.8
  { q: 'Where is the printer on floor 3?', sys: 'A', tags: ['it'], gold: 'yes', score: 0.9 }, // 2: agrees
  { q: 'How many leave days do interns get?', sys: 'B', tags: ['hr'], gold: 'no', score: 0.3 }, // 3: agrees
  { q: 'Who approves overtime?', sys: 'A', tags: ['hr'], gold: 'yes', score: 0.45 }, // 4: disagrees, gap 0.55
  { q: 'When is payday?', sys: 'A', tags: [], gold: 'no', score: 0.5 }, // 5: disagrees (0.5 passes), gap 0.5
  { q: 'What is the wifi name?', sys: 'B', tags: [], gold: null, score: 0.0 }, // 6: no gold
  { q: 'Is parking free?', sys: 'A', tags: [], gold: 'yes', score: null }, // 7: no score
];

function record(i: number) {
  const r = ROWS[i]!;
  return { user_input: r.q, response: `Answer ${i}: it depends.`, retrieved_contexts: [`Context ${i} about ${r.q.toLowerCase()}`, `Second context ${i}`],
    reference: `Reference answer ${i}.`, system: r.sys, tags: r.tags };
}

async function importJsonl(name: string, rows: object[], options: { annotatorId: number; runName?: string }) {
  const file = path.join(app.dir, name);
  fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n'));
  const res = await app.ctx.imports.importFile(adminId, datasetId, file, { format: 'jsonl', ...options });
  if (!res.ok) throw new Error(`import failed: ${JSON.stringify(res)}`);
}

const userId = (email: string) => app.ctx.users.queries.byEmail(email)!.id;
const q = () => `criterion=${correct.id}`;
const listed = (html: string) => [...html.matchAll(/id="item-(\d+)"/g)].map((m) => Number(m[1]));
const verdictRow = (runId: number, responseId: number) => app.ctx.db.prepare('SELECT verdict, note, reviewer_id FROM review_verdict WHERE run_id = ? AND response_id = ? AND criterion_id = ?')
  .get(runId, responseId, correct.id) as { verdict: string; note: string; reviewer_id: number } | undefined;
const auditCount = (entityType: string, action?: string) => app.ctx.db.prepare('SELECT count(*) FROM audit_event WHERE entity_type = ? AND (? IS NULL OR action = ?)')
  .pluck().get(entityType, action ?? null, action ?? null) as number;

beforeEach(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
  adminId = userId(ADMIN.email);
  const res = await admin.post('/datasets', { name: 'Review', language: 'en', description: '', domain: '' });
  datasetId = Number(res.headers.get('location')!.split('/').pop());
  for (const email of ['li@example.com', 'wang@example.com']) {
    if (!app.ctx.users.queries.byEmail(email)) await app.ctx.users.createUser(null, { email, name: email.split('@')[0]!, role: 'expert', password: 'a long enough password' });
  }
  // Li labels everything and the file's metric column becomes the imported run "ragas"; Wang agrees on items 0 and 1.
  await importJsonl('li.jsonl', ROWS.map((r, i) => ({ ...record(i), faithfulness: r.score, ...(r.gold ? { 'human.correct': r.gold } : {}) })),
    { annotatorId: userId('li@example.com'), runName: 'ragas' });
  await importJsonl('wang.jsonl', [0, 1].map((i) => ({ ...record(i), 'human.correct': ROWS[i]!.gold })), { annotatorId: userId('wang@example.com') });
  correct = app.ctx.criteria.queries.byName(datasetId, 'correct')!;
  expect(correct.kind).toBe('binary');
  ids = app.ctx.db.prepare('SELECT r.id FROM response r WHERE r.dataset_id = ? ORDER BY r.id').pluck().all(datasetId) as number[];
  expect(ids).toHaveLength(ROWS.length);
  ragas = app.ctx.runner.queries.byName(datasetId, 'ragas', 'faithfulness')!.id;
  const rationale = app.ctx.db.prepare('UPDATE annotation SET rationale = ?, corrected_answer = ? WHERE response_id = ? AND annotator_id = ?');
  rationale.run('The context names the HR department explicitly.', 'Zhang Wei is in HR.', ids[0], userId('li@example.com'));
  rationale.run(`Looks right to me ${SCRIPT}`, '', ids[0], userId('wang@example.com'));
});
afterEach(async () => { await app.close(); });

describe('the audit queue', () => {
  it('lists exactly the items where judge and gold disagree, worst first, with counts per verdict', async () => {
    const page = await admin.get(`/runs/${ragas}/review?${q()}`);
    expect(page.status).toBe(200);
    expect(listed(page.text)).toEqual([ids[0], ids[1], ids[4], ids[5]]);
    expect(page.text).toContain('Which department is Zhang Wei in?');
    expect(page.text).toContain('0.900'); // the gap of the worst item
    expect(page.text).toContain('Not reviewed (4)');
    expect(page.text).toContain('Judge right (0)');
    // The first criterion is the default.
    expect(listed((await admin.get(`/runs/${ragas}/review`)).text)).toEqual([ids[0], ids[1], ids[4], ids[5]]);
    // A lower threshold moves item 4 (0.45) to the passing side, where it agrees with gold "yes".
    expect(listed((await admin.get(`/runs/${ragas}/review?${q()}&threshold=0.4`)).text)).toEqual([ids[0], ids[1], ids[5]]);
  });

  it('filters by system and by tag', async () => {
    expect(listed((await admin.get(`/runs/${ragas}/review?${q()}&system=A`)).text)).toEqual([ids[0], ids[4], ids[5]]);
    expect(listed((await admin.get(`/runs/${ragas}/review?${q()}&system=B`)).text)).toEqual([ids[1]]);
    expect(listed((await admin.get(`/runs/${ragas}/review?${q()}&tag=hr`)).text)).toEqual([ids[0], ids[4]]);
    expect(listed((await admin.get(`/runs/${ragas}/review?${q()}&tag=it`)).text)).toEqual([ids[1]]);
    const both = await admin.get(`/runs/${ragas}/review?${q()}&tag=hr&system=B`);
    expect(listed(both.text)).toEqual([]);
    expect(both.text).toContain('No items match these filters.');
  });

  it('is readable by viewers, and unknown runs are 404', async () => {
    const viewer = await loginAs(app, 'view@example.com', 'viewer');
    const page = await viewer.get(`/runs/${ragas}/review?${q()}`);
    expect(page.status).toBe(200);
    expect(listed(page.text)).toHaveLength(4);
    expect((await viewer.get(`/runs/99999/review`)).status).toBe(404);
  });
});

describe('an item under review', () => {
  it('shows question, ground truth, answer, contexts, expert labels with rationales, and neighbours in queue order', async () => {
    const page = await admin.get(`/runs/${ragas}/review/${ids[0]}?${q()}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Which department is Zhang Wei in?');
    expect(page.text).toContain('Reference answer 0.');
    expect(page.text).toContain('Answer 0: it depends.');
    expect(page.text).toContain('Second context 0');
    expect(page.text).toContain('The context names the HR department explicitly.');
    expect(page.text).toContain('Zhang Wei is in HR.');
    expect(page.text).toContain('li@example.com');
    expect(page.text).toContain('wang@example.com');
    // An expert's text is shown as text, never run as markup.
    expect(page.text).toContain('&lt;script>');
    expect(page.text).not.toContain(SCRIPT);
    // Next in queue order is item 1; there is no previous.
    expect(page.text).toContain(`href="/runs/${ragas}/review/${ids[1]}?${q()}"`);
    expect(page.text).not.toContain('rel="prev"');
    // Three labelled radios and the note, all with labels.
    for (const v of ['judge_right', 'expert_right', 'ambiguous']) expect(page.text).toMatch(new RegExp(`<label class="option" for="rv-${v}"><input id="rv-${v}" type="radio" name="verdict" value="${v}"`));
    expect(page.text).toContain('<label for="rv-note">');
    // An admin may adjudicate: the correction is offered, preselected to the judge's verdict (0.1 < 0.5 → "No" = '0').
    // The options are the dataset's own text, marked with its language.
    expect(page.text).toMatch(/<select id="rv-gold" name="gold"[^>]*>.*<option value="0" lang="en" selected>No<\/option>/s);
    const middle = await admin.get(`/runs/${ragas}/review/${ids[4]}?${q()}`);
    expect(middle.text).toContain(`href="/runs/${ragas}/review/${ids[1]}?${q()}"`);
    expect(middle.text).toContain(`href="/runs/${ragas}/review/${ids[5]}?${q()}"`);
  });

  it('shows the judge\'s full trace of a goldset-scored run: prompts, raw replies, parsed verdicts with reasons, computation', async () => {
    const run = app.ctx.runner.queries.insert({ dataset_id: datasetId, name: 'judge-v1', metric_key: 'faithfulness', source: 'goldset', status: 'done',
      model: 'fake-chat', embedding_model: '', prompts: '{}', selection: '{}', concurrency: 1, n_total: 1, created_by: adminId });
    const trace = {
      steps: [
        { step: 'statements', prompt_version: null, messages: [{ role: 'user', content: 'Break the answer into statements: Answer 0' }],
          raw: '{"statements": ["Zhang Wei works in engineering"]}', parsed: { statements: ['Zhang Wei works in engineering'] }, cached: false },
        { step: 'nli', prompt_version: 3, messages: [{ role: 'system', content: 'Judge each statement against the context.' }],
          raw: 'RAW REPLY: verdict zero for statement one', cached: true,
          parsed: { statements: [{ statement: 'Zhang Wei works in engineering', reason: 'The context places him in HR, not engineering', verdict: 0 }] } },
      ],
      computation: '0 of 1 statements supported → 0',
    };
    app.ctx.db.prepare('INSERT INTO score (run_id, response_id, status, value, reason, trace) VALUES (?, ?, ?, ?, ?, ?)')
      .run(run, ids[0], 'ok', 0, null, JSON.stringify(trace));
    const queue = await admin.get(`/runs/${run}/review?${q()}`);
    expect(listed(queue.text)).toEqual([ids[0]]);
    const page = await admin.get(`/runs/${run}/review/${ids[0]}?${q()}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Step 1: statements');
    expect(page.text).toContain('Step 2: nli');
    expect(page.text).toContain('Prompt as sent');
    expect(page.text).toContain('Judge each statement against the context.');
    expect(page.text).toContain('RAW REPLY: verdict zero for statement one');
    expect(page.text).toContain('The context places him in HR, not engineering');
    expect(page.text).toContain('<th scope="col">reason</th>');
    expect(page.text).toContain('0 of 1 statements supported → 0');
    // The imported run has no trace, and says so.
    expect((await admin.get(`/runs/${ragas}/review/${ids[0]}?${q()}`)).text).toContain('No trace');
  });

  it('hides the experts\' labels from an expert who has not labelled the item yet, as the adjudication page does', async () => {
    const newcomer = await loginAs(app, 'newcomer@example.com', 'expert');
    const page = await newcomer.get(`/runs/${ragas}/review/${ids[0]}?${q()}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('The context names the HR department explicitly.');
    expect(page.text).not.toContain('li@example.com');
  });

  it('is 404 for a response of another dataset', async () => {
    const other = await admin.post('/datasets', { name: 'Other', language: 'en', description: '', domain: '' });
    const otherId = Number(other.headers.get('location')!.split('/').pop());
    const file = path.join(app.dir, 'other.jsonl');
    fs.writeFileSync(file, JSON.stringify({ ...record(0), system: 'Z' }));
    await app.ctx.imports.importFile(adminId, otherId, file, { format: 'jsonl' });
    const foreign = app.ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ?').pluck().get(otherId) as number;
    expect((await admin.get(`/runs/${ragas}/review/${foreign}?${q()}`)).status).toBe(404);
  });
});

describe('verdicts', () => {
  it('records each of the three verdicts, audited, and the verdict filter hides and shows the items', async () => {
    const expert = await loginAs(app, 'li@example.com', 'expert');
    const auditsBefore = auditCount('run', 'review_verdict');
    await expert.get(`/runs/${ragas}/review/${ids[1]}?${q()}`);
    const saved = await expert.post(`/runs/${ragas}/review/${ids[1]}?${q()}`, { verdict: 'expert_right', note: 'The answer is wrong; the judge missed it.' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe(`/runs/${ragas}/review/${ids[1]}?${q()}`);
    expect(verdictRow(ragas, ids[1]!)).toEqual({ verdict: 'expert_right', note: 'The answer is wrong; the judge missed it.', reviewer_id: userId('li@example.com') });
    const after = await expert.get(saved.headers.get('location')!);
    expect(after.text).toContain('Verdict saved.');
    expect(after.text).toContain('The answer is wrong; the judge missed it.');

    const amb = await expert.post(`/runs/${ragas}/review/${ids[4]}?${q()}`, { verdict: 'ambiguous', note: 'Depends on who counts as approver.' });
    expect(amb.status).toBe(303);
    expect(verdictRow(ragas, ids[4]!)?.verdict).toBe('ambiguous');
    const ambPage = await expert.get(`/runs/${ragas}/review/${ids[4]}?${q()}`);
    expect(ambPage.text).toContain(`href="/datasets/${datasetId}/criteria#gl-${correct.id}"`);

    // Judge right without a correction (an expert who is not an adjudicator is not offered one).
    const expertPage = await expert.get(`/runs/${ragas}/review/${ids[5]}?${q()}`);
    expect(expertPage.text).not.toContain('id="rv-gold"');
    expect((await expert.post(`/runs/${ragas}/review/${ids[5]}?${q()}`, { verdict: 'judge_right', note: '' })).status).toBe(303);
    expect(verdictRow(ragas, ids[5]!)?.verdict).toBe('judge_right');
    expect(app.ctx.labels.gold(correct, ids[5]!, -1)).toBe('0'); // unchanged
    expect(auditCount('run', 'review_verdict')).toBe(auditsBefore + 3);

    // Changing a verdict updates the one row and is audited with what it was.
    expect((await expert.post(`/runs/${ragas}/review/${ids[5]}?${q()}`, { verdict: 'expert_right', note: 'On second thought.', verdict_version: 1 })).status).toBe(303);
    expect(app.ctx.db.prepare('SELECT count(*) FROM review_verdict WHERE response_id = ?').pluck().get(ids[5])).toBe(1);
    const last = app.ctx.db.prepare("SELECT before, after FROM audit_event WHERE action = 'review_verdict' ORDER BY id DESC LIMIT 1").get() as { before: string; after: string };
    expect(JSON.parse(last.before)).toMatchObject({ verdict: 'judge_right' });
    expect(JSON.parse(last.after)).toMatchObject({ verdict: 'expert_right', response: ids[5] });

    // Filters: unreviewed ones by default, each verdict on its own, all of them.
    const base = `/runs/${ragas}/review?${q()}`;
    expect(listed((await expert.get(base)).text)).toEqual([ids[0]]);
    expect(listed((await expert.get(`${base}&verdict=expert_right`)).text)).toEqual([ids[1], ids[5]]);
    expect(listed((await expert.get(`${base}&verdict=ambiguous`)).text)).toEqual([ids[4]]);
    expect(listed((await expert.get(`${base}&verdict=judge_right`)).text)).toEqual([]);
    const all = await expert.get(`${base}&verdict=any`);
    expect(listed(all.text)).toEqual([ids[0], ids[1], ids[4], ids[5]]);
    expect(all.text).toContain('Not reviewed (1)');
    expect(all.text).toContain('Expert right (2)');
    expect(all.text).toContain('Ambiguous (1)');
  });

  it('judge right with a correction sets the gold value through an audited adjudication, with the note as reason', async () => {
    await admin.get(`/runs/${ragas}/review/${ids[0]}?${q()}`);
    expect(app.ctx.labels.gold(correct, ids[0]!, -1)).toBe('1');
    const adjudicationsBefore = auditCount('adjudication');
    const res = await admin.post(`/runs/${ragas}/review/${ids[0]}?${q()}`, { verdict: 'judge_right', gold: '0', note: 'The answer contradicts the context.' });
    expect(res.status).toBe(303);
    expect(app.ctx.labels.gold(correct, ids[0]!, -1)).toBe('0');
    const adj = app.ctx.labels.adjudications(ids[0]!).find((a) => a.criterion_id === correct.id)!;
    expect(adj).toMatchObject({ value: '0', reason: 'The answer contradicts the context.', adjudicator_id: adminId });
    expect(auditCount('adjudication')).toBe(adjudicationsBefore + 1);
    const event = app.ctx.db.prepare("SELECT after FROM audit_event WHERE entity_type = 'adjudication' ORDER BY id DESC LIMIT 1").pluck().get() as string;
    expect(JSON.parse(event)).toMatchObject({ response: ids[0], criterion: 'correct', value: '0', reason: 'The answer contradicts the context.' });
    expect(verdictRow(ragas, ids[0]!)?.verdict).toBe('judge_right');
    const page = await admin.get(res.headers.get('location')!);
    expect(page.text).toContain('Verdict saved and gold value corrected.');
    expect(page.text).toContain('Adjudicated by admin@example.com: <span lang="en">The answer contradicts the context.</span>');
    // It agrees now: gone from the unreviewed list, still listed under its verdict.
    expect(listed((await admin.get(`/runs/${ragas}/review?${q()}`)).text)).toEqual([ids[1], ids[4], ids[5]]);
    const judged = await admin.get(`/runs/${ragas}/review?${q()}&verdict=judge_right`);
    expect(listed(judged.text)).toEqual([ids[0]]);
    expect(judged.text).toContain('agrees now');
  });

  it('needs a note to correct the gold value; "keep" or a verdict other than judge right leaves it alone', async () => {
    await admin.get(`/runs/${ragas}/review/${ids[1]}?${q()}`);
    const noNote = await admin.post(`/runs/${ragas}/review/${ids[1]}?${q()}`, { verdict: 'judge_right', gold: '1', note: '  ' });
    expect(noNote.status).toBe(422);
    expect(noNote.text).toContain('Write a note: it becomes the reason of the corrected gold value.');
    expect(verdictRow(ragas, ids[1]!)).toBeUndefined();
    expect((await admin.post(`/runs/${ragas}/review/${ids[1]}?${q()}`, { verdict: 'judge_right', gold: '', note: '' })).status).toBe(303);
    expect((await admin.post(`/runs/${ragas}/review/${ids[4]}?${q()}`, { verdict: 'expert_right', gold: '0', note: '' })).status).toBe(303);
    expect(app.ctx.labels.gold(correct, ids[1]!, -1)).toBe('0');
    expect(app.ctx.labels.gold(correct, ids[4]!, -1)).toBe('1');
    expect(auditCount('adjudication')).toBe(0);
    const bad = await admin.post(`/runs/${ragas}/review/${ids[5]}?${q()}`, { verdict: 'judge_right', gold: 'maybe', note: 'x' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('This is not a value of the criterion.');
  });

  it('"save and next" goes to the next item of the queue as it was', async () => {
    await admin.get(`/runs/${ragas}/review/${ids[1]}?${q()}`);
    const res = await admin.post(`/runs/${ragas}/review/${ids[1]}?${q()}`, { verdict: 'expert_right', note: '', next: '1' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/runs/${ragas}/review/${ids[4]}?${q()}`);
    const lastOne = await admin.post(`/runs/${ragas}/review/${ids[5]}?${q()}`, { verdict: 'expert_right', note: '', next: '1' });
    expect(lastOne.headers.get('location')).toBe(`/runs/${ragas}/review?${q()}`);
  });

  it('opens the next item after a verdict without reading the run\'s scores and labels again, and shows the verdict', async () => {
    await admin.get(`/runs/${ragas}/review/${ids[1]}?${q()}`);
    const next = await admin.post(`/runs/${ragas}/review/${ids[1]}?${q()}`, { verdict: 'expert_right', note: '', next: '1' });
    const proto = Object.getPrototypeOf(app.ctx.db.prepare('SELECT 1')) as { all: (...a: unknown[]) => unknown };
    const original = proto.all;
    const read: string[] = [];
    proto.all = function (this: { source: string }, ...a: unknown[]) { read.push(this.source); return original.apply(this, a); };
    try {
      expect((await admin.get(next.headers.get('location')!)).status).toBe(200);
    } finally {
      proto.all = original;
    }
    // The run's pairs: every score of the run and every label of the criterion (the item's own labels are read, and may be).
    expect(read.filter((sql) => /LEFT JOIN score sc|WHERE l\.criterion_id = \?/.test(sql))).toEqual([]);
    // The queue is rebuilt from the current verdicts: the item reviewed just now is listed under its verdict.
    expect(listed((await admin.get(`/runs/${ragas}/review?${q()}&verdict=expert_right`)).text)).toEqual([ids[1]]);
  });

  it('refuses a viewer (403, nothing stored) and an expert who may not adjudicate a correction', async () => {
    const viewer = await loginAs(app, 'view@example.com', 'viewer');
    const page = await viewer.get(`/runs/${ragas}/review/${ids[0]}?${q()}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('name="verdict"');
    expect(page.text).toContain('Experts and admins record verdicts; you can read them.');
    const res = await viewer.post(`/runs/${ragas}/review/${ids[0]}?${q()}`, { verdict: 'expert_right', note: 'no' });
    expect(res.status).toBe(403);
    expect(app.ctx.db.prepare('SELECT count(*) FROM review_verdict').pluck().get()).toBe(0);
    expect(auditCount('run', 'review_verdict')).toBe(0);

    const expert = await loginAs(app, 'wang@example.com', 'expert');
    await expert.get(`/runs/${ragas}/review/${ids[0]}?${q()}`);
    const forged = await expert.post(`/runs/${ragas}/review/${ids[0]}?${q()}`, { verdict: 'judge_right', gold: '0', note: 'I would change it.' });
    expect(forged.status).toBe(403);
    expect(verdictRow(ragas, ids[0]!)).toBeUndefined();
    expect(app.ctx.labels.gold(correct, ids[0]!, -1)).toBe('1');
  });

  it('answers bad input with 422 and the message beside the field, in the user\'s language', async () => {
    await admin.get(`/runs/${ragas}/review/${ids[0]}?${q()}`);
    const missing = await admin.post(`/runs/${ragas}/review/${ids[0]}?${q()}`, { note: 'forgot to choose' });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('<p class="error" id="rv-verdict-error" role="alert">Choose who was right.</p>');
    expect(missing.text).toContain('forgot to choose'); // what was typed stays
    const long = await admin.post(`/runs/${ragas}/review/${ids[0]}?${q()}`, { verdict: 'expert_right', note: 'x'.repeat(2001) });
    expect(long.status).toBe(422);
    expect(long.text).toContain('The note can have at most 2000 characters.');
    const unknown = await admin.post(`/runs/${ragas}/review/${ids[0]}?${q()}`, { verdict: 'maybe' });
    expect(unknown.status).toBe(422);
    expect(app.ctx.db.prepare('SELECT count(*) FROM review_verdict').pluck().get()).toBe(0);

    const zh = await loginAs(app, 'zh@example.com', 'expert', 'zh-CN');
    await zh.get(`/runs/${ragas}/review/${ids[0]}?${q()}`);
    const zhMissing = await zh.post(`/runs/${ragas}/review/${ids[0]}?${q()}`, { note: '' });
    expect(zhMissing.status).toBe(422);
    expect(zhMissing.text).toContain('请选择谁是对的。');
    expect(zhMissing.text).toContain('评测模型正确');
  });

  it('renders a note with markup as text', async () => {
    await admin.get(`/runs/${ragas}/review/${ids[1]}?${q()}`);
    expect((await admin.post(`/runs/${ragas}/review/${ids[1]}?${q()}`, { verdict: 'ambiguous', note: `See ${SCRIPT}` })).status).toBe(303);
    const page = await admin.get(`/runs/${ragas}/review/${ids[1]}?${q()}`);
    expect(page.text).not.toContain(SCRIPT);
    expect(page.text).toContain('See &lt;script>');
  });
});

describe('disagreement per kind of criterion', () => {
  const criterion = (kind: Criterion['kind'], extra: Partial<Criterion> = {}) => ({ id: 1, dataset_id: 1, name: 'c', kind, target: 'response', options: [],
    scale_min: null, scale_max: null, guidelines: '', position: 1, archived: 0, ...extra }) as Criterion;
  const pair = (id: number, score: number | null, gold: string | null, label: string | null = null): QueuePair =>
    ({ id, system: '', scoreStatus: score === null ? 'error' : 'ok', score, gold, label });
  const none = { verdict: 'none', system: '', tagged: null, inPart: null } as const;
  const order = (q: ReturnType<typeof buildQueue>) => q.items.map((x) => [x.id, Number(x.gap!.toFixed(3)), x.judgeValue]);

  it('ordinal: 0..1 scores against the gold rescaled to 0..1; a disagreement is a different nearest scale point', () => {
    const c = criterion('ordinal', { scale_min: 1, scale_max: 5 });
    const q = buildQueue(c, [pair(1, 0, '5'), pair(2, 1, '5'), pair(3, 0.9, '3'), pair(4, 0.55, '3'), pair(5, null, '1')], new Map(), 0.5, none);
    expect(order(q)).toEqual([[1, 1, '1'], [3, 0.4, '5']]);
  });

  it('ordinal: scores on the criterion\'s scale are rescaled too', () => {
    const c = criterion('ordinal', { scale_min: 1, scale_max: 5 });
    const q = buildQueue(c, [pair(1, 5, '1'), pair(2, 3, '3'), pair(3, 2, '4')], new Map(), 0.5, none);
    expect(order(q)).toEqual([[1, 1, '5'], [3, 0.5, '2']]);
  });

  it('numeric: |score − gold|, worst first; categorical: the judge\'s category against the gold one', () => {
    expect(order(buildQueue(criterion('numeric'), [pair(1, 0.2, '0.9'), pair(2, 0.5, '0.5'), pair(3, 0.6, '0.4'), pair(4, 0.1, null)], new Map(), 0.5, none)))
      .toEqual([[1, 0.7, '0.2'], [3, 0.2, '0.6']]);
    const cat = criterion('categorical', { options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }] });
    expect(order(buildQueue(cat, [pair(1, 1, 'a', 'b'), pair(2, 1, 'a', 'a'), pair(3, 0, 'b', null)], new Map(), 0.5, none))).toEqual([[1, 1, 'b']]);
  });

  it('keeps an item with a verdict under that verdict when it agrees now', () => {
    const verdicts = new Map<number, VerdictRow>([[2, { response_id: 2, verdict: 'judge_right', note: '', reviewer_email: 'a@b.c', updated_at: '', version: 1 }]]);
    const q = buildQueue(criterion('binary'), [pair(1, 0.9, '0'), pair(2, 0.9, '1')], verdicts, 0.5, { ...none, verdict: 'any' });
    expect(q.items.map((x) => [x.id, x.disagrees])).toEqual([[1, true], [2, false]]);
    expect(q.counts).toMatchObject({ none: 1, judge_right: 1, any: 2 });
  });
});

describe('what reviewers see (issue #11.3)', () => {
  it('an eval engineer who does not label sees the gold value and the labels that made it, as the queue row does', async () => {
    // Labellers are listed, and the eval engineer is not one of them.
    await admin.get(`/datasets/${datasetId}/assignment`);
    expect((await admin.post(`/datasets/${datasetId}/assignment`, { overlap: 2, label: String(userId('li@example.com')), version: app.ctx.datasets.get(datasetId)!.version })).status).toBe(303);
    const engineer = await loginAs(app, 'eval@example.com', 'expert');
    const queue = await engineer.get(`/runs/${ragas}/review?${q()}`);
    const row = new RegExp(`id="item-${ids[1]}">(.*?)</tr>`).exec(queue.text)![1]!;
    expect(row).toContain('<td><span lang="en">No</span></td>');
    const item = await engineer.get(`/runs/${ragas}/review/${ids[1]}?${q()}`);
    expect(item.text).not.toContain('No gold value');
    expect(item.text).not.toContain('No expert has labelled this item');
    expect(item.text).toContain('li@example.com');
    expect(item.text).toMatch(/<strong><span lang="en">No<\/span><\/strong>/);
  });

  it('an expert who may still label the item sees neither the gold value nor the labels, in the queue and on the item alike', async () => {
    const labeller = await loginAs(app, 'new@example.com', 'expert');
    const queue = await labeller.get(`/runs/${ragas}/review?${q()}`);
    // Not even listed: an item in the disagreement queue tells its gold value (issue #10.9).
    expect(queue.text).not.toContain(`id="item-${ids[1]}"`);
    expect(queue.text).toContain('only the items you have labelled are listed');
    const item = await labeller.get(`/runs/${ragas}/review/${ids[1]}?${q()}`);
    expect(item.text).toContain('Hidden until you submit your own label');
    expect(item.text).not.toContain('li@example.com');
  });
});
