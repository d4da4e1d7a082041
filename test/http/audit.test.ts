// The global audit log renders every entry, whatever its shape, in the reader's language (issue #11.1, #11.15).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setupAdmin, startTestApp, unnamedAuditFields, type Client, type TestApp } from '../helpers.ts';
import { en } from '../../server/i18n/en.ts';
import { translator, type MessageKey } from '../../server/i18n/index.ts';
import { AUDIT_TYPES, type EntityType } from '../../server/audit/queries.ts';

let app: TestApp;
let admin: Client;
beforeEach(async () => { app = await startTestApp(); admin = await setupAdmin(app); });
afterEach(async () => { await app.close(); });

/** Every (entity type, action) the server's code records: read from its audit.record calls. */
function recordedKinds(): [EntityType, string][] {
  const root = path.resolve(import.meta.dirname, '../../server');
  const files = (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => fs.readFileSync(path.join(root, f), 'utf8'));
  const kinds = new Set<string>();
  for (const src of files) {
    for (const m of src.matchAll(/entityType: '(\w+)'[\s\S]{0,240}?action: ([^,}\n]+)/g)) {
      const expr = m[2]!.replace(/===?\s*'[^']*'/g, '');
      const actions = [...expr.matchAll(/'(\w+)'/g)].map((a) => a[1]!);
      // `action` passed in a variable: the sample service's transitions and edits.
      if (actions.length === 0 && m[1] === 'sample') actions.push('update', ...[...src.matchAll(/type Transition = ([^;]+);/g)].flatMap((t) => [...t[1]!.matchAll(/'(\w+)'/g)].map((a) => a[1]!)));
      for (const a of actions) kinds.add(`${m[1]} ${a}`);
    }
  }
  return [...kinds].map((k) => k.split(' ') as [EntityType, string]);
}

