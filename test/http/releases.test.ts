// Releases: the canonical hash (recomputed here from the README's specification), the same content
// giving the same hash, immutability under later edits and in the database itself, admin-only
// audited deletion, diffs, every export format from the API with an ETag and a viewer's token, and
// runs, reports and the gate on a release.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, loginAs, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';
import { cmdGate, cmdReport } from '../../server/calibration/cli.ts';
import { cmdEstimate } from '../../server/estimate/cli.ts';
import { Workbook } from '../../server/xlsx/read.ts';
import { translator } from '../../server/i18n/index.ts';

let app: TestApp;
let admin: Client;
let datasetId: number;
let adminId: number;
let expertId: number;
let reviewerId: number;

const ROWS = [
  { user_input: '张伟是哪个部门的？', reference: '张伟是教研部的成员。', reference_contexts: ['通讯录：张伟 教研部'], response: '张伟是教研部的成员。', retrieved_contexts: ['张伟 教研部工程师', '牛顿'], system: 'rag-v1', tags: 'hr,people', 'human.correct': 'yes' },
  { user_input: 'How many days of annual leave?', reference: '15 working days.', response: '20 days.', retrieved_contexts: ['15 working days of annual leave'], system: 'rag-v1', tags: 'hr', 'human.correct': 'no' },
  { user_input: '试用期是多久？', reference: '三个月。', response: '三个月。', retrieved_contexts: ['试用期为三个月'], system: 'rag-v2', tags: '', 'human.correct': 'yes' },
  { user_input: 'Who approves remote work?', reference: 'The direct manager.', response: 'HR.', retrieved_contexts: [], system: 'rag-v2', tags: '', 'human.correct': 'no' },
];

async function importRows(rows: object[], actorId: number, annotatorId?: number): Promise<void> {
  const file = path.join(app.dir, `rows-${crypto.randomUUID()}.jsonl`);
  fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n'));
  const result = await app.ctx.imports.importFile(actorId, datasetId, file, { format: 'jsonl', ...(annotatorId ? { annotatorId } : {}) });
  if (!result.ok) throw new Error(JSON.stringify(result));
}

/** Submits and approves every draft sample (written by the expert, approved by someone who neither wrote nor last changed it). */
function approveAll(): void {
  for (const s of app.ctx.samples.queries.batchAfter({ datasetId }, 0, 1000)) {
    if (s.status === 'approved') continue;
    const submitted = s.status === 'draft' ? app.ctx.samples.transition(expertId, s.id, s.version, 'submit') : s;
    const approver = [adminId, reviewerId].find((id) => id !== s.author_id && id !== s.last_editor_id)!;
    app.ctx.samples.transition(approver, s.id, submitted.version, 'approve');
  }
}

const sampleByQuestion = (q: string) => app.ctx.samples.queries.batchAfter({ datasetId }, 0, 1000).find((s) => s.question === q)!;
function editGroundTruth(q: string, groundTruth: string) {
  const s = sampleByQuestion(q);
  return app.ctx.samples.update(adminId, s.id, s.version, { question: s.question, ground_truth: groundTruth,
    reference_contexts: JSON.parse(s.reference_contexts) as string[], tags: JSON.parse(s.tags) as string[], source: s.source, notes: s.notes });
}

const release = (tag: string, responses = true, note = '') => app.ctx.releases.create({ id: adminId, email: 'admin@example.com' }, app.ctx.datasets.get(datasetId)!, { tag, note, responses });

beforeEach(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
  adminId = app.ctx.users.queries.byEmail('admin@example.com')!.id;
  expertId = (await app.ctx.users.createUser(null, { email: 'li.wei@example.com', name: 'Li Wei', password: 'a long enough password', role: 'expert' })).id;
  reviewerId = (await app.ctx.users.createUser(null, { email: 'zhao@example.com', name: 'Zhao', password: 'a long enough password', role: 'expert' })).id;
  datasetId = app.ctx.datasets.create(adminId, { name: 'HR 评测', description: '', language: 'zh', domain: 'hr' }).id;
  await importRows(ROWS, expertId, expertId);
  approveAll();
});
afterEach(async () => { await app.close(); });

