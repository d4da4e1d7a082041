// A small dataset for labelling-sheet tests and fixtures, made through the services so that its ids
// are the same every time (the fixture sheets carry them in their identity columns).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../../server/app-context.ts';

export const SHEET_ADMIN = { email: 'ada@example.com', name: 'Ada Admin', password: 'correct horse battery' };
export const SHEET_EXPERT = { email: 'li.wei@example.com', name: 'Li Wei', password: 'another long password' };
export const SHEET_DATASET = '客服问答 / Support answers';

export const SHEET_ROWS = [
  { user_input: '张伟是哪个部门的？', retrieved_contexts: ['牛顿发现了万有引力', '张伟 教研部工程师，他最近在负责课程研发'], response: '张伟是教研部的。', reference: '张伟是教研部的成员。', system: 'rag-v1' },
  { user_input: 'How many days of annual leave do new employees get?', retrieved_contexts: ['New employees receive 15 working days of annual leave.', 'The cafeteria opens at 8am.'],
    response: '=15 days (prorated)', reference: '15 working days in the first year.', system: 'rag-v1' },
  { user_input: '试用期是多久？', retrieved_contexts: ['试用期为三个月，表现优秀者可申请提前转正。'], response: '试用期为六个月。', reference: '试用期为三个月。', system: 'rag-v2' },
];

/** Users (admin id 1, expert id 2), the dataset (id 1) with three responses (ids 1–3) and four criteria. */
export async function seedSheetDataset(ctx: AppContext): Promise<{ datasetId: number; adminId: number; expertId: number }> {
  const admin = await ctx.users.createUser(null, { ...SHEET_ADMIN, role: 'admin' });
  const expert = await ctx.users.createUser(null, { ...SHEET_EXPERT, role: 'expert' });
  const dataset = ctx.datasets.create(admin.id, { name: SHEET_DATASET, description: '', language: 'zh', domain: 'hr' });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-seed-')), 'rows.jsonl');
  fs.writeFileSync(file, SHEET_ROWS.map((r) => JSON.stringify(r)).join('\n'));
  const result = await ctx.imports.importFile(admin.id, dataset.id, file, { format: 'jsonl' });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  if (!result.ok) throw new Error('seed import failed');
  const none = { options: [], scale_min: null, scale_max: null, guidelines: '' };
  ctx.criteria.create(admin.id, dataset.id, { name: 'correct', kind: 'binary', target: 'response', ...none });
  ctx.criteria.create(admin.id, dataset.id, { name: 'quality', kind: 'ordinal', target: 'response', ...none, scale_min: 1, scale_max: 5 });
  ctx.criteria.create(admin.id, dataset.id, { name: 'tone', kind: 'categorical', target: 'response', ...none,
    options: [{ value: 'polite', label: '礼貌 polite' }, { value: 'curt', label: '生硬 curt' }] });
  ctx.criteria.create(admin.id, dataset.id, { name: 'relevant', kind: 'binary', target: 'context', ...none });
  return { datasetId: dataset.id, adminId: admin.id, expertId: expert.id };
}
