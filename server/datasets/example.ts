// The bilingual HR-onboarding example, in the spirit of the course's "张伟是哪个部门的" lesson: enough
// to walk the whole loop in minutes with no API key. Per language, 20 questions with ground truths,
// the answers of two systems (rag-v1 and rag-v2, with their retrieved contexts), two criteria (the
// answer is correct; each retrieved context is relevant), labels by two example experts (who disagree
// on a few items; the second has not finished, so a newcomer's queue has items), samples in every
// review state, and a judge run imported from a Ragas 0.4.3 results file (the metric columns
// answer_correctness, faithfulness and context_precision) through the import users use. The run's
// scores are what a real Ragas run could have produced on these items, including a few judge errors
// for the audit queue to find.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../app-context.ts';
import type { CurrentUser } from '../http/context.ts';
import { labelsFromForm } from './example/labels.ts';
import { ragasResults } from './example/scores.ts';
import type { ExampleItem } from './example/types.ts';
import { ZH_ITEMS } from './example/zh.ts';
import { EN_ITEMS } from './example/en.ts';

export const EXAMPLE_RUN = 'ragas-0.4.3';

interface ExampleSet {
  name: string; language: 'zh' | 'en'; domain: string; description: string; items: ExampleItem[];
  /** What rag-v2 says before a correct answer: its answers are worded differently from the ground truth. */
  v2Prefix: string;
  criteria: { correct: { options: string; guidelines: string }; relevant: { guidelines: string } };
  experts: { a: { email: string; name: string }; b: { email: string; name: string } };
  rationale: { wrong: string; disagree: string };
}

const SETS: ExampleSet[] = [
  {
    name: '新人入职答疑（示例）', language: 'zh', domain: '人力资源', items: ZH_ITEMS, v2Prefix: '根据公司制度，',
    description: '示例：新员工常见问题、HR 专家给出的标准答案、两个 RAG 系统的回答、两位示例专家的标注，以及一次导入的 Ragas 评分。',
    criteria: {
      correct: { options: '正确\n错误', guidelines: '回答与标准答案的事实一致即为正确；遗漏关键条件（如审批层级、天数）或说错事实即为错误。' },
      relevant: { guidelines: '该段上下文包含回答问题所需的信息即为相关；只是同一主题但不能回答问题的段落不算。' },
    },
    experts: { a: { email: 'li.wei@example.com', name: '李伟（示例专家）' }, b: { email: 'wang.fang@example.com', name: '王芳（示例专家）' } },
    rationale: { wrong: '回答与上下文中的制度不一致。', disagree: '我认为回答基本正确，只是表述不同。' },
  },
  {
    name: 'HR onboarding (example)', language: 'en', domain: 'Human resources', items: EN_ITEMS, v2Prefix: 'According to the company policy: ',
    description: 'Example: questions new employees ask, ground truths by HR experts, the answers of two RAG systems, labels by two example experts, and an imported Ragas run.',
    criteria: {
      correct: { options: 'Correct\nWrong', guidelines: 'Correct when the facts agree with the ground truth; wrong when a key condition (approval level, number of days) is missing or a fact is wrong.' },
      relevant: { guidelines: 'Relevant when the context holds what the answer needs; a passage on the same topic that does not answer the question is not relevant.' },
    },
    experts: { a: { email: 'maria.lopez@example.com', name: 'Maria Lopez (example expert)' }, b: { email: 'tom.baker@example.com', name: 'Tom Baker (example expert)' } },
    rationale: { wrong: 'The answer contradicts the policy in the context.', disagree: 'I read the answer as essentially right, only worded differently.' },
  },
];

/** Questions whose rag-v1 / rag-v2 answer is the wrong one. */
const V1_WRONG = new Set([3, 11, 16]);
const V2_WRONG = new Set([1, 4, 7, 10, 13, 18]);
/** Responses (in file order) on which the second expert's "correct" differs from the first's; and one context. */
const B_DISAGREES = new Set([5, 22, 30]);
const B_CONTEXT_DISAGREES = { response: 8, context: 1 };
/** The second expert labelled the first 32 responses of 40: the rest wait in the queue. */
const B_LABELLED = 32;

/** One response of the example: what the system answered and retrieved, and the truth the experts label. */
export interface ExampleResponse { item: ExampleItem; system: string; answer: string; contexts: string[]; correct: boolean }

export function exampleResponses(set: Pick<ExampleSet, 'items' | 'v2Prefix'>): ExampleResponse[] {
  return set.items.flatMap((item, i) => {
    const v2Contexts = i % 5 === 2 ? [item.other] : i % 2 ? [item.other, item.ctx] : [item.ctx, item.other];
    return [
      { item, system: 'rag-v1', answer: V1_WRONG.has(i) ? item.wrong : item.gt, contexts: [item.ctx, item.other], correct: !V1_WRONG.has(i) },
      { item, system: 'rag-v2', answer: V2_WRONG.has(i) ? item.wrong : set.v2Prefix + item.gt, contexts: v2Contexts, correct: !V2_WRONG.has(i) },
    ];
  });
}

