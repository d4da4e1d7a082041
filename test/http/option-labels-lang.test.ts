// A criterion's option labels are the dataset's own text (正确 / 错误, Correct / Wrong): wherever a page
// shows them, they carry the dataset's language (WCAG's language of parts), as the item's texts do, so
// a screen reader speaks 正确 in Chinese on an English page and "Correct" in English on a Chinese one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, startExampleApp, type TestApp } from '../helpers.ts';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { Criterion } from '../../server/criteria/queries.ts';

let app: TestApp;
let admin: Client;
beforeAll(async () => { ({ app, admin } = await startExampleApp()); });
afterAll(async () => { await app.close(); });

/** The example dataset in `language`, its binary criterion "correct" with its two labels, a labelled response and a run. */
function example(language: 'zh' | 'en'): { dataset: DatasetRow; criterion: Criterion; labels: string[]; responseId: number; runId: number } {
  const dataset = app.ctx.datasets.list(false).find((d) => d.language === language)!;
  const criterion = app.ctx.criteria.forDataset(dataset.id).find((c) => c.name === 'correct')!;
  const db = app.ctx.db;
  const responseId = db.prepare("SELECT response_id FROM annotation WHERE dataset_id = ? AND state = 'submitted' ORDER BY response_id LIMIT 1").pluck().get(dataset.id) as number;
  const runId = db.prepare('SELECT id FROM run WHERE dataset_id = ? ORDER BY id LIMIT 1').pluck().get(dataset.id) as number;
  return { dataset, criterion, labels: criterion.options!.map((o) => o.label), responseId, runId };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('option labels on a page in the other language', () => {
  it('carry the Chinese dataset\'s language on English pages: workspace, response, disagreements, review queue and item, history filter', async () => {
    const { dataset, criterion, labels, responseId, runId } = example('zh');
    expect(labels).toEqual(['正确', '错误']);
    const marked = (label: string) => new RegExp(`<span lang="zh-CN">${escape(label)}</span>`);
    const markedOption = (label: string) => new RegExp(`<option value="[01]" lang="zh-CN"[^>]*>${escape(label)}</option>`);

    const workspace = (await admin.get(`/responses/${responseId}/label`)).text;
    expect(workspace).toContain('<html lang="en">');
    for (const label of labels) expect(workspace, label).toMatch(new RegExp(`<kbd>\\d</kbd> <span lang="zh-CN">${escape(label)}</span>`));

    const response = (await admin.get(`/responses/${responseId}`)).text;
    expect(response).toMatch(marked('正确'));
    for (const label of labels) expect(response, label).toMatch(markedOption(label));

    const disagreements = (await admin.get(`/datasets/${dataset.id}/disagreements`)).text;
    expect(disagreements).toMatch(/<span class="tag"><span lang="zh-CN">[^<]+<\/span><\/span>/);

    const queue = await admin.get(`/runs/${runId}/review?criterion=${criterion.id}`);
    expect(queue.status).toBe(200);
    expect(queue.text).toMatch(/→ <span lang="zh-CN">(正确|错误)<\/span>/);
    const itemUrl = /href="(\/runs\/\d+\/review\/\d+\?[^"]*)"/.exec(queue.text)![1]!.replace(/&amp;/g, '&');
    const item = (await admin.get(itemUrl)).text;
    for (const label of labels) expect(item, label).toMatch(markedOption(label));

    const history = (await admin.get(`/datasets/${dataset.id}/label/history`)).text;
    expect(history).toMatch(new RegExp(`<option value="${criterion.id}:1" lang="zh-CN"[^>]*>correct: 正确</option>`));
  });

  it('carry the English dataset\'s language on Chinese pages', async () => {
    const { labels, responseId } = example('en');
    const zh = new Client(app.url, 'zh-CN');
    zh.cookie = admin.cookie;
    const workspace = (await zh.get(`/responses/${responseId}/label`)).text;
    expect(workspace).toContain('<html lang="zh-CN">');
    for (const label of labels) expect(workspace, label).toMatch(new RegExp(`<span lang="en">${escape(label)}</span>`));
  });
});

it('names each language of the header\'s picker in itself, marked with that language, on pages in either language', async () => {
  for (const locale of ['en', 'zh']) {
    await admin.post('/locale', { locale, back: '/datasets' });
    const page = (await admin.get('/datasets')).text;
    expect(page).toMatch(/<option value="en" lang="en"( selected)?>English<\/option>/);
    expect(page).toMatch(/<option value="zh" lang="zh-CN"( selected)?>简体中文<\/option>/);
  }
});

describe('people\'s own words (rationales, notes, reasons, descriptions) carry the language they are written in', () => {
  it('marks a Chinese rationale as Chinese on an English page and an English one as English on a Chinese page', async () => {
    await admin.post('/locale', { locale: 'en', back: '/datasets' });
    const zhSet = example('zh');
    const withRationale = (language: 'zh' | 'en') => app.ctx.db.prepare(`SELECT a.response_id FROM annotation a JOIN dataset d ON d.id = a.dataset_id
      WHERE d.language = ? AND a.rationale <> '' ORDER BY a.response_id LIMIT 1`).pluck().get(language) as number;
    const zhPage = (await admin.get(`/responses/${withRationale('zh')}`)).text;
    expect(zhSet.dataset.language).toBe('zh');
    expect(zhPage).toMatch(/<p lang="zh-CN">(回答与上下文中的制度不一致。|我认为回答基本正确，只是表述不同。)<\/p>/);
    await admin.post('/locale', { locale: 'zh', back: '/datasets' });
    const enPage = (await admin.get(`/responses/${withRationale('en')}`)).text;
    expect(enPage).toMatch(/<p lang="en">(The answer contradicts the policy in the context\.|I read the answer as essentially right, only worded differently\.)<\/p>/);
    // The dataset list: each description in its own language, whatever the page's.
    const list = (await admin.get('/datasets')).text;
    for (const d of app.ctx.datasets.list(false).filter((x) => x.description)) {
      expect(list).toContain(`<div class="sub" lang="${/[\u4e00-\u9fff]/.test(d.description) ? 'zh-CN' : 'en'}">`);
    }
  });
});
