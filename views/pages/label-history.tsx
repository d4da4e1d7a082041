// The labelling start page (what waits, the button that reserves the next item) and an expert's
// labelling history in a dataset: filterable, newest first, each item one click (or B/N) away.
import type { PageContext } from '../layout.tsx';
import { Csrf, Kbd, Pager, StatusBadge, textLang } from '../components.tsx';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import { choices } from '../../server/criteria/values.ts';
import type { HistoryRow } from '../../server/labels/history.ts';
import { NextActions, type QueueDoneView } from './label.tsx';

export interface HistoryItem extends HistoryRow { values: { criterion: string; value: string }[] }

function when(iso: string | null): string {
  return iso ? iso.slice(0, 16).replace('T', ' ') : '';
}

function HistoryTable({ ctx, rows, language }: { ctx: PageContext; rows: HistoryItem[]; language: 'zh' | 'en' }) {
  const { t } = ctx;
  const lang = textLang(language);
  return (
    <table class="table history-table">
      <thead><tr>
        <th scope="col" class="num">#</th><th scope="col">{t('field.question')}</th><th scope="col">{t('field.system')}</th>
        <th scope="col">{t('fh.your_labels')}</th><th scope="col">{t('field.status')}</th><th scope="col">{t('fh.when')}</th>
      </tr></thead>
      <tbody>
        {rows.map((r) => (
          <tr>
            <td class="num sub">{r.response_id}</td>
            <td lang={lang}><a href={`/responses/${r.response_id}/label`}>{r.question}</a></td>
            <td class="sub nowrap">{r.system || '—'}</td>
            <td>{r.values.length === 0 ? <span class="sub">—</span> : r.values.map((v) => <span class="tag">{v.criterion}: <span lang={lang}>{v.value}</span></span>)}</td>
            <td><StatusBadge status={r.state === 'submitted' ? 'approved' : 'draft'} label={t(r.state === 'submitted' ? 'label.submitted' : 'fh.state_draft')} /></td>
            <td class="sub nowrap">{when(r.submitted_at ?? r.updated_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function LabelStart({ ctx, dataset, candidate, next, recent }: {
  ctx: PageContext; dataset: DatasetRow; candidate: number | null; next: QueueDoneView; recent: HistoryItem[];
}) {
  const { t } = ctx;
  const pct = next.progress.total ? Math.round((100 * next.progress.done) / next.progress.total) : 0;
  return (
    <div id="workspace" class="workspace">
      <section class="card start" aria-labelledby="start-title">
        <h1 id="start-title">{t('label.title')}</h1>
        <div class="ws-progress">
          <progress max={next.progress.total || 1} value={next.progress.done} aria-label={t('label.progress')} />
          <span class="sub">{t('label.progress_text', { done: next.progress.done, total: next.progress.total, pct, mine: next.progress.mine })}</span>
        </div>
        {candidate === null ? (
          <>
            <p><strong>{t('label.done_title')}</strong> {t('label.done_lead', { mine: next.progress.mine })}</p>
            <NextActions ctx={ctx} dataset={dataset} waiting={next.waiting} />
          </>
        ) : (
          <>
            <p>{t('fh.start_lead')}</p>
            <form method="post" action={`/datasets/${dataset.id}/label/next`} class="actions">
              <Csrf token={ctx.csrfToken} />
              <button class="btn primary" type="submit" autofocus>{t('label.start')} <Kbd>Enter</Kbd></button>
              <a class="btn" href={`/datasets/${dataset.id}/label/history`}>{t('fh.history')}</a>
            </form>
          </>
        )}
      </section>
      {recent.length > 0 && (
        <section aria-labelledby="recent-title">
          <h2 id="recent-title">{t('fh.recent')}</h2>
          <HistoryTable ctx={ctx} rows={recent} language={dataset.language} />
        </section>
      )}
    </div>
  );
}

export interface HistoryFilterValues { q: string; state: string; value: string }

export function HistoryList({ ctx, dataset, rows, total, page, pageSize, filter, criteria }: {
  ctx: PageContext; dataset: DatasetRow; rows: HistoryItem[]; total: number; page: number; pageSize: number;
  filter: HistoryFilterValues; criteria: Criterion[];
}) {
  const { t } = ctx;
  const base = `/datasets/${dataset.id}/label/history`;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const link = (p: number) => {
    const q = new URLSearchParams();
    if (filter.q) q.set('q', filter.q);
    if (filter.state) q.set('state', filter.state);
    if (filter.value) q.set('value', filter.value);
    if (p > 1) q.set('page', String(p));
    const qs = q.toString();
    return qs ? `${base}?${qs}` : base;
  };
  return (
    <div id="workspace" class="workspace">
      <div class="page-head">
        <h1>{t('fh.history_title')}</h1>
        <form method="post" action={`/datasets/${dataset.id}/label/next`} class="inline">
          <Csrf token={ctx.csrfToken} />
          <button class="btn primary small" type="submit">{t('fh.continue_queue')}</button>
        </form>
      </div>
      <p class="lead">{t('fh.history_lead')}</p>
      <form class="filters" method="get" action={base} role="search" aria-label={t('fh.history_filters')}>
        <label class="sr-only" for="h-q">{t('fh.history_search')}</label>
        <input id="h-q" type="search" name="q" value={filter.q} placeholder={t('fh.history_search')} />
        <label class="sr-only" for="h-state">{t('field.status')}</label>
        <select id="h-state" name="state">
          <option value="">{t('fh.any_state')}</option>
          <option value="submitted" selected={filter.state === 'submitted'}>{t('label.submitted')}</option>
          <option value="draft" selected={filter.state === 'draft'}>{t('fh.state_draft')}</option>
        </select>
        <label class="sr-only" for="h-value">{t('fh.your_labels')}</label>
        <select id="h-value" name="value">
          <option value="">{t('fh.any_value')}</option>
          {criteria.flatMap((c) => choices(c).map((o) => {
            const v = `${c.id}:${o.value}`;
            return <option value={v} lang={textLang(dataset.language)} selected={filter.value === v}>{`${c.name}: ${o.label}`}</option>;
          }))}
        </select>
        <button class="btn small" type="submit">{t('action.filter')}</button>
      </form>
      <p class="sub">{t('fh.history_count', { n: total })}</p>
      {rows.length === 0 ? <p class="empty-row">{t('fh.history_none')}</p> : <HistoryTable ctx={ctx} rows={rows} language={dataset.language} />}
      {pages > 1 && (
        <Pager t={t} page={page} pages={pages} more={page < pages} href={link} />
      )}
    </div>
  );
}