/** The README's canonical serialisation, written independently of goldset's code. */
function specHash(lines: unknown[]): string {
  const canon = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
    if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`).join(',')}}`;
    return JSON.stringify(v);
  };
  return crypto.createHash('sha256').update(lines.map((l) => canon(l) + '\n').join(''), 'utf8').digest('hex');
}

describe('release content and hash', () => {
  it('hashes the canonical serialisation the README specifies (a golden hash made from the spec)', () => {
    const r = release('v1', false);
    const bytes = (s: string) => Buffer.from(s, 'utf8');
    const samples = ROWS.map((x) => ({ type: 'sample', question: x.user_input, ground_truth: x.reference, reference_contexts: x.reference_contexts ?? [],
      tags: (x.tags ? x.tags.split(',') : []).sort(), source: '', notes: '' })).sort((a, b) => Buffer.compare(bytes(a.question), bytes(b.question)));
    expect(r.hash).toBe(specHash([{ type: 'release', version: 1, responses: false }, ...samples]));
    expect([r.n_samples, r.n_responses]).toEqual([4, 0]);
  });

  it('hashes responses with their gold labels and the criteria in the spec\'s order', () => {
    const r = release('v1');
    const bytes = (s: string) => Buffer.from(s, 'utf8');
    const lines: unknown[] = [{ type: 'release', version: 1, responses: true },
      // The import's binary criterion got the Chinese dataset's yes/no labels (criteria/values.ts binaryOptionsIn).
      { type: 'criterion', name: 'correct', kind: 'binary', target: 'response', options: [{ value: '1', label: '是' }, { value: '0', label: '否' }], scale_min: null, scale_max: null }];
    for (const x of [...ROWS].sort((a, b) => Buffer.compare(bytes(a.user_input), bytes(b.user_input)))) {
      lines.push({ type: 'sample', question: x.user_input, ground_truth: x.reference, reference_contexts: x.reference_contexts ?? [], tags: (x.tags ? x.tags.split(',') : []).sort(), source: '', notes: '' });
      lines.push({ type: 'response', system: x.system, answer: x.response, retrieved_contexts: x.retrieved_contexts, gold: { correct: x['human.correct'] === 'yes' ? '1' : '0' } });
    }
    expect(r.hash).toBe(specHash(lines));
  });

  it('gives the same content the same hash, in another dataset and on another run', async () => {
    const a = release('a'), b = release('b');
    expect(b.hash).toBe(a.hash);
    // In the same language: an English dataset's criterion created by the import says Yes/No, which is other content.
    const other = app.ctx.datasets.create(adminId, { name: 'Copy', description: '', language: 'zh', domain: '' });
    const saved = datasetId;
    datasetId = other.id;
    await importRows(ROWS, expertId, expertId);
    approveAll();
    expect(app.ctx.releases.create(null, other, { tag: 'copy', note: 'another note', responses: true }).hash).toBe(a.hash);
    datasetId = saved;
  });

  it('prints exactly tag, hash, samples, responses and created_at from the CLI', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'release', '--dataset', 'HR 评测', '--tag', '2026-12-hr-v3', '--responses', '--note', 'first', '--json'],
      { cwd: path.resolve(import.meta.dirname, '..', '..'), env: { ...process.env, GOLDSET_DB: path.join(app.dir, 'test.db'), GOLDSET_LOG_LEVEL: 'silent' }, encoding: 'utf8' });
    const data = JSON.parse(out);
    expect(Object.keys(data)).toEqual(['tag', 'hash', 'samples', 'responses', 'created_at']);
    expect(data).toMatchObject({ tag: '2026-12-hr-v3', samples: 4, responses: 4 });
    expect(data.hash).toBe(release('again').hash);
  });

  it('stays as it was when samples and labels change later, and the next release says so in its hash', async () => {
    const r = release('v1');
    const before = await apiGet(`/api/v1/datasets/${datasetId}/releases/v1/export?format=ragas-jsonl&responses=1`, await viewerToken());
    editGroundTruth('试用期是多久？', '试用期为三个月，可申请提前转正。');
    await importRows([{ ...ROWS[1], 'human.correct': 'yes' }], expertId, adminId); // a second expert disagrees: no gold any more
    const after = await apiGet(`/api/v1/datasets/${datasetId}/releases/v1/export?format=ragas-jsonl&responses=1`, await viewerToken());
    expect(Buffer.compare(after.body, before.body)).toBe(0);
    const stored = [...app.ctx.releases.records(app.ctx.releases.byTag(datasetId, 'v1')!)].map((x) => JSON.parse(x.body));
    expect(specHash(stored)).toBe(r.hash);
    expect(release('v2').hash).not.toBe(r.hash);
  });

  it('refuses to change or delete a release in the database itself', () => {
    const r = release('v1');
    expect(() => app.ctx.db.prepare('UPDATE release_record SET body = ? WHERE release_id = ? AND position = 1').run('{}', r.id)).toThrow(/never changes/);
    expect(() => app.ctx.db.prepare('UPDATE release SET note = ? WHERE id = ?').run('x', r.id)).toThrow(/never changes/);
    expect(() => app.ctx.db.prepare('DELETE FROM release_record WHERE release_id = ?').run(r.id)).toThrow(/only as a whole/);
    expect(() => app.ctx.db.prepare('DELETE FROM release WHERE id = ?').run(r.id)).toThrow(/only as a whole/);
    expect(() => app.ctx.db.prepare("INSERT INTO release_record (release_id, position, kind, item_key, body) VALUES (?, ?, 'sample', 'x', '{}')").run(r.id, r.n_records)).toThrow(/complete/);
  });

  it('refuses a bad tag, a tag in use and a dataset without approved samples, in the form', async () => {
    release('v1');
    await admin.get(`/datasets/${datasetId}/releases`);
    expect((await admin.post(`/datasets/${datasetId}/releases`, { tag: 'v 1/x', note: '' })).text).toContain('Use 1–80 letters');
    expect((await admin.post(`/datasets/${datasetId}/releases`, { tag: 'v1', note: '' })).text).toContain('already has a release tagged v1');
    const empty = app.ctx.datasets.create(adminId, { name: 'Empty', description: '', language: 'en', domain: '' });
    expect(() => app.ctx.releases.create(null, empty, { tag: 'v1', note: '', responses: false })).toThrow('release.err_empty');
    const ok = await admin.post(`/datasets/${datasetId}/releases`, { tag: '2026-12-hr-v3', note: '第一版', responses: '1' });
    expect(ok.status).toBe(303);
    expect((await admin.get(ok.headers.get('location')!)).text).toContain(app.ctx.releases.byTag(datasetId, '2026-12-hr-v3')!.hash);
  });
});

