// The list of datasets, the form that creates one, and a dataset's settings.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, FormError, proseLang } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { DatasetListRow, DatasetRow } from '../../server/datasets/queries.ts';
import { can } from '../../server/http/security.ts';
import { LIMITS } from '../../server/limits.ts';

export interface DatasetFormValues { name?: string; description?: string; language?: string; domain?: string; archived?: boolean; version?: number }

function DatasetFields({ ctx, values, errors }: { ctx: PageContext; values: DatasetFormValues; errors?: FieldErrors | undefined }) {
  const { t } = ctx;
  return (
    <>
      <Field name="name" label={t('field.dataset_name')} errors={errors}>
        <input id="f-name" name="name" required maxLength={LIMITS.datasetName} value={values.name ?? ''} />
      </Field>
      <div class="row">
        <Field name="language" label={t('field.language')} errors={errors} hint={t('hint.dataset_language')}>
          <select id="f-language" name="language">
            <option value="zh" selected={values.language === 'zh'}>{t('lang.zh')}</option>
            <option value="en" selected={values.language === 'en'}>{t('lang.en')}</option>
          </select>
        </Field>
        <Field name="domain" label={t('field.domain')} errors={errors}>
          <input id="f-domain" name="domain" maxLength={LIMITS.domain} value={values.domain ?? ''} placeholder={t('placeholder.domain')} />
        </Field>
      </div>
      <Field name="description" label={t('field.description')} errors={errors}>
        <textarea id="f-description" name="description" rows={3} maxLength={LIMITS.description}>{values.description ?? ''}</textarea>
      </Field>
    </>
  );
}

export function DatasetsPage({ ctx, datasets, values = {}, errors, showArchived }: {
  ctx: PageContext; datasets: DatasetListRow[]; values?: DatasetFormValues; errors?: FieldErrors; showArchived: boolean;
}) {
  const { t } = ctx;
  const canWrite = can(ctx.user?.role, 'expert');
  return (
    <Layout ctx={ctx} title={t('datasets.title')}>
      <div class="page-head">
        <h1>{t('datasets.title')}</h1>
        <a class="btn ghost small" href={showArchived ? '/datasets' : '/datasets?archived=1'}>
          {showArchived ? t('datasets.hide_archived') : t('datasets.show_archived')}
        </a>
      </div>
      {datasets.length === 0 ? (
        <section class="card empty">
          <h2>{t('datasets.empty_title')}</h2>
          <p>{t('datasets.empty_lead')}</p>
          {canWrite && (
            <form method="post" action="/datasets/example">
              <Csrf token={ctx.csrfToken} />
              <button class="btn primary" type="submit">{t('datasets.load_example')}</button>
            </form>
          )}
        </section>
      ) : (
        <table class="table">
          <caption class="sr-only">{t('datasets.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('field.dataset_name')}</th>
              <th scope="col">{t('field.language')}</th>
              <th scope="col">{t('field.domain')}</th>
              <th scope="col" class="num">{t('datasets.samples')}</th>
              <th scope="col">{t('datasets.review_progress')}</th>
              <th scope="col">{t('field.updated')}</th>
            </tr>
          </thead>
          <tbody>
            {datasets.map((d) => (
              <tr key={d.id} class={d.archived ? 'muted' : ''}>
                <td>
                  <a href={`/datasets/${d.id}`} class="strong">{d.name}</a>
                  {d.archived ? <span class="badge">{t('datasets.archived')}</span> : null}
                  {d.description && <div class="sub" lang={proseLang(d.description)}>{d.description}</div>}
                </td>
                <td><span class="badge lang">{t(`lang.${d.language}`)}</span></td>
                <td>{d.domain}</td>
                <td class="num">{d.n_samples}</td>
                <td>
                  {/* SVG, not inline styles: the CSP allows no style attributes. */}
                  <svg class="meter" viewBox="0 0 100 6" preserveAspectRatio="none" role="img" aria-label={t('datasets.progress_label', { approved: d.n_approved, review: d.n_in_review, total: d.n_samples })}>
                    <rect class="meter-approved" width={d.n_samples ? (100 * d.n_approved) / d.n_samples : 0} height="6" />
                    <rect class="meter-review" x={d.n_samples ? (100 * d.n_approved) / d.n_samples : 0} width={d.n_samples ? (100 * d.n_in_review) / d.n_samples : 0} height="6" />
                  </svg>
                  <span class="sub">{t('datasets.progress_label', { approved: d.n_approved, review: d.n_in_review, total: d.n_samples })}</span>
                </td>
                <td class="sub nowrap">{d.updated_at.slice(0, 10)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canWrite && (
        <section class="card" aria-labelledby="new-dataset">
          <h2 id="new-dataset">{t('datasets.new')}</h2>
          <form method="post" action="/datasets" novalidate>
            <Csrf token={ctx.csrfToken} />
            <FormError errors={errors} />
            <DatasetFields ctx={ctx} values={{ language: ctx.locale, ...values }} errors={errors} />
            <button type="submit" class="btn primary">{t('datasets.create')}</button>
          </form>
        </section>
      )}
    </Layout>
  );
}

export function DatasetSettingsPage({ ctx, dataset, values, errors }: { ctx: PageContext; dataset: DatasetRow; values: DatasetFormValues; errors?: FieldErrors }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t('datasets.settings')}>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a></nav>
      <section class="card">
        <h1>{t('datasets.settings')}</h1>
        <form method="post" action={`/datasets/${dataset.id}/settings`} novalidate>
          <Csrf token={ctx.csrfToken} />
          <input type="hidden" name="version" value={values.version ?? dataset.version} />
          <FormError errors={errors} />
          <DatasetFields ctx={ctx} values={values} errors={errors} />
          <div class="field checkbox">
            <input id="f-archived" type="checkbox" name="archived" value="1" checked={values.archived} />
            <label for="f-archived">{t('datasets.archive_label')}</label>
          </div>
          <button type="submit" class="btn primary">{t('action.save')}</button>
        </form>
      </section>
    </Layout>
  );
}
