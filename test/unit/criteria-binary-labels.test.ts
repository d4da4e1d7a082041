// A binary criterion given no labels of its own is stored with "yes"/"no" in its dataset's language,
// like the rest of the dataset's content: a Chinese dataset's experts pick 是/否, not Yes/No, whether the
// criterion came from the form, an import's label column or the example datasets.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';
import { loadExampleData } from '../../server/datasets/example.ts';
import type { Locale } from '../../server/i18n/index.ts';

let env: TestContext;
beforeEach(() => { env = openTestContext('goldset-binary-labels-'); });
afterEach(async () => { await env.close(); });

const dataset = (language: Locale) => env.ctx.datasets.create(null, { name: `d-${language}-${Math.random()}`, description: '', language, domain: '' }).id;
const binary = { kind: 'binary' as const, target: 'response' as const, scale_min: null, scale_max: null, guidelines: '' };
const labels = (datasetId: number, name: string) => env.ctx.criteria.queries.byName(datasetId, name)!.options.map((o) => `${o.value}=${o.label}`);

describe('binary criteria without labels of their own', () => {
  it('get yes/no in the dataset language from the form; labels given are kept', () => {
    const zh = dataset('zh');
    const en = dataset('en');
    env.ctx.criteria.create(null, zh, { ...binary, name: 'correct', options: [] });
    env.ctx.criteria.create(null, en, { ...binary, name: 'correct', options: [] });
    env.ctx.criteria.create(null, zh, { ...binary, name: 'grounded', options: [{ value: 'a', label: '有依据' }, { value: 'b', label: '无依据' }] });
    expect(labels(zh, 'correct')).toEqual(['1=是', '0=否']);
    expect(labels(en, 'correct')).toEqual(['1=Yes', '0=No']);
    expect(labels(zh, 'grounded')).toEqual(['1=有依据', '0=无依据']);
  });

  it('take exactly two labels or none, from the form and an edit alike; an edit keeping the values 1 and 0 matches them in either order', () => {
    const zh = dataset('zh');
    const three = [{ value: '是', label: '是' }, { value: '否', label: '否' }, { value: '不确定', label: '不确定' }];
    expect(() => env.ctx.criteria.create(null, zh, { ...binary, name: 'three', options: three })).toThrow(expect.objectContaining({ key: 'err.binary_options' }));
    expect(() => env.ctx.criteria.create(null, zh, { ...binary, name: 'one', options: three.slice(0, 1) })).toThrow(expect.objectContaining({ key: 'err.binary_options' }));
    const c = env.ctx.criteria.create(null, zh, { ...binary, name: 'correct', options: [] });
    const admin = env.ctx.users.queries.insert({ email: 'admin@example.com', name: '', role: 'admin', password_hash: null });
    expect(() => env.ctx.criteria.update(admin, c.id, c.version, { guidelines: '', options: three, archived: false }))
      .toThrow(expect.objectContaining({ key: 'err.binary_options' }));
    expect(labels(zh, 'correct')).toEqual(['1=是', '0=否']); // nothing changed
    const renamed = env.ctx.criteria.update(admin, c.id, c.version, { guidelines: '', archived: false,
      options: [{ value: '0', label: '无依据' }, { value: '1', label: '有依据' }] });
    expect(labels(zh, 'correct')).toEqual(['1=有依据', '0=无依据']);
    env.ctx.criteria.update(admin, c.id, renamed.version, { guidelines: '', archived: false,
      options: [{ value: '对', label: '对' }, { value: '错', label: '错' }] });
    expect(labels(zh, 'correct')).toEqual(['1=对', '0=错']);
  });

  it('get them from an import: a list column (per-context) and a true/false column (inferred binary)', async () => {
    const zh = dataset('zh');
    const expert = env.ctx.users.queries.insert({ email: 'li@example.com', name: 'Li', role: 'expert', password_hash: null });
    const file = path.join(env.dir, 'labels.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ user_input: '年假怎么请？', response: '在 OA 提交。', retrieved_contexts: ['年假在 OA 申请', '食堂八点开门'],
      reference: '在 OA 系统提交申请。', 'human.relevant': [1, 0], 'human.correct': 'true' })}\n`);
    const result = await env.ctx.imports.importFile(null, zh, file, { format: 'jsonl', annotatorId: expert });
    expect(result.ok).toBe(true);
    expect(env.ctx.criteria.queries.byName(zh, 'relevant')!.target).toBe('context');
    expect(labels(zh, 'relevant')).toEqual(['1=是', '0=否']);
    expect(labels(zh, 'correct')).toEqual(['1=是', '0=否']);
  });

  it('in the example datasets: the Chinese one answers 是/否, the English one Yes/No', async () => {
    const [zh, en] = await loadExampleData(env.ctx, null);
    expect(labels(zh!, 'relevant')).toEqual(['1=是', '0=否']);
    expect(labels(en!, 'relevant')).toEqual(['1=Yes', '0=No']);
  });
});