describe('deleting a release', () => {
  it('is for admins only, needs the tag typed, and is audited with what the release held', async () => {
    const r = release('v1');
    const expert = await loginAs(app, 'li.wei@example.com', 'expert').catch(async () => {
      const c = new Client(app.url);
      await c.get('/login');
      await c.post('/login', { email: 'li.wei@example.com', password: 'a long enough password' });
      await c.get('/datasets');
      return c;
    });
    expect((await expert.post(`/datasets/${datasetId}/releases/v1/delete`, { confirm: 'v1' })).status).toBe(403);
    await admin.get(`/datasets/${datasetId}/releases/v1`);
    expect((await admin.post(`/datasets/${datasetId}/releases/v1/delete`, { confirm: 'v2' })).status).toBe(422);
    expect((await admin.post(`/datasets/${datasetId}/releases/v1/delete`, { confirm: 'v1' })).status).toBe(303);
    expect(app.ctx.releases.byTag(datasetId, 'v1')).toBeUndefined();
    expect(app.ctx.db.prepare('SELECT count(*) FROM release_record WHERE release_id = ?').pluck().get(r.id)).toBe(0);
    const event = app.ctx.audit.page({}).find((e) => e.entity_type === 'release' && e.action === 'delete')!;
    expect(JSON.parse(event.before!)).toMatchObject({ tag: 'v1', hash: r.hash, samples: 4, responses: 4 });
    expect(release('v1').hash).toBe(r.hash); // the tag can name the same content again
  });
});

