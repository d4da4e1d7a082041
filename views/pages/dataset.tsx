// A dataset's workspace: quick keyboard entry of samples, search and filters, the sample table.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, FormError, Kbd, Pager, proseLang, shorten, StatusBadge, textLang } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { SampleRow, SampleStatus } from '../../server/samples/queries.ts';
import { STATUSES } from '../../server/samples/queries.ts';
import { can } from '../../server/http/security.ts';
import { LIMITS } from '../../server/limits.ts';
import type { Waiting } from '../../server/datasets/waiting.ts';
import { WaitingCard } from './dataset-waiting.tsx';
import type { Html } from '../jsx-runtime.ts';

export interface ListState {
  q: string;
  status: SampleStatus | '';
  tag: string;
  author: number | '';
  page: number;
  pageSize: number;
}

export interface SampleList {
  rows: SampleRow[];
  total: number;
  tags: { tag: string; n: number }[];
  authors: { id: number; email: string }[];
}

export interface QuickAddValues { question?: string; ground_truth?: string; reference_contexts?: string; tags?: string; source?: string }

function listUrl(datasetId: number, s: ListState, page: number): string {
  const p = new URLSearchParams();
  if (s.q) p.set('q', s.q);
  if (s.status) p.set('status', s.status);
  if (s.tag) p.set('tag', s.tag);
  if (s.author) p.set('author', String(s.author));
  if (page > 1) p.set('page', String(page));
  const qs = p.toString();
  return `/datasets/${datasetId}${qs ? '?' + qs : ''}`;
}

/** The first n characters, without copying the rest (a list row may hold a long text). */

