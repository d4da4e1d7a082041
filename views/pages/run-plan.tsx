// The run form's table of what each metric needs, how many LLM requests a run makes and what it would cost.
import type { PageContext } from '../layout.tsx';
import type { MetricPlan, Need } from '../../server/judge/run-plan.ts';

export interface RunPlanView { metrics: MetricPlan[]; priced: boolean; embeddingModel: string }

const NEED_KEY: Record<Need, 'fh.need_ground_truth' | 'fh.need_retrieved_contexts' | 'fh.need_reference_contexts' | 'fh.need_embeddings'> = {
  ground_truth: 'fh.need_ground_truth', retrieved_contexts: 'fh.need_retrieved_contexts', reference_contexts: 'fh.need_reference_contexts', embeddings: 'fh.need_embeddings',
};

export function RunPlanTable({ ctx, plan }: { ctx: PageContext; plan: RunPlanView }) {
  const { t } = ctx;
  return (
    <details class="more run-plan" open>
      <summary>{t('fh.plan_title')}</summary>
      <div class="table-scroll" tabIndex={0} role="region" aria-label={t('fh.plan_title')}>
        <table class="table compact">
          <thead><tr>
            <th scope="col">{t('runs.metric')}</th><th scope="col">{t('fh.plan_needs')}</th><th scope="col" class="num">{t('fh.plan_items')}</th>
            <th scope="col" class="num">{t('fh.plan_calls')}</th><th scope="col" class="num">{t('fh.plan_cost')}</th>
          </tr></thead>
          <tbody>
            {plan.metrics.map((m) => (
              <tr>
                <th scope="row" class="mono">{m.key}</th>
                <td>{m.needs.length === 0 ? <span class="sub">—</span> : m.needs.map((n) => (
                  <span class={n === 'embeddings' && !plan.embeddingModel ? 'tag tag-missing' : 'tag'}>{t(NEED_KEY[n])}</span>))}
                  {m.needs.includes('embeddings') && !plan.embeddingModel && <span class="sub"> {t('fh.no_embedding_model')}</span>}</td>
                <td class="num">{m.items}</td>
                <td class="num nowrap">{m.kind === 'non_llm' ? t('runs.no_llm') : t('fh.plan_calls_text', { chat: m.chatCalls, embeddings: m.embeddingCalls })}</td>
                <td class="num nowrap">{m.kind === 'non_llm' ? '—' : !plan.priced ? <span class="sub">{t('fh.no_price')}</span>
                  : m.cost === null ? '—' : <span title={m.basis === 'texts' ? t('fh.cost_from_texts') : m.basis ? t('fh.cost_from_run', { run: m.basis.run }) : ''}>{`≈ ${m.cost.toFixed(m.cost < 1 ? 4 : 2)}`}</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="hint">{t('fh.plan_hint')}</p>
    </details>
  );
}
