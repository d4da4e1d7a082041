// The input limits of server/limits.ts hold for every way data gets in. The same over-limit values go
// through the web form, CSV, XLSX, JSONL and JSON uploads, the JSON API and the CLI: each refuses them
// with an error naming the row and field, in the user's language, and stores nothing. Values at the
// limit are accepted, so no entry point is stricter than the table either.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import { LIMITS } from '../../server/limits.ts';
import { XlsxWriter } from '../../server/xlsx/write.ts';
import { MAX_CELL_CHARS } from '../../server/xlsx/text.ts';
import { ADMIN, Client, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';
import { goldsetCli } from '../cli.ts';

let app: TestApp;
let admin: Client;
let ds: number;
let token: string;

beforeAll(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
  ds = app.ctx.datasets.create(null, { name: 'Limits', description: '', language: 'en', domain: '' }).id;
  token = app.ctx.tokens.create(app.ctx.users.queries.byEmail(ADMIN.email)!.id, 'ci');
});
afterAll(async () => { await app.close(); });

const long = (n: number) => '问'.repeat(n);
const many = (n: number) => Array.from({ length: n }, (_, i) => `context ${i}`);

/** One over-limit value per case: the row carrying it, and the field (column) the refusal must name. */
interface Case { name: string; field: string; row: Record<string, unknown>; form?: Record<string, string>; message: RegExp }
const CASES: Case[] = [
  { name: 'question', field: 'question', row: { question: long(LIMITS.question + 1) }, form: { question: long(LIMITS.question + 1) },
    message: new RegExp(`'question' has ${LIMITS.question + 1} characters; the limit is ${LIMITS.question}`) },
  { name: 'ground truth', field: 'ground_truth', row: { question: 'q gt', ground_truth: long(LIMITS.groundTruth + 1) },
    form: { question: 'q gt', ground_truth: long(LIMITS.groundTruth + 1) }, message: /'ground_truth' has 20001 characters; the limit is 20000/ },
  { name: 'reference contexts', field: 'reference_contexts', row: { question: 'q refs', reference_contexts: many(LIMITS.contexts + 1) },
    form: { question: 'q refs', reference_contexts: many(LIMITS.contexts + 1).join('\n\n') }, message: /'reference_contexts' has 101 items; the limit is 100/ },
  { name: 'one reference context', field: 'reference_contexts', row: { question: 'q ref', reference_contexts: [long(LIMITS.context + 1)] },
    form: { question: 'q ref', reference_contexts: long(LIMITS.context + 1) }, message: /'reference_contexts' \(item 1\) has 20001 characters/ },
  { name: 'tags', field: 'tags', row: { question: 'q tags', tags: many(LIMITS.tags + 1) }, form: { question: 'q tags', tags: many(LIMITS.tags + 1).join(', ') },
    message: /'tags' has 51 items; the limit is 50/ },
  { name: 'one tag', field: 'tags', row: { question: 'q tag', tags: ['t'.repeat(LIMITS.tag + 1)] }, form: { question: 'q tag', tags: 't'.repeat(LIMITS.tag + 1) },
    message: /'tags' \(item 1\) has 61 characters/ },
  { name: 'notes', field: 'notes', row: { question: 'q notes', notes: long(LIMITS.notes + 1) }, form: { question: 'q notes', notes: long(LIMITS.notes + 1) },
    message: /'notes' has 8001 characters/ },
  { name: 'NUL character', field: 'question', row: { question: 'who\u0000am I' }, form: { question: 'who\u0000am I' }, message: /'question' contains a NUL character/ },
  { name: 'answer', field: 'response', row: { question: 'q answer', response: long(LIMITS.answer + 1) }, message: /'response' has 50001 characters/ },
  { name: 'retrieved contexts', field: 'retrieved_contexts', row: { question: 'q ctx', response: 'a', retrieved_contexts: many(LIMITS.contexts + 1) },
    message: /'retrieved_contexts' has 101 items; the limit is 100/ },
  { name: 'one retrieved context', field: 'retrieved_contexts', row: { question: 'q ctx1', response: 'a', retrieved_contexts: ['ok', long(LIMITS.context + 1)] },
    message: /'retrieved_contexts' \(item 2\) has 20001 characters/ },
  { name: 'system', field: 'system', row: { question: 'q sys', response: 'a', system: 's'.repeat(LIMITS.system + 1) }, message: /'system' has 201 characters/ },
  { name: 'control character in a tag', field: 'tags', row: { question: 'q ctl tag', tags: ['ok', 'evil\u001b[2J'] }, form: { question: 'q ctl tag', tags: 'ok, evil\u001b[2J' },
    message: /'tags' \(item 2\) contains a control character or a text-direction mark/ },
  { name: 'text-direction mark in a system', field: 'system', row: { question: 'q ctl sys', response: 'a', system: 'rag\u202ev1' },
    message: /'system' contains a control character or a text-direction mark/ },
  { name: 'label value', field: 'human.correct', row: { question: 'q label', response: 'a', 'human.correct': 'y'.repeat(LIMITS.labelValue + 1) },
    message: /'human.correct' has 201 characters/ },
];
// A row with every column of every case, so CSV files have one header.
const COLUMNS = [...new Set(CASES.flatMap((c) => Object.keys(c.row)))];

