// A dataset for per-context calibration tests: answers with four retrieved contexts each, an expert's
// per-context "relevant" labels, and a judge (the fake OpenAI server) whose verify step is right about
// plain policy text and unrelated text, wrong on outdated policies (relevant to it, not to the experts)
// unless its prompt warns about them, and wrong on footnotes that do not repeat the number (not relevant to
// it, relevant to the experts).
// Not a test file itself.
import fs from 'node:fs';
import path from 'node:path';
import type { TestApp } from '../helpers.ts';
import type { FakeOpenAI } from '../fake-openai/server.ts';
import { routeSteps, systemText } from '../judge/helpers.ts';

export const CONTEXT_KINDS = ['policy', 'unrelated', 'outdated', 'footnote'] as const;
export type ContextKind = (typeof CONTEXT_KINDS)[number];
/** The experts' verdict per kind. */
export const GOLD: Record<ContextKind, 0 | 1> = { policy: 1, unrelated: 0, outdated: 0, footnote: 1 };
/** Words the fake judge reads; a prompt that mentions OUTDATED_HINT gets outdated contexts right. */
export const OUTDATED_HINT = 'superseded';

const TEXT: Record<ContextKind, (i: number) => string> = {
  policy: (i) => `Policy ${i}: new employees get 15 days of annual leave.`,
  unrelated: (i) => `Unrelated ${i}: the canteen opens at 8 am.`,
  outdated: (i) => `Outdated policy ${i} (2019): new employees got 10 days of annual leave.`,
  // Every third footnote repeats the number, and the judge then sees its use.
  footnote: (i) => (i % 3 === 0 ? `Footnote ${i}: the 15 days are counted in working days.` : `Footnote ${i}: leave days are counted in working days.`),
};

/** The order of the four kinds for answer i: the relevant policy sits at rank 1, 2, 3 or 4 in turn. */
export function kindsOf(i: number): ContextKind[] {
  const k = [...CONTEXT_KINDS];
  const at = i % 4;
  [k[0], k[at]] = [k[at]!, k[0]!];
  return k;
}

export function contextRows(n: number) {
  return Array.from({ length: n }, (_, i) => {
    const kinds = kindsOf(i);
    return {
      user_input: `How many days of annual leave do new employees get? (case ${i + 1})`,
      response: `Fifteen days (case ${i + 1}).`, reference: '15 days of annual leave.',
      retrieved_contexts: kinds.map((k) => TEXT[k](i + 1)), system: i % 2 ? 'rag-v2' : 'rag-v1',
      'human.relevant': kinds.map((k) => GOLD[k]),
    };
  });
}

/** The fake judge's verdict on one context, given the system prompt it was sent. */
export function fakeVerdict(context: string, system: string): { reason: string; verdict: 0 | 1 } {
  if (context.startsWith('Unrelated')) return { reason: 'It is about the canteen, not leave.', verdict: 0 };
  if (context.startsWith('Outdated')) {
    return system.includes(OUTDATED_HINT) ? { reason: 'An outdated rule does not support the answer.', verdict: 0 } : { reason: 'It states a number of leave days.', verdict: 1 };
  }
  if (context.includes('15 days')) return { reason: 'It states the 15 days of the answer.', verdict: 1 };
  return { reason: 'It does not give the number of days.', verdict: 0 };
}

export function scriptJudge(fake: FakeOpenAI): void {
  routeSteps(fake, { context_verification: (input, body) => fakeVerdict(String(input['context']), systemText(body)) });
}

/** Imports `n` answers with the expert's labels into a new dataset; returns its id and the response ids. */
export async function seedContexts(app: TestApp, opts: { name: string; n: number; expertId: number; language?: 'en' | 'zh'; rationale?: string }) {
  const { ctx } = app;
  const datasetId = ctx.datasets.create(null, { name: opts.name, description: '', language: opts.language ?? 'en', domain: 'HR' }).id;
  const file = path.join(app.dir, `${opts.name.replace(/\W+/g, '-')}.jsonl`);
  fs.writeFileSync(file, contextRows(opts.n).map((r) => JSON.stringify(r)).join('\n'));
  const result = await ctx.imports.importFile(null, datasetId, file, { format: 'jsonl', annotatorId: opts.expertId });
  if (!result.ok) throw new Error(`seed failed: ${JSON.stringify(result).slice(0, 300)}`);
  if (opts.rationale) ctx.db.prepare('UPDATE annotation SET rationale = ? WHERE dataset_id = ?').run(opts.rationale, datasetId);
  const ids = ctx.db.prepare('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(datasetId) as number[];
  return { datasetId, ids, criterion: ctx.criteria.queries.byName(datasetId, 'relevant')! };
}

/** Runs context_precision over the dataset (or the given responses) to the end; returns the run. */
export async function runContextPrecision(app: TestApp, datasetId: number, name: string, responseIds?: number[]) {
  const run = app.ctx.runner.create(null, datasetId, { name, metricKey: 'context_precision', ...(responseIds ? { selection: { response_ids: responseIds } } : {}) });
  await app.ctx.runner.start(run.id);
  return app.ctx.runner.queries.byId(run.id)!;
}
