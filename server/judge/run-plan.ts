// What a run of each metric would take on a dataset, said before starting it: what the metric needs
// (ground truth, retrieved or reference contexts, embeddings), how many items it can score, how many
// LLM requests that makes, and what they would cost at the configured prices. Calls answered from
// the cache cost nothing, so the figures are an upper bound for a re-run.
import { unchangedByLabels } from '../db/derived-cache.ts';
import type { AppContext } from '../app-context.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import type { MetricDefinition } from './types.ts';

export type Need = MetricDefinition['needs'][number] | 'embeddings';

export interface MetricPlan {
  key: string;
  kind: 'llm' | 'non_llm';
  needs: Need[];
  /** Items that have what the metric needs (the others are skipped, never scored 0). */
  items: number;
  chatCalls: number;
  embeddingCalls: number;
  /** Estimated cost in the configured currency; null when no price is set or nothing is called. */
  cost: number | null;
  /** Where the tokens per call come from: an earlier run of the metric, or the length of the texts. */
  basis: { run: string } | 'texts' | null;
}

interface DatasetStats { n: number; gt: number; ctx: number; gtCtx: number; ref: number; ctxRef: number; contexts: number; gtContexts: number; chars: number }

// Chat requests per item where a metric's steps do not say it (one step answered several times, or per context).
const CHAT_PER_ITEM: Record<string, number | 'per_context'> = {
  answer_correctness: 3, faithfulness: 2, context_precision: 'per_context', context_precision_without_reference: 'per_context',
  context_recall: 1, answer_relevancy: 3,
};
/** Instructions and examples around the item's texts, in characters, for the estimate from texts. */
const PROMPT_CHARS = 1800;
const COMPLETION_TOKENS = 150;

export function planRuns(app: AppContext, dataset: DatasetRow, metrics: MetricDefinition[]): MetricPlan[] {
  // One scan of the dataset's responses (their texts' lengths): kept until the data changes.
  const stats = app.derived.get(dataset.id, 'run-plan-stats', () => app.db.prepare<[number], DatasetStats>(`SELECT count(*) AS n,
      coalesce(sum(s.ground_truth <> ''), 0) AS gt, coalesce(sum(json_array_length(r.retrieved_contexts) > 0), 0) AS ctx,
      coalesce(sum(s.ground_truth <> '' AND json_array_length(r.retrieved_contexts) > 0), 0) AS gtCtx,
      coalesce(sum(json_array_length(s.reference_contexts) > 0), 0) AS ref,
      coalesce(sum(json_array_length(r.retrieved_contexts) > 0 AND json_array_length(s.reference_contexts) > 0), 0) AS ctxRef,
      coalesce(sum(json_array_length(r.retrieved_contexts)), 0) AS contexts,
      coalesce(sum(CASE WHEN s.ground_truth <> '' THEN json_array_length(r.retrieved_contexts) ELSE 0 END), 0) AS gtContexts,
      coalesce(sum(length(s.question) + length(s.ground_truth) + length(r.answer) + length(r.retrieved_contexts)), 0) AS chars
    FROM response r JOIN sample s ON s.id = r.sample_id WHERE r.dataset_id = ?`).get(dataset.id)!, unchangedByLabels);
  const settings = app.judgeSettings.effective();
  const priced = settings !== null && (settings.price_prompt > 0 || settings.price_completion > 0);
  const runs = app.runner.queries.forDataset(dataset.id, true).filter((r) => r.source === 'goldset' && r.status === 'done' && r.llm_calls > 0);
  const charsPerToken = dataset.language === 'zh' ? 1.5 : 4;

  return metrics.map((m) => {
    const wants = [...new Set([...m.needs, ...(m.scoresOnlyWith ?? [])])];
    const needs: Need[] = [...wants, ...(m.uses_embeddings ? ['embeddings' as const] : [])];
    const has = (n: string) => wants.includes(n as MetricDefinition['needs'][number]);
    const items = has('reference_contexts') ? (has('retrieved_contexts') ? stats.ctxRef : stats.ref)
      : has('ground_truth') && has('retrieved_contexts') ? stats.gtCtx : has('ground_truth') ? stats.gt : has('retrieved_contexts') ? stats.ctx : stats.n;
    if (m.kind === 'non_llm') return { key: m.key, kind: m.kind, needs, items, chatCalls: 0, embeddingCalls: 0, cost: null, basis: null };
    const per = CHAT_PER_ITEM[m.key] ?? Math.max(1, m.steps.length);
    const chatCalls = per === 'per_context' ? (has('ground_truth') ? stats.gtContexts : stats.contexts) : per * items;
    const embeddingCalls = m.uses_embeddings ? items : 0;
    const earlier = runs.find((r) => r.metric_key === m.key);
    const perCall = earlier
      ? { prompt: earlier.prompt_tokens / earlier.llm_calls, completion: earlier.completion_tokens / earlier.llm_calls }
      : { prompt: (PROMPT_CHARS + (stats.n ? stats.chars / stats.n : 0)) / charsPerToken, completion: COMPLETION_TOKENS };
    const cost = priced && chatCalls > 0
      ? (chatCalls * (perCall.prompt * settings!.price_prompt + perCall.completion * settings!.price_completion)) / 1e6 : null;
    return { key: m.key, kind: m.kind, needs, items, chatCalls, embeddingCalls, cost, basis: earlier ? { run: earlier.name } : 'texts' };
  });
}