describe('audit log', () => {
  it('answers once the judge settings were saved (an entry whose "before" is null)', async () => {
    await admin.get('/settings/judge');
    const saved = await admin.post('/settings/judge', { preset: 'custom', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-secret-value', chat_model: 'm', embedding_model: '',
      temperature: 0, timeout_ms: 60000, max_concurrency: 4, structured_output: 'json_schema', price_prompt: 0, price_completion: 0 });
    expect(saved.status).toBe(303);
    const page = await admin.get('/audit');
    expect(page.status).toBe(200);
    expect(page.text).toContain('changed the judge settings');
    expect(page.text).not.toContain('sk-secret-value');
  });

  it('names every field an event records, in both languages; the tests\' apps refuse to close over an event with a field it cannot name', async () => {
    const ds = app.ctx.datasets.create(null, { name: 'A', description: '', language: 'en', domain: '' }).id;
    app.ctx.audit.record({ actorId: null, entityType: 'import', entityId: null, datasetId: ds, action: 'import',
      after: { file: 'a.csv', rows: 2, samples_created: 2, responses_created: 1, labels: 1, annotator: null, differs: 0 } });
    expect(unnamedAuditFields(app.ctx.db)).toEqual([]);
    for (const lang of ['en', 'zh'] as const) {
      await admin.post('/locale', { locale: lang, back: '/audit' });
      const change = /<dl class="kv compact">([\s\S]*?)<\/dl>/.exec((await admin.get('/audit?type=import')).text)![1]!;
      for (const key of ['samples_created', 'responses_created', 'differs']) {
        expect(change).not.toContain(`<dt>${key}</dt>`);
        expect(change).toContain(`<dt>${translator(lang)(`audit.field.${key}` as MessageKey)}</dt>`);
      }
    }
    // Values that are goldset's own words are said in the reader's language too.
    app.ctx.audit.record({ actorId: null, entityType: 'labelling_sheet', entityId: null, datasetId: ds, action: 'upload', after: { annotator: 'e@x', state: 'submitted', items: 3, unchanged: 0 } });
    app.ctx.audit.record({ actorId: null, entityType: 'metric', entityId: 9, datasetId: ds, action: 'create', after: { key: 'tone', kind: 'custom', output: 'binary' } });
    const zh = translator('zh');
    const sheet = (await admin.get('/audit?type=labelling_sheet')).text;
    expect(sheet).toContain(`<dt>${zh('audit.field.state')}</dt><dd><span class="diff"><ins>${zh('label.submitted')}</ins>`);
    const metric = (await admin.get('/audit?type=metric')).text;
    expect(metric).toContain(`<ins>${zh('metrics.kind_custom')}</ins>`);
    expect(metric).toContain(`<ins>${zh('metrics.output_binary')}</ins>`);
    app.ctx.audit.record({ actorId: null, entityType: 'import', entityId: null, datasetId: ds, action: 'import', after: { a_field_with_no_name: 1 } });
    expect(unnamedAuditFields(app.ctx.db)).toEqual(['a_field_with_no_name (import.import)']);
    app.checkAuditFields = false;
  });

  it('has words in both languages for every kind of entry the code records', () => {
    const kinds = recordedKinds();
    expect(kinds.length).toBeGreaterThan(20);
    for (const [type, action] of kinds) expect(Object.hasOwn(en, `audit.act.${type}.${action}`), `audit.act.${type}.${action}`).toBe(true);
    for (const type of AUDIT_TYPES) expect(Object.hasOwn(en, `audit.entity.${type}`)).toBe(true);
  });

  it('renders one entry of every kind, and entries of any shape, in English and Chinese', async () => {
    app.checkAuditFields = false; // made-up fields on purpose
    const ds = app.ctx.datasets.create(null, { name: 'A', description: '', language: 'en', domain: '' }).id;
    const shapes: [unknown, unknown][] = [[undefined, undefined], [null, { a: 1 }], [{ a: 1 }, null], [[1, 2], 'text'], [42, true],
      [{ nested: { deep: [1, { x: 'y' }] } }, { nested: { deep: [2] } }], [{ big: 'x'.repeat(50_000) }, { big: 'y'.repeat(50_000) }],
      [Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, i])), {}], [{ status: 'draft' }, { status: 'in_review' }]];
    for (const [type, action] of recordedKinds()) {
      for (const [before, after] of shapes) app.ctx.audit.record({ actorId: null, entityType: type, entityId: 7, datasetId: ds, action, before, after });
    }
    app.ctx.audit.record({ actorId: null, entityType: 'run', entityId: 3, datasetId: ds, action: 'something_new', after: { response: 'not a number' } });
    app.ctx.db.prepare("INSERT INTO audit_event (actor_id, entity_type, entity_id, action, before, after) VALUES (NULL, 'sample', 1, 'update', 'null', '[]')").run();
    for (const lang of ['en', 'zh']) {
      await admin.post('/locale', { locale: lang, back: '/audit' });
      for (let before: number | null = Number.MAX_SAFE_INTEGER; before !== null;) {
        const page = await admin.get(`/audit?before=${before}`);
        expect(page.status).toBe(200);
        const older = /href="\/audit\?before=(\d+)"/.exec(page.text);
        before = older ? Number(older[1]) : null;
      }
    }
    app.ctx.audit.record({ actorId: null, entityType: 'sample', entityId: 7, datasetId: ds, action: 'submit', before: { status: 'draft' }, after: { status: 'in_review' } });
    const zh = await admin.get('/audit?type=sample');
    expect(zh.text).toContain('将 <a href="/samples/7">样本 #7</a> 提交审核');
    expect(zh.text).toContain('待审核');
    expect(zh.text).not.toMatch(/>sample #7 submit</);
    expect(zh.text).toContain('……另有');
    expect((await admin.get('/audit?type=run')).text).toContain('<a href="/runs/3">评分运行 #3</a>：something_new');
  });
});
