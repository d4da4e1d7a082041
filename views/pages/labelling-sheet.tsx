// The page that offers an offline labelling sheet, and the link to it on the labelling pages.
import { Layout, type PageContext } from '../layout.tsx';
import { Field } from '../components.tsx';

export interface LabellingSheetModel { ctx: PageContext; dataset: { id: number; name: string }; experts: { id: number; email: string }[]; maxRows: number }

export function LabellingSheetPage({ ctx, dataset, experts, maxRows }: LabellingSheetModel) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={`${t('sheet.title')} · ${dataset.name}`}>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / <a href={`/datasets/${dataset.id}/label`}>{t('label.title')}</a> / {t('sheet.title')}</nav>
      <h1>{t('sheet.title')}</h1>
      <p class="lead">{t('sheet.lead')}</p>
      <section class="card">
        <form method="get" action={`/datasets/${dataset.id}/labelling-sheet/download`}>
          <div class="row">
            {experts.length > 0 && (
              <Field name="annotator" label={t('sheet.annotator')}>
                <select id="f-annotator" name="annotator">
                  {experts.map((u) => <option value={u.id} selected={u.id === ctx.user?.id}>{u.email}</option>)}
                </select>
              </Field>
            )}
            <Field name="limit" label={t('sheet.limit')}>
              <input id="f-limit" name="limit" type="number" min={1} max={maxRows} value={500} inputMode="numeric" />
            </Field>
          </div>
          <button type="submit" class="btn primary">{t('sheet.download')}</button>
          {' '}<a class="btn" href={`/datasets/${dataset.id}/import`}>{t('action.import')}</a>
        </form>
      </section>
    </Layout>
  );
}

/** A line on the labelling pages: the same queue, offline. */
export function LabellingSheetLink({ ctx, datasetId }: { ctx: PageContext; datasetId: number }) {
  return <p class="sub labelling-sheet-link"><a href={`/datasets/${datasetId}/labelling-sheet`}>{ctx.t('sheet.link')}</a></p>;
}