const counts = () => app.ctx.db.prepare(`SELECT (SELECT count(*) FROM sample WHERE dataset_id = @ds) AS samples,
  (SELECT count(*) FROM response WHERE dataset_id = @ds) AS responses, (SELECT count(*) FROM criterion WHERE dataset_id = @ds) AS criteria`).get({ ds });
const NOTHING = { samples: 0, responses: 0, criteria: 0 };

const cellsOf = (rows: Record<string, unknown>[]) => rows.map((r) => COLUMNS.map((c) => (Array.isArray(r[c]) ? JSON.stringify(r[c]) : String(r[c] ?? ''))));

function csvOf(rows: Record<string, unknown>[]): string {
  return stringify([COLUMNS, ...cellsOf(rows)]);
}

/** The same rows as a workbook's first sheet (text cells), as a spreadsheet user would upload them. */
async function xlsxOf(rows: Record<string, unknown>[]): Promise<Buffer> {
  const file = path.join(app.dir, 'limits.xlsx');
  const w = new XlsxWriter(fs.createWriteStream(file), { mtime: new Date() });
  await w.startSheet({ name: 'Limits', columns: COLUMNS.map((header) => ({ header, style: 'text' as const })) });
  for (const r of cellsOf(rows)) await w.row(r);
  await w.endSheet();
  await w.finish();
  return fs.readFileSync(file);
}

function cli(file: string): Promise<{ code: number | null; out: string }> {
  return goldset(['import', file, '--dataset', 'Limits', '--annotator', ADMIN.email]);
}

async function goldset(args: string[]): Promise<{ code: number | null; out: string }> {
  const res = await goldsetCli(args, { env: { GOLDSET_DB: app.ctx.config.dbFile } });
  return { code: res.code, out: res.stdout + res.stderr };
}