describe('diff', () => {
  it('shows samples added, removed and changed (word and character diffs) and gold labels that changed', async () => {
    release('v1');
    editGroundTruth('试用期是多久？', '试用期为三个月。');
    await importRows([{ user_input: 'Where is the canteen?', reference: 'Second floor.', response: 'Second floor.', retrieved_contexts: [], system: 'rag-v1', 'human.correct': 'yes' }], expertId, expertId);
    approveAll();
    const reopened = sampleByQuestion('Who approves remote work?');
    app.ctx.samples.transition(adminId, reopened.id, reopened.version, 'reopen');
    await importRows([{ ...ROWS[0], 'human.correct': 'no' }], expertId, adminId); // now the experts disagree: no gold
    release('v2');
    const page = await admin.get(`/datasets/${datasetId}/releases/v1/diff?against=v2`);
    expect(page.status).toBe(200);
    expect(page.text.match(/<p><strong>[^<]*<\/strong><\/p>/)?.[0]).toBe('<p><strong>1 added, 1 removed, 1 changed, 2 unchanged samples.</strong></p>');
    expect(page.text).toContain('Where is the canteen?');
    expect(page.text).toContain('Who approves remote work?');
    expect(page.text).toContain('<dd lang="zh-CN"><span class="diff"><ins>试用期为</ins>三个月。</span>'); // character-level for Chinese
    // The items' own texts carry the dataset's language (WCAG 3.1.2), on whatever language the page is in.
    expect(page.text).toContain('<p class="strong" lang="zh-CN">试用期是多久？</p>');
    expect(page.text).toContain('<li lang="zh-CN">Where is the canteen?</li>');
    expect(page.text).toContain('<td><span lang="zh-CN">张伟是哪个部门的？</span><br/><span class="sub">rag-v1</span>');
    expect(page.text).toContain('1 gold label changed');
    expect(page.text).toMatch(/<td><del>1<\/del><\/td><td><ins><span class="sub">no gold<\/span><\/ins><\/td>/);
    const now = await admin.get(`/datasets/${datasetId}/releases/v2/diff?against=now`);
    expect(now.text).toContain('0 added, 0 removed, 0 changed, 4 unchanged samples.');
  });
});

describe('gold values and blind labellers', () => {
  it('refuses a labeller who may still label items the release exports that carry gold, and hides changed gold in the diff', async () => {
    release('v1');
    await importRows([{ ...ROWS[0], 'human.correct': 'no' }], expertId, adminId); // the gold value of this item changes
    release('v2');
    const blind = await loginAs(app, 'blind@example.com', 'expert');
    const blindId = app.ctx.users.queries.byEmail('blind@example.com')!.id;
    app.ctx.labels.setAssignment(adminId, datasetId, app.ctx.datasets.get(datasetId)!.version, 1, [{ userId: blindId, label: true, adjudicate: false }]);
    for (const query of ['format=ragas-jsonl&responses=1', 'format=xlsx&responses=1', 'format=goldset-jsonl']) {
      expect((await blind.get(`/datasets/${datasetId}/releases/v1/export?${query}`)).status, query).toBe(403);
    }
    const token = app.ctx.tokens.create(blindId, 'ci');
    expect((await apiGet(`/api/v1/datasets/${datasetId}/releases/v1/export?format=ragas-jsonl&responses=1`, token)).status).toBe(403);
    expect((await apiGet(`/api/v1/datasets/${datasetId}/releases/v1/export?format=ragas-jsonl`, token)).status).toBe(200);
    expect((await blind.get(`/datasets/${datasetId}/releases/v1/export?format=ragas-jsonl`)).status).toBe(200);
    const diff = await blind.get(`/datasets/${datasetId}/releases/v1/diff?against=v2`);
    expect(diff.status).toBe(200);
    expect(diff.text).toContain('0 gold labels changed');
    expect(diff.text).toContain('ask an adjudicator or an admin');
    expect((await admin.get(`/datasets/${datasetId}/releases/v1/diff?against=v2`)).text).toContain('1 gold label changed');
  });
});

