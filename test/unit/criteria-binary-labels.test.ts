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