export function SampleTable({ ctx, dataset, list, state }: { ctx: PageContext; dataset: DatasetRow; list: SampleList; state: ListState }) {
  const { t } = ctx;
  const lang = textLang(dataset.language);
  const pages = Math.max(1, Math.ceil(list.total / state.pageSize));
  return (
    <div id="sample-list" aria-live="polite" hx-get={listUrl(dataset.id, state, state.page)} hx-trigger="samples-changed from:body" hx-swap="outerHTML">
      <p class="sub">{t('samples.count', { n: list.total })}</p>
      {list.rows.length === 0 ? <p class="empty-row">{t('samples.none')}</p> : (
        <table class="table samples">
          <thead>
            <tr>
              <th scope="col" class="num">#</th>
              <th scope="col">{t('field.question')}</th>
              <th scope="col">{t('field.ground_truth')}</th>
              <th scope="col">{t('field.tags')}</th>
              <th scope="col">{t('field.status')}</th>
              <th scope="col">{t('field.author')}</th>
            </tr>
          </thead>
          <tbody>
            {list.rows.map((s) => (
              <tr key={s.id}>
                <td class="num sub">{s.id}</td>
                <td lang={lang}><a href={`/samples/${s.id}`}>{shorten(s.question, 90)}</a></td>
                <td class="sub" lang={lang}>{shorten(s.ground_truth, 90)}</td>
                <td>{(JSON.parse(s.tags) as string[]).map((tag) => <span class="tag" key={tag}>{tag}</span>)}</td>
                <td><StatusBadge status={s.status} label={t(`status.${s.status}`)} /></td>
                <td class="sub">{s.author_email ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages > 1 && (
        <Pager t={t} page={state.page} pages={pages} more={state.page < pages} href={(p) => listUrl(dataset.id, state, p)} />
      )}
    </div>
  );
}

export function QuickAddForm({ ctx, dataset, values = {}, errors, added }: {
  ctx: PageContext; dataset: DatasetRow; values?: QuickAddValues; errors?: FieldErrors | undefined; added?: SampleRow | undefined;
}) {
  const { t } = ctx;
  const lang = textLang(dataset.language);
  return (
    <form id="quick-add" class="card quick-add" method="post" action={`/datasets/${dataset.id}/samples`}
      hx-post={`/datasets/${dataset.id}/samples`} hx-target="#quick-add" hx-swap="outerHTML" novalidate>
      <Csrf token={ctx.csrfToken} />
      <h2>{t('samples.quick_add')} <span class="sub">{t('samples.quick_add_hint')} <Kbd>Ctrl</Kbd>+<Kbd>Enter</Kbd></span></h2>
      {added && <p class="flash" role="status">{t('samples.added', { id: added.id })}</p>}
      <FormError errors={errors} />
      <div class="row">
        <Field name="question" label={t('field.question')} errors={errors}>
          <textarea id="f-question" name="question" rows={2} required maxLength={LIMITS.question} lang={lang} data-focus-after-swap>{values.question ?? ''}</textarea>
        </Field>
        <Field name="ground_truth" label={t('field.ground_truth')} errors={errors}>
          <textarea id="f-ground_truth" name="ground_truth" rows={2} maxLength={LIMITS.groundTruth} lang={lang}>{values.ground_truth ?? ''}</textarea>
        </Field>
      </div>
      <details class="more" open={Boolean(values.reference_contexts || values.tags || values.source)}>
        <summary>{t('samples.more_fields')}</summary>
        <Field name="reference_contexts" label={t('field.reference_contexts')} errors={errors} hint={t('hint.contexts')}>
          <textarea id="f-reference_contexts" name="reference_contexts" rows={3} lang={lang}>{values.reference_contexts ?? ''}</textarea>
        </Field>
        <div class="row">
          <Field name="tags" label={t('field.tags')} errors={errors} hint={t('hint.tags')}>
            <input id="f-tags" name="tags" value={values.tags ?? ''} />
          </Field>
          <Field name="source" label={t('field.source')} errors={errors}>
            <input id="f-source" name="source" list="sources" value={values.source ?? ''} />
          </Field>
        </div>
      </details>
      <datalist id="sources">
        <option value="user_log">{t('source.user_log')}</option>
        <option value="support_ticket">{t('source.support_ticket')}</option>
        <option value="scenario">{t('source.scenario')}</option>
      </datalist>
      <button type="submit" class="btn primary">{t('samples.add')}</button>
    </form>
  );
}

export function FilterBar({ ctx, dataset, list, state }: { ctx: PageContext; dataset: DatasetRow; list: SampleList; state: ListState }) {
  const { t } = ctx;
  return (
    <form class="filters" method="get" action={`/datasets/${dataset.id}`} role="search"
      hx-get={`/datasets/${dataset.id}`} hx-target="#sample-list" hx-swap="outerHTML" hx-push-url="true"
      hx-trigger={'input changed delay:300ms from:"find input", change from:"findAll select", submit'}>
      <label class="sr-only" for="f-q">{t('samples.search')}</label>
      <input id="f-q" type="search" name="q" value={state.q} placeholder={t('samples.search_placeholder')} data-hotkey="/" />
      <label class="sr-only" for="f-status">{t('field.status')}</label>
      <select id="f-status" name="status">
        <option value="">{t('samples.any_status')}</option>
        {STATUSES.map((s) => <option value={s} selected={state.status === s}>{t(`status.${s}`)}</option>)}
      </select>
      <label class="sr-only" for="f-tag">{t('field.tags')}</label>
      <select id="f-tag" name="tag">
        <option value="">{t('samples.any_tag')}</option>
        {list.tags.map((x) => <option value={x.tag} selected={state.tag === x.tag}>{`${x.tag} (${x.n})`}</option>)}
      </select>
      <label class="sr-only" for="f-author">{t('field.author')}</label>
      <select id="f-author" name="author">
        <option value="">{t('samples.any_author')}</option>
        {list.authors.map((a) => <option value={a.id} selected={state.author === a.id}>{a.email}</option>)}
      </select>
      <button type="submit" class="btn small">{t('action.filter')}</button>
    </form>
  );
}

export interface LabellingSummary {
  responses: number; criteria: number; canLabel: boolean; canAdjudicate: boolean; progress: { done: number; total: number; mine: number }; waiting: Waiting;
}

function LabellingBar({ ctx, dataset, s }: { ctx: PageContext; dataset: DatasetRow; s: LabellingSummary }) {
  const { t } = ctx;
  return (
    <section class="card labelling-bar" aria-labelledby="labelling-heading">
      <div>
        <h2 id="labelling-heading">{t('label.title')}</h2>
        <p class="sub">{t('dataset.labelling_summary', { responses: s.responses, criteria: s.criteria, done: s.progress.done, total: s.progress.total, mine: s.progress.mine })}</p>
      </div>
      <div class="actions">
        {s.canLabel && s.responses > 0 && (
          <form method="post" action={`/datasets/${dataset.id}/label/next`} class="inline">
            <Csrf token={ctx.csrfToken} />
            <button class="btn primary" type="submit">{t('label.start')}</button>
          </form>
        )}
        <a class="btn small" href={`/datasets/${dataset.id}/criteria`}>{t('criteria.title')}</a>
        {s.canAdjudicate && <a class="btn small" href={`/datasets/${dataset.id}/disagreements`}>{t('disagree.title')}</a>}
        <a class="btn small" href={`/datasets/${dataset.id}/agreement`}>{t('agreement.title')}</a>
        <a class="btn small" href={`/datasets/${dataset.id}/runs`}>{t('runs.title')}</a>
        <a class="btn small" href={`/datasets/${dataset.id}/metrics`}>{t('metrics.title')}</a>
        <a class="btn small" href={`/datasets/${dataset.id}/calibration`}>{t('calib.title')}</a>
        <a class="btn small" href={`/datasets/${dataset.id}/prompt-lab`}>{t('lab.title')}</a>
        {ctx.user?.role === 'admin' && <a class="btn ghost small" href={`/datasets/${dataset.id}/assignment`}>{t('assign.title')}</a>}
      </div>
    </section>
  );
}

export function DatasetPage({ ctx, dataset, list, state, quickAdd, labelling, trueScore }: {
  ctx: PageContext; dataset: DatasetRow; list: SampleList; state: ListState; quickAdd?: { values?: QuickAddValues; errors?: FieldErrors };
  labelling: LabellingSummary; trueScore?: Html | null;
}) {
  const { t } = ctx;
  const canWrite = can(ctx.user?.role, 'expert') && !dataset.archived;
  return (
    <Layout ctx={ctx} title={dataset.name} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / {dataset.name}</nav>
      <div class="page-head">
        <div>
          <h1>{dataset.name} <span class="badge lang">{t(`lang.${dataset.language}`)}</span>{dataset.archived ? <span class="badge">{t('datasets.archived')}</span> : null}</h1>
          {dataset.domain && <p class="sub">{dataset.domain}</p>}
          {dataset.description && <p lang={proseLang(dataset.description)}>{dataset.description}</p>}
        </div>
        <div class="actions">
          {canWrite && <a class="btn small" href={`/datasets/${dataset.id}/import`}>{t('action.import')}</a>}
          <a class="btn small" href={`/datasets/${dataset.id}/export`}>{t('action.export')}</a>
          <a class="btn small" href={`/datasets/${dataset.id}/releases`}>{t('release.title')}</a>
          {canWrite && <a class="btn ghost small" href={`/datasets/${dataset.id}/settings`}>{t('datasets.settings')}</a>}
        </div>
      </div>
      <LabellingBar ctx={ctx} dataset={dataset} s={labelling} />
      <WaitingCard ctx={ctx} dataset={dataset} s={labelling} />
      {trueScore}
      {canWrite && <QuickAddForm ctx={ctx} dataset={dataset} values={quickAdd?.values} errors={quickAdd?.errors} />}
      <section aria-labelledby="samples-heading">
        <h2 id="samples-heading">{t('samples.title')}</h2>
        <FilterBar ctx={ctx} dataset={dataset} list={list} state={state} />
        <SampleTable ctx={ctx} dataset={dataset} list={list} state={state} />
      </section>
    </Layout>
  );
}
