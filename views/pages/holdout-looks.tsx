// How many times the held-out part has been looked at for a metric, shown next to a held-out check's figures.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf } from '../components.tsx';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { RunRow } from '../../server/judge/run-queries.ts';

export interface HoldoutLookView { metric: string; look: number; total: number }

export function HoldoutLookNote({ ctx, looks }: { ctx: PageContext; looks: HoldoutLookView }) {
  const { t } = ctx;
  return (
    <p class={looks.total > 1 ? 'alert' : 'hint'} role="status">
      {t('fh.look_note', { look: looks.look, total: looks.total, metric: looks.metric })}
      {looks.total > 1 && <> {t('fh.look_spent')}</>}
    </p>
  );
}

/** Asked before a second (or later) held-out final check: it spends the held-out part. */
export function HoldoutConfirmPage({ ctx, dataset, source, criterionId, looked, fields }: {
  ctx: PageContext; dataset: DatasetRow; source: RunRow; criterionId: number; looked: number; fields: Record<string, string>;
}) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={`${t('lab.final_check')} · ${dataset.name}`}>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / <a href={`/datasets/${dataset.id}/prompt-lab?metric=${encodeURIComponent(source.metric_key)}&criterion=${criterionId}`}>{t('lab.title')}</a> / {t('lab.final_check')}</nav>
      <section class="card" aria-labelledby="confirm-title">
        <h1 id="confirm-title">{t('fh.look_again_title')}</h1>
        <p class="alert" role="alert">{t('fh.look_again_warning', { n: looked, metric: source.metric_key })}</p>
        <form method="post" action={`/datasets/${dataset.id}/prompt-lab/final`} class="actions">
          <Csrf token={ctx.csrfToken} />
          {Object.entries(fields).map(([k, v]) => <input type="hidden" name={k} value={v} />)}
          <input type="hidden" name="confirm" value="1" />
          <button class="btn primary" type="submit">{t('fh.look_again_confirm', { n: looked + 1 })}</button>
          <a class="btn" href={`/datasets/${dataset.id}/prompt-lab?metric=${encodeURIComponent(source.metric_key)}&criterion=${criterionId}`}>{t('fh.look_again_cancel')}</a>
        </form>
      </section>
    </Layout>
  );
}