async function api(body: unknown) {
  const res = await fetch(`${app.url}/api/v1/datasets/${ds}/responses`, {
    method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() as { error: string; errors: { row: number; field: string; code: string; message: string }[] } };
}

describe('input limits through every entry point', () => {
  it('the web form refuses each over-limit field beside the field, in the user\'s language, and stores nothing', async () => {
    const zh = new Client(app.url, 'zh-CN');
    zh.cookie = admin.cookie;
    await admin.get(`/datasets/${ds}`);
    for (const c of CASES.filter((x) => x.form)) {
      const res = await admin.post(`/datasets/${ds}/samples`, c.form!);
      expect(res.status, c.name).toBe(422);
      // Beside the field, or at the top of the form for a field it does not show (notes).
      expect(res.text, c.name).toMatch(c.name === 'notes' ? /class="alert" role="alert">Notes: / : /class="error" id="f-(question|ground_truth|reference_contexts|tags)-error"/);
      expect(res.text, c.name).toMatch(/at most \d+|Too many items|NUL character|cannot hold control characters/);
    }
    await zh.get(`/datasets/${ds}`);
    const res = await zh.post(`/datasets/${ds}/samples`, CASES[0]!.form!);
    expect(res.text).toContain(`内容过长：最多 ${LIMITS.question} 个字符。`);
    expect(counts()).toEqual(NOTHING);
  });

  it('CSV, XLSX, JSONL and JSON uploads name the row and field of each over-limit value and import nothing', async () => {
    const rows = CASES.map((c) => c.row);
    // A spreadsheet cell holds at most 32,767 characters: the sheet carries the cases that fit in one.
    const inSheet = CASES.filter((c) => cellsOf([c.row])[0]!.every((v) => v.length <= MAX_CELL_CHARS));
    const files: [string, string | Buffer, Case[]][] = [
      ['limits.csv', csvOf(rows), CASES],
      ['limits.xlsx', await xlsxOf(inSheet.map((c) => c.row)), inSheet],
      ['limits.jsonl', rows.map((r) => JSON.stringify(r)).join('\n'), CASES],
      ['limits.json', JSON.stringify(rows, null, 0).replace(/\},\{/g, '},\n{'), CASES],
    ];
    expect(inSheet.length).toBeGreaterThan(CASES.length - 3);
    await admin.get(`/datasets/${ds}/import`);
    for (const [name, content, cases] of files) {
      const res = await admin.upload(`/datasets/${ds}/import`, name, content);
      expect(res.status, name).toBe(422);
      cases.forEach((c, i) => {
        // CSV and sheet rows count the header as row 1; JSONL and this JSON file have one record per line.
        const tabular = name.endsWith('.csv') || name.endsWith('.xlsx');
        const at = tabular ? `row ${i + 2}` : `line ${i + 1}`;
        const unit = tabular ? 'column' : 'field';
        expect(res.text, `${name}: ${c.name}`).toMatch(new RegExp(`${at}: ${c.message.source.replace(/^'/, `${unit} '`)}`));
      });
    }
    const zh = new Client(app.url, 'zh-CN');
    zh.cookie = admin.cookie;
    await zh.get(`/datasets/${ds}/import`);
    const res = await zh.upload(`/datasets/${ds}/import`, 'limits.jsonl', JSON.stringify(CASES[0]!.row));
    expect(res.text).toContain(`第 1 行：字段“question”有 ${LIMITS.question + 1} 个字符，上限为 ${LIMITS.question}`);
    expect(counts()).toEqual(NOTHING);
  });

  it('the JSON API names the row, field and code of each over-limit value and imports nothing', async () => {
    const res = await api(CASES.map((c) => c.row));
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('invalid_rows');
    CASES.forEach((c, i) => {
      const e = res.body.errors.find((x) => x.row === i + 1);
      expect(e, c.name).toMatchObject({ row: i + 1, field: c.field });
      expect(e!.message, c.name).toMatch(c.message);
    });
    expect(counts()).toEqual(NOTHING);
  });

  it('the CLI names the line and field of each over-limit value, exits 1 and imports nothing', async () => {
    const file = path.join(app.dir, 'limits-cli.jsonl');
    fs.writeFileSync(file, CASES.map((c) => JSON.stringify(c.row)).join('\n'));
    const res = await cli(file);
    expect(res.code).toBe(1);
    CASES.forEach((c, i) => expect(res.out, c.name).toMatch(new RegExp(`line ${i + 1}: ${c.message.source.replace(/^'/, "field '")}`)));
    expect(counts()).toEqual(NOTHING);
  });

  it('refuses a row of more columns, or more human.<criterion> columns, than the limits, creating no criterion', async () => {
    const wide = Object.fromEntries([['question', 'q'], ...Array.from({ length: LIMITS.columns }, (_, i) => [`extra_${i}`, 'x'])]);
    const labels = Object.fromEntries([['question', 'q'], ['response', 'a'], ...Array.from({ length: LIMITS.criteria + 1 }, (_, i) => [`human.c${i}`, 'yes'])]);
    const res = await api([wide, labels]);
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e) => [e.row, e.code])).toEqual([[1, 'too_many'], [2, 'too_many']]);
    await admin.get(`/datasets/${ds}/import`);
    const upload = await admin.upload(`/datasets/${ds}/import`, 'wide.csv', stringify([Object.keys(labels), Object.values(labels)]));
    expect(upload.status).toBe(422);
    expect(upload.text).toContain(`row 2: the row has ${LIMITS.criteria + 1} human.&lt;criterion> columns; a dataset can have at most ${LIMITS.criteria} criteria`);
    expect(counts()).toEqual(NOTHING);
  });

  it('refuses an API body nested deeper than the limit with 422 before parsing it, and a deep JSONL record', async () => {
    const deep = `[${'['.repeat(50_000)}${']'.repeat(50_000)}]`;
    const res = await fetch(`${app.url}/api/v1/datasets/${ds}/responses`, {
      method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: deep,
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: 'too_deep', field: 'body' });
    await admin.get(`/datasets/${ds}/import`);
    const upload = await admin.upload(`/datasets/${ds}/import`, 'deep.jsonl', `{"question": "q", "extra": ${'['.repeat(40)}${']'.repeat(40)}}`);
    expect(upload.status).toBe(422);
    expect(upload.text).toContain(`line 1: the record nests more than ${LIMITS.jsonDepth} levels`);
    expect(app.logs.some((l) => l.includes('"level":"error"'))).toBe(false);
    expect(counts()).toEqual(NOTHING);
  });

  it('accepts every value exactly at its limit', async () => {
    const row = {
      question: long(LIMITS.question), ground_truth: long(LIMITS.groundTruth), reference_contexts: [long(LIMITS.context), ...many(LIMITS.contexts - 1)],
      tags: ['t'.repeat(LIMITS.tag), ...many(LIMITS.tags - 1)], notes: long(LIMITS.notes), response: long(LIMITS.answer),
      retrieved_contexts: [long(LIMITS.context), ...many(LIMITS.contexts - 1)], system: 's'.repeat(LIMITS.system),
    };
    const res = await api([row]);
    expect(res.status).toBe(201);
    expect(counts()).toEqual({ samples: 1, responses: 1, criteria: 0 });
    const form = await admin.post(`/datasets/${ds}/samples`, { question: 'x'.repeat(LIMITS.question - 1) + 'y', reference_contexts: many(LIMITS.contexts).join('\n\n') });
    expect(form.status).toBe(303);
  });

  it('refuses the criterion after the limit, from the form and from a file\'s label columns', async () => {
    const other = app.ctx.datasets.create(null, { name: 'Criteria limit', description: '', language: 'en', domain: '' }).id;
    for (let i = 0; i < LIMITS.criteria; i++) {
      app.ctx.criteria.create(null, other, { name: `c${i}`, kind: 'binary', target: 'response', options: [], scale_min: null, scale_max: null, guidelines: '' });
    }
    await admin.get(`/datasets/${other}/criteria`);
    const res = await admin.post(`/datasets/${other}/criteria`, { name: 'one_more', kind: 'binary', target: 'response', guidelines: '' });
    expect(res.status).toBe(422);
    expect(res.text).toContain(`A dataset can have at most ${LIMITS.criteria} criteria.`);
    await admin.get(`/datasets/${other}/import`);
    const upload = await admin.upload(`/datasets/${other}/import`, 'more.jsonl', JSON.stringify({ question: 'q', response: 'a', 'human.one_more': 'yes' }));
    expect(upload.status).toBe(422);
    expect(upload.text).toContain(`human.one_more: A dataset can have at most ${LIMITS.criteria} criteria.`);
    expect(app.ctx.criteria.forDataset(other)).toHaveLength(LIMITS.criteria);
    // A categorical column with more distinct values than a criterion may have options.
    const third = app.ctx.datasets.create(null, { name: 'Options limit', description: '', language: 'en', domain: '' }).id;
    const rows = Array.from({ length: LIMITS.options + 1 }, (_, i) => JSON.stringify({ question: `q${i}`, response: 'a', 'human.kind': `kind ${i}` }));
    await admin.get(`/datasets/${third}/import`);
    const cats = await admin.upload(`/datasets/${third}/import`, 'cats.jsonl', rows.join('\n'));
    expect(cats.status).toBe(422);
    expect(cats.text).toContain(`human.kind: A criterion can have at most ${LIMITS.options} options (${LIMITS.options + 1} given).`);
    expect(app.ctx.db.prepare('SELECT count(*) FROM sample WHERE dataset_id = ?').pluck().get(third)).toBe(0);
  });

  it('refuses a name holding a control or text-direction character, and a dataset name over its limit, from every entry point', async () => {
    const datasets = () => app.ctx.db.prepare('SELECT count(*) FROM dataset').pluck().get();
    const before = datasets();
    // The New dataset form: escape sequences and a right-to-left override, each beside its field.
    await admin.get('/datasets');
    const form = await admin.post('/datasets', { name: 'HR\u001b[2J', domain: 'support\u202e', description: '', language: 'en' });
    expect(form.status).toBe(422);
    expect(form.text).toContain('<p class="error" id="f-name-error" role="alert">A name cannot hold control characters');
    expect(form.text).toContain('<p class="error" id="f-domain-error" role="alert">A name cannot hold control characters');
    // The command line's import into a new dataset: the same rules, the length limit included.
    const file = path.join(app.dir, 'names.jsonl');
    fs.writeFileSync(file, JSON.stringify({ question: 'q', response: 'a' }));
    const escaped = await goldset(['import', file, '--dataset', 'HR\u001b]0;x\u0007']);
    expect(escaped.code).toBe(2);
    expect(escaped.out).toContain('--dataset: A name cannot hold control characters');
    const tooLong = await goldset(['import', file, '--dataset', 'n'.repeat(LIMITS.datasetName + 1)]);
    expect(tooLong.code).toBe(2);
    expect(tooLong.out).toContain(`--dataset: This is too long: ${LIMITS.datasetName + 1} characters, at most ${LIMITS.datasetName}.`);
    // A goldset JSONL restore naming its dataset so.
    const restore = path.join(app.dir, 'restore.jsonl');
    fs.writeFileSync(restore, JSON.stringify({ type: 'goldset', version: 1, dataset: { name: 'R\u202eTL', language: 'en', description: '', domain: '' } }));
    const restored = await goldset(['import', restore]);
    expect(restored.code).toBe(2);
    expect(restored.out).toContain('dataset name contains a control or text-direction character');
    expect(datasets()).toBe(before);
    // A file's human.<criterion> column, and an import's run name.
    const stored = counts();
    await admin.get(`/datasets/${ds}/import`);
    const label = await admin.upload(`/datasets/${ds}/import`, 'label.jsonl', JSON.stringify({ question: 'q', response: 'a', 'human.ok\u001b[8m': 'yes' }));
    expect(label.status).toBe(422);
    expect(label.text).toContain('A name cannot hold control characters');
    const run = await admin.upload(`/datasets/${ds}/import`, 'run.csv', 'question,response,faithfulness\nq,a,0.5\n', { run: 'nightly\u001b[2J' });
    expect(run.status).toBe(422);
    expect(run.text).toContain('A run name cannot hold control characters');
    expect(counts()).toEqual(stored);
    // The Runs page's run name.
    await admin.get(`/datasets/${ds}/runs`);
    const runForm = await admin.post(`/datasets/${ds}/runs`, { metric: 'exact_match', name: 'nightly\u202e' });
    expect(runForm.status).toBe(422);
    expect(runForm.text).toContain('A name cannot hold control characters');
  });

  it('the forms that name a run let a name as long as the limit be typed, and no longer (the runs page, the import page)', async () => {
    for (const [page, input] of [[`/datasets/${ds}/runs`, 'f-name'], [`/datasets/${ds}/import`, 'f-run']] as const) {
      const html = (await admin.get(page)).text;
      expect(new RegExp(`id="${input}"[^>]*maxlength="(\\d+)"`).exec(html)?.[1], page).toBe(String(LIMITS.runName));
    }
  });
});