async function viewerToken(): Promise<string> {
  const user = app.ctx.users.queries.byEmail('viewer@example.com') ?? await app.ctx.users.createUser(null, { email: 'viewer@example.com', name: 'V', password: 'a long enough password', role: 'viewer' });
  return app.ctx.tokens.create(user.id, 'ci');
}

async function apiGet(url: string, token: string | null, headers: Record<string, string> = {}) {
  const res = await fetch(app.url + url, { headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe('fetching a release from CI', () => {
  it('answers the same bytes every time with an ETag of the hash and format, and 304 to If-None-Match, for a viewer\'s token', async () => {
    const r = release('2026-12-hr-v3');
    const token = await viewerToken();
    const url = `/api/v1/datasets/${datasetId}/releases/2026-12-hr-v3/export?format=ragas-jsonl`;
    const first = await apiGet(url, token);
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe(`"${r.hash}-ragas-jsonl"`);
    expect(first.headers.get('x-goldset-release-hash')).toBe(r.hash);
    const lines = first.body.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(Object.keys(lines[0])).toEqual(['user_input', 'reference', 'reference_contexts']);
    editGroundTruth('试用期是多久？', '六个月。');
    const second = await apiGet(url, token);
    expect(Buffer.compare(second.body, first.body)).toBe(0);
    const again = await apiGet(url, token, { 'If-None-Match': first.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await apiGet(url, token, { 'If-None-Match': '"something-else"' })).status).toBe(200);
    expect((await apiGet(url, null)).status).toBe(401);
    expect((await apiGet(`/api/v1/datasets/${datasetId}/releases/nope/export?format=ragas-jsonl`, token)).status).toBe(404);
    const list = JSON.parse((await apiGet(`/api/v1/datasets/${datasetId}/releases`, token)).body.toString('utf8'));
    expect(list.releases[0]).toMatchObject({ tag: '2026-12-hr-v3', hash: r.hash, samples: 4, responses: 4 });
  });

  it('exports a release in every format, XLSX included, each byte for byte the same each time', async () => {
    const r = release('v1');
    const token = await viewerToken();
    for (const format of ['ragas-jsonl', 'ragas-csv', 'goldset-jsonl', 'xlsx']) {
      for (const responses of format === 'goldset-jsonl' ? [''] : ['', '&responses=1']) {
        const url = `/api/v1/datasets/${datasetId}/releases/v1/export?format=${format}${responses}`;
        const a = await apiGet(url, token), b = await apiGet(url, token);
        expect(a.status, url).toBe(200);
        expect(Buffer.compare(a.body, b.body), url).toBe(0);
        expect(a.headers.get('etag')).toBe(`"${r.hash}-${format}${responses && format !== 'goldset-jsonl' ? '-responses' : ''}"`);
      }
    }
    const file = path.join(app.dir, 'release.xlsx');
    fs.writeFileSync(file, (await apiGet(`/api/v1/datasets/${datasetId}/releases/v1/export?format=xlsx&responses=1`, token)).body);
    const book = await Workbook.open(file);
    const rows: unknown[][] = [];
    for await (const batch of book.rows(book.sheet())) for (const x of batch) rows.push(x.cells);
    book.close();
    expect(rows[0]).toEqual(['user_input', 'retrieved_contexts', 'response', 'reference', 'reference_contexts', 'system', 'human.correct']);
    expect(rows.slice(1).map((x) => x[6])).toEqual([0, 0, 1, 1]); // gold labels as numbers, in the release's order (UTF-8 order of the questions)
  });

  it('restores a release\'s goldset-jsonl as a new dataset with its gold labels', async () => {
    release('v1');
    const file = path.join(app.dir, 'release.goldset.jsonl');
    fs.writeFileSync(file, (await apiGet(`/api/v1/datasets/${datasetId}/releases/v1/export?format=goldset-jsonl`, await viewerToken())).body);
    const { restoreGoldsetJsonl } = await import('../../server/importexport/goldset-jsonl.ts');
    const { datasetId: restored, counts } = await restoreGoldsetJsonl(app.ctx.db, app.ctx.audit, file, { actorId: adminId });
    expect(counts).toMatchObject({ sample: 4, response: 4, criterion: 1, adjudication: 4 });
    expect(app.ctx.releases.create(null, app.ctx.datasets.get(restored)!, { tag: 'v1', note: '', responses: true }).hash).toBe(app.ctx.releases.byTag(datasetId, 'v1')!.hash);
  });

  it('refuses an export the release cannot give', async () => {
    release('samples-only', false);
    const res = await apiGet(`/api/v1/datasets/${datasetId}/releases/samples-only/export?format=ragas-csv&responses=1`, await viewerToken());
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body.toString('utf8')).error).toBe('no_responses');
    // XLSX: more records than a sheet's rows below its header, or a text longer than a cell, before a byte is sent
    // (a release never changes in the database, so the figures it keeps are given here as a bigger one would have them).
    const { checkReleaseExport, releaseExportRefusal, ReleaseExportError } = await import('../../server/releases/export.ts');
    const r = release('v1');
    const refusal = (row: typeof r, responses: boolean): [string, string] | null => {
      try { checkReleaseExport(row, 'xlsx', responses); return null; } catch (err) {
        if (!(err instanceof ReleaseExportError)) throw err;
        return [err.reason, releaseExportRefusal(err, row, translator('zh'))];
      }
    };
    expect(refusal({ ...r, n_samples: 1_048_575 }, false)).toBeNull();
    expect(refusal({ ...r, n_samples: 1_048_576 }, false)).toEqual(['too_many_rows', translator('zh')('export.too_many_rows', { limit: '1,048,575' })]);
    expect(refusal({ ...r, n_responses: 1_048_576 }, false)).toBeNull();
    expect(refusal({ ...r, n_responses: 1_048_576 }, true)![0]).toBe('too_many_rows');
    expect(refusal({ ...r, longest_text: 32_768 }, false)).toEqual(['cell_too_long', '该版本中有一段 32768 个字符的文本，而电子表格单元格最多容纳 32,767 个字符。请下载 Ragas JSONL 或 CSV 格式。']);
  });
});

describe('runs, reports and the gate on a release', () => {
  const out = () => {
    const printed: { text: string; data: Record<string, unknown> }[] = [];
    return { printed, json: false, print: (text: string, data: Record<string, unknown>) => { printed.push({ text, data }); } };
  };

  it('scores a release\'s items as released, and the report and gate say which release they are about', async () => {
    const r = release('v1');
    editGroundTruth('试用期是多久？', '六个月，不是三个月。'); // after the release: the run must not see it
    const selection = (await import('../../server/releases/runs.ts')).releaseSelection(app.ctx, r, '');
    const run = app.ctx.runner.create(adminId, datasetId, { name: 'nightly', metricKey: 'exact_match', selection });
    await app.ctx.runner.start(run.id);
    const scores = app.ctx.runner.queries.scores(run.id, { limit: 10, offset: 0 });
    expect(scores.map((s) => s.value)).toEqual([1, 0, 1, 0]); // 试用期 still matches its released ground truth
    const working = app.ctx.runner.create(adminId, datasetId, { name: 'nightly', metricKey: 'non_llm_context_recall' });
    await app.ctx.runner.start(working.id);

    const report = out();
    await cmdReport(app.ctx, { dataset: 'HR 评测', criterion: 'correct', metric: 'exact_match', run: 'nightly' }, report);
    expect(report.printed[0]!.text).toContain(`eval set: release v1 (sha256 ${r.hash.slice(0, 12)}…)`);
    expect(report.printed[0]!.data.release).toEqual({ tag: 'v1', hash: r.hash });
    // The true score says the same: which eval set its run scored.
    const estimate = out();
    expect(await cmdEstimate(app.ctx, { dataset: 'HR 评测', criterion: 'correct', run: 'nightly', metric: 'exact_match' }, estimate)).toBe(0);
    expect(estimate.printed[0]!.text).toContain(`eval set: release v1 (sha256 ${r.hash.slice(0, 12)}…)`);
    expect(estimate.printed[0]!.data.release).toEqual({ tag: 'v1', hash: r.hash });
    const workingEstimate = out();
    await cmdEstimate(app.ctx, { dataset: 'HR 评测', criterion: 'correct', run: 'nightly', metric: 'non_llm_context_recall' }, workingEstimate);
    expect(workingEstimate.printed[0]!.text).toContain('eval set: unreleased working copy');
    expect(workingEstimate.printed[0]!.data.release).toBeNull();

    const pass = out();
    expect(await cmdGate(app.ctx, { dataset: 'HR 评测', run: 'nightly', min: ['exact_match=0.5'], release: 'v1' }, pass)).toBe(0);
    expect(pass.printed[0]!.text).toMatch(/^eval set: release v1/);
    const refused = out();
    expect(await cmdGate(app.ctx, { dataset: 'HR 评测', run: 'nightly', min: ['non_llm_context_recall=0'], release: 'v1' }, refused)).toBe(1);
    expect(refused.printed[0]!.text).toContain('REFUSED non_llm_context_recall: run "nightly" was scored on the unreleased working copy, not on release v1');
    const workingCopy = out();
    await cmdGate(app.ctx, { dataset: 'HR 评测', run: 'nightly', min: ['non_llm_context_recall=0'] }, workingCopy);
    expect(workingCopy.printed[0]!.text).toMatch(/^eval set: unreleased working copy/);
  });

  it('refuses a run on the release that does not cover all of its items', async () => {
    const r = release('v1');
    const { releaseSelection } = await import('../../server/releases/runs.ts');
    const run = app.ctx.runner.create(adminId, datasetId, { name: 'partial', metricKey: 'exact_match', selection: releaseSelection(app.ctx, r, 'rag-v1') });
    await app.ctx.runner.start(run.id);
    const res = out();
    await cmdReport(app.ctx, { dataset: 'HR 评测', criterion: 'correct', metric: 'exact_match', run: 'partial' }, out());
    expect(await cmdGate(app.ctx, { dataset: 'HR 评测', run: 'partial', min: ['exact_match=0'], release: 'v1', 'min-agreement': '-1' }, res)).toBe(1);
    expect(res.printed[0]!.text).toContain('has no score for 2 of the 4 items of release v1');
  });

  it('starts a run on a release from the runs page', async () => {
    release('v1');
    await admin.get(`/datasets/${datasetId}/runs`);
    const res = await admin.post(`/datasets/${datasetId}/runs`, { metric: 'exact_match', name: 'from-web', release: 'v1', system: '', concurrency: 4 });
    expect(res.status).toBe(303);
    const page = await admin.get(res.headers.get('location')!);
    expect(page.text).toContain('Release v1');
  });
});