/** A user for an example expert: no password (an admin can invite them), created once. */
function exampleExpert(app: AppContext, who: { email: string; name: string }): CurrentUser {
  let row = app.users.queries.byEmail(who.email);
  if (!row) {
    const id = app.users.queries.insert({ email: who.email, name: who.name, role: 'expert', password_hash: null });
    app.audit.record({ actorId: null, entityType: 'user', entityId: id, action: 'create_from_import', after: { email: who.email, role: 'expert' } });
    row = app.users.queries.byId(id)!;
  }
  return { id: row.id, email: row.email, name: row.name, role: 'expert', locale: null };
}

async function loadSet(app: AppContext, actorId: number | null, set: ExampleSet, dir: string): Promise<number> {
  const a = exampleExpert(app, set.experts.a);
  const b = exampleExpert(app, set.experts.b);
  const dataset = app.datasets.create(actorId, { name: set.name, description: set.description, language: set.language, domain: set.domain });
  const responses = exampleResponses(set);
  // 1. The answers, through the import users use (the second expert wrote the questions).
  const answers = path.join(dir, `${set.language}-answers.jsonl`);
  fs.writeFileSync(answers, responses.map((r) => JSON.stringify({ user_input: r.item.q, reference: r.item.gt, reference_contexts: [r.item.ctx],
    response: r.answer, retrieved_contexts: r.contexts, system: r.system, tags: r.item.tags, source: 'scenario' })).join('\n') + '\n');
  const imported = await app.imports.importFile(b.id, dataset.id, answers, { format: 'jsonl' });
  if (!imported.ok) throw new Error(`example answers did not import: ${JSON.stringify(imported.errors.slice(0, 3))}`);
  const ids = app.db.prepare<[number], number>('SELECT id FROM response WHERE dataset_id = ? ORDER BY id').pluck().all(dataset.id);
  if (ids.length !== responses.length) throw new Error(`example: ${ids.length} responses stored of ${responses.length}`);

  app.db.transaction(() => {
    // 2. Criteria, two experts per item, and the samples in every review state.
    const correct = app.criteria.create(actorId, dataset.id, { name: 'correct', kind: 'binary', target: 'response',
      options: set.criteria.correct.options.split('\n').map((label, k) => ({ value: k === 0 ? '1' : '0', label })), scale_min: null, scale_max: null,
      guidelines: set.criteria.correct.guidelines });
    const relevant = app.criteria.create(actorId, dataset.id, { name: 'relevant', kind: 'binary', target: 'context', options: [],
      scale_min: null, scale_max: null, guidelines: set.criteria.relevant.guidelines });
    app.labels.setAssignment(actorId ?? a.id, dataset.id, 2, []);
    const cs = [correct, relevant];
    // 3. Labels, submitted as the workspace submits them.
    responses.forEach((r, k) => {
      const target = { id: ids[k]!, dataset_id: dataset.id, nContexts: r.contexts.length };
      const truth = { correct: r.correct, relevant: r.contexts.map((c) => c === r.item.ctx) };
      app.labels.submit(a, target, cs, labelsFromForm(correct.id, relevant.id, truth, r.correct ? '' : set.rationale.wrong), null);
      if (k >= B_LABELLED) return;
      const byB = { correct: B_DISAGREES.has(k) ? !r.correct : r.correct,
        relevant: truth.relevant.map((v, c) => (k === B_CONTEXT_DISAGREES.response && c === B_CONTEXT_DISAGREES.context ? !v : v)) };
      app.labels.submit(b, target, cs, labelsFromForm(correct.id, relevant.id, byB, B_DISAGREES.has(k) ? set.rationale.disagree : ''), null);
    });
    const samples = app.db.prepare<[number], { id: number; version: number }>('SELECT id, version FROM sample WHERE dataset_id = ? ORDER BY id').all(dataset.id);
    samples.forEach((s, i) => {
      if (i % 4 === 3) return; // drafts
      const submitted = app.samples.transition(b.id, s.id, s.version, 'submit');
      if (i % 4 === 0 || i % 4 === 2) app.samples.transition(a.id, s.id, submitted.version, 'approve');
    });
  })();

  // 4. The judge run: a Ragas 0.4.3 results file (EvaluationResult.to_pandas().to_csv(), with the
  // system column kept) imported as the run the calibration and the audit queue read.
  const results = path.join(dir, `${set.language}-ragas-results.csv`);
  fs.writeFileSync(results, ragasResults(responses));
  const scored = await app.imports.importFile(actorId, dataset.id, results, { format: 'csv', runName: EXAMPLE_RUN });
  if (!scored.ok) throw new Error(`example scores did not import: ${JSON.stringify(scored.errors.slice(0, 3))}`);
  return dataset.id;
}

/** Creates the example datasets that do not exist yet; returns the ids of those it created. */
export async function loadExampleData(app: AppContext, actorId: number | null): Promise<number[]> {
  const created: number[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-example-'));
  try {
    for (const set of SETS) {
      if (app.datasets.byName(set.name)) continue;
      created.push(await loadSet(app, actorId, set, dir));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return created;
}
