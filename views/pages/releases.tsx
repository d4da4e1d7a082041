// Releases of a dataset: the list with the form that makes one, a release's page (hash, downloads,
// fetching from CI, comparing, deleting) and the changes between two releases or a release and now.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, FormError, proseLang, shorten, textLang } from '../components.tsx';
import { Diff } from './sample.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { ReleaseDiff } from '../../server/releases/diff.ts';
import { LIMITS } from '../../server/limits.ts';

export interface ReleaseSummary {
  tag: string; hash: string; samples: number; responses: number; withResponses: boolean; author: string | null; createdAt: string; note: string;
}
interface DatasetRef { id: number; name: string; language: 'zh' | 'en' }

const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');
const releaseUrl = (d: DatasetRef, tag: string) => `/datasets/${d.id}/releases/${encodeURIComponent(tag)}`;

function Crumbs({ ctx, dataset, tail }: { ctx: PageContext; dataset: DatasetRef; tail?: { href: string; label: string } }) {
  const { t } = ctx;
  return (
    <nav class="crumbs" aria-label={t('nav.breadcrumbs')}>
      <a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {tail
        ? <><a href={`/datasets/${dataset.id}/releases`}>{t('release.title')}</a> / {tail.label}</> : t('release.title')}
    </nav>
  );
}

export interface ReleasesPageModel {
  ctx: PageContext; dataset: DatasetRef; releases: ReleaseSummary[]; approved: number; canCreate: boolean;
  values?: { tag?: string; note?: string; responses?: boolean }; errors?: FieldErrors;
}

export function ReleasesPage({ ctx, dataset, releases, approved, canCreate, values = {}, errors }: ReleasesPageModel) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={`${t('release.title')} · ${dataset.name}`}>
      <Crumbs ctx={ctx} dataset={dataset} />
      <h1>{t('release.title')}</h1>
      <p class="lead">{t('release.lead')}</p>
      {canCreate && (
        <section class="card" aria-labelledby="new-release">
          <h2 id="new-release">{t('release.new')}</h2>
          {approved === 0 ? <p class="sub">{t('release.no_approved')}</p> : (
            <form method="post" action={`/datasets/${dataset.id}/releases`}>
              <Csrf token={ctx.csrfToken} />
              <FormError errors={errors} />
              <div class="row">
                <Field name="tag" label={t('release.tag')} errors={errors} hint={t('release.tag_hint')}>
                  <input id="f-tag" name="tag" required maxLength={LIMITS.releaseTag} pattern={`[A-Za-z0-9][A-Za-z0-9._\\-]{0,${LIMITS.releaseTag - 1}}`} value={values.tag ?? ''} class="mono" />
                </Field>
                <Field name="note" label={t('release.note')} errors={errors} hint={t('release.note_hint')}>
                  <input id="f-note" name="note" maxLength={LIMITS.releaseNote} value={values.note ?? ''} />
                </Field>
              </div>
              <div class="field checkbox"><input type="checkbox" id="f-responses" name="responses" value="1" checked={values.responses ?? true} />
                <label for="f-responses">{t('release.with_responses')}</label></div>
              <button type="submit" class="btn primary">{t('release.create', { n: approved })}</button>
            </form>
          )}
        </section>
      )}
      <section class="card">
        {releases.length === 0 ? <p class="sub">{t('release.none')}</p> : (
          <table class="table">
            <thead><tr><th>{t('release.tag')}</th><th>{t('release.samples')}</th><th>{t('release.responses')}</th><th>{t('release.hash')}</th>
              <th>{t('release.author')}</th><th>{t('release.created')}</th><th>{t('release.note')}</th></tr></thead>
            <tbody>
              {releases.map((r) => (
                <tr key={r.tag}>
                  <td><a class="mono" href={releaseUrl(dataset, r.tag)}>{r.tag}</a></td>
                  <td>{r.samples}</td><td>{r.withResponses ? r.responses : '—'}</td>
                  <td class="mono" title={r.hash}>{r.hash.slice(0, 12)}…</td>
                  <td>{r.author ?? '—'}</td><td class="nowrap">{when(r.createdAt)}</td><td lang={proseLang(r.note)}>{r.note}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Layout>
  );
}

export interface ReleasePageModel {
  ctx: PageContext; dataset: DatasetRef; release: ReleaseSummary; others: string[]; apiBase: string; canDelete: boolean;
  runs: { id: number; name: string; metric: string; status: string }[]; errors?: FieldErrors;
}

const FORMATS = ['ragas-jsonl', 'ragas-csv', 'xlsx', 'goldset-jsonl'] as const;

export function ReleasePage({ ctx, dataset, release: r, others, apiBase, canDelete, runs, errors }: ReleasePageModel) {
  const { t } = ctx;
  const base = releaseUrl(dataset, r.tag);
  const api = `${apiBase}/api/v1/datasets/${dataset.id}/releases/${encodeURIComponent(r.tag)}/export?format=ragas-jsonl`;
  return (
    <Layout ctx={ctx} title={`${r.tag} · ${dataset.name}`}>
      <Crumbs ctx={ctx} dataset={dataset} tail={{ href: base, label: r.tag }} />
      <h1 class="mono">{r.tag}</h1>
      <p class="lead">{t('release.page_lead', { at: when(r.createdAt), who: r.author ?? '—' })}</p>
      <section class="card">
        <dl class="kv">
          <dt>{t('release.hash')}</dt><dd class="mono" id="release-hash">{r.hash}</dd>
          <dt>{t('release.samples')}</dt><dd>{r.samples}</dd>
          <dt>{t('release.responses')}</dt><dd>{r.withResponses ? r.responses : '—'}</dd>
          {r.note && <><dt>{t('release.note')}</dt><dd lang={proseLang(r.note)}>{r.note}</dd></>}
        </dl>
      </section>
      <section class="card" aria-labelledby="downloads">
        <h2 id="downloads">{t('release.downloads')}</h2>
        <table class="table compact">
          <tbody>
            <tr><th scope="row">{t('release.download_samples')}</th>
              <td>{FORMATS.filter((f) => f !== 'goldset-jsonl').map((f) => <><a class="btn small" href={`${base}/export?format=${f}`}>{f}</a>{' '}</>)}</td></tr>
            {r.withResponses && (
              <tr><th scope="row">{t('release.download_responses')}</th>
                <td>{FORMATS.filter((f) => f !== 'goldset-jsonl').map((f) => <><a class="btn small" href={`${base}/export?format=${f}&responses=1`}>{f}</a>{' '}</>)}</td></tr>
            )}
            <tr><th scope="row">goldset</th><td><a class="btn small" href={`${base}/export?format=goldset-jsonl`}>goldset-jsonl</a></td></tr>
          </tbody>
        </table>
      </section>
      <section class="card" aria-labelledby="ci">
        <h2 id="ci">{t('release.ci')}</h2>
        <p class="sub">{t('release.ci_lead')}</p>
        <pre class="example">{`curl -fsS -H "Authorization: Bearer $GOLDSET_TOKEN" \\\n  "${api}" -o eval.jsonl`}</pre>
      </section>
      <section class="card" aria-labelledby="compare">
        <h2 id="compare">{t('release.compare')}</h2>
        <form method="get" action={`${base}/diff`} class="inline-form">
          <Field name="against" label={t('release.compare_with')}>
            <select id="f-against" name="against">
              <option value="now">{t('release.compare_now')}</option>
              {others.map((tag) => <option value={tag}>{tag}</option>)}
            </select>
          </Field>
          <button type="submit" class="btn">{t('release.compare_submit')}</button>
        </form>
      </section>
      <section class="card" aria-labelledby="runs">
        <h2 id="runs">{t('release.runs')}</h2>
        {runs.length === 0 ? <p class="sub">{t('release.runs_none')}</p> : (
          <ul>{runs.map((run) => <li><a href={`/runs/${run.id}`}>{run.name}</a> · {run.metric} · {run.status}</li>)}</ul>
        )}
      </section>
      {canDelete && (
        <section class="card" aria-labelledby="delete">
          <h2 id="delete">{t('release.delete')}</h2>
          <p class="sub">{t('release.delete_lead')}</p>
          <form method="post" action={`${base}/delete`} class="inline-form">
            <Csrf token={ctx.csrfToken} />
            <Field name="confirm" label={t('release.delete_confirm')} errors={errors}>
              <input id="f-confirm" name="confirm" class="mono" autocomplete="off" required />
            </Field>
            <button type="submit" class="btn danger">{t('release.delete')}</button>
          </form>
        </section>
      )}
    </Layout>
  );
}

export interface DiffPageModel { ctx: PageContext; dataset: DatasetRef; from: string; to: string | null; diff: ReleaseDiff; /** The changed gold values are not shown to this user (they may still label items blind). */ goldHidden?: boolean }

/** Lists show their first items; the counts say how many there are. */
const SHOWN = 200;

function More({ ctx, n }: { ctx: PageContext; n: number }) {
  return n > SHOWN ? <p class="sub">{ctx.t('diff.more', { n: n - SHOWN })}</p> : null;
}

export function DiffPage({ ctx, dataset, from, to, diff, goldHidden = false }: DiffPageModel) {
  const { t } = ctx;
  const target = to ?? t('diff.now');
  const gold = (v: string | null) => v ?? <span class="sub">{t('diff.no_gold')}</span>;
  const lang = textLang(dataset.language);
  const empty = !diff.added.length && !diff.removed.length && !diff.changed.length && !diff.gold.length && !diff.responsesAdded.length
    && !diff.responsesRemoved.length && !diff.criteria.added.length && !diff.criteria.removed.length && !diff.criteria.changed.length;
  return (
    <Layout ctx={ctx} title={t('diff.title', { from, to: target })} wide>
      <Crumbs ctx={ctx} dataset={dataset} tail={{ href: releaseUrl(dataset, from), label: from }} />
      <h1>{t('diff.title', { from, to: target })}</h1>
      <section class="card" role="status" id="diff-summary">
        <p><strong>{t('diff.summary', { added: diff.added.length, removed: diff.removed.length, changed: diff.changed.length, unchanged: diff.unchanged })}</strong></p>
        <p>{t('diff.responses_summary', { added: diff.responsesAdded.length, removed: diff.responsesRemoved.length, gold: diff.gold.length })}</p>
        {goldHidden && <p class="hint">{t('export.labels_blind')}</p>}
        {(diff.criteria.added.length + diff.criteria.removed.length + diff.criteria.changed.length) > 0 && (
          <p>{t('diff.criteria', { added: diff.criteria.added.join(', ') || '0', removed: diff.criteria.removed.join(', ') || '0', changed: diff.criteria.changed.join(', ') || '0' })}</p>
        )}
        {empty && <p class="sub">{t('diff.none')}</p>}
      </section>
      {diff.changed.length > 0 && (
        <section class="card" aria-labelledby="diff-changed">
          <h2 id="diff-changed">{t('diff.changed')}</h2>
          <ol class="history">
            {diff.changed.slice(0, SHOWN).map((c) => (
              <li>
                <p class="strong" lang={lang}>{c.after.question}</p>
                <dl class="kv">{c.fields.map((f) => <><dt>{t(`field.${f.field}` as 'field.question')}</dt><dd lang={lang}><Diff parts={f.parts} /></dd></>)}</dl>
              </li>
            ))}
          </ol>
          <More ctx={ctx} n={diff.changed.length} />
        </section>
      )}
      {diff.gold.length > 0 && (
        <section class="card" aria-labelledby="diff-gold">
          <h2 id="diff-gold">{t('diff.gold')}</h2>
          <table class="table">
            <thead><tr><th>{t('diff.item')}</th><th>{t('diff.criterion')}</th><th>{t('diff.context')}</th><th>{t('diff.before')}</th><th>{t('diff.after')}</th></tr></thead>
            <tbody>
              {diff.gold.slice(0, SHOWN).map((g) => (
                <tr><td><span lang={lang}>{g.question}</span><br /><span class="sub">{g.system}</span></td><td>{g.criterion}</td><td lang={g.context === null ? undefined : lang}>{g.context ?? '—'}</td>
                  <td><del>{gold(g.before)}</del></td><td><ins>{gold(g.after)}</ins></td></tr>
              ))}
            </tbody>
          </table>
          <More ctx={ctx} n={diff.gold.length} />
        </section>
      )}
      {([['diff.added', diff.added], ['diff.removed', diff.removed]] as const).map(([key, list]) => list.length > 0 && (
        <section class="card" aria-labelledby={key}>
          <h2 id={key}>{t(key)}</h2>
          <ul>{list.slice(0, SHOWN).map((s) => <li lang={lang}>{s.question}</li>)}</ul>
          <More ctx={ctx} n={list.length} />
        </section>
      ))}
      {([['diff.responses_added', diff.responsesAdded], ['diff.responses_removed', diff.responsesRemoved]] as const).map(([key, list]) => list.length > 0 && (
        <section class="card" aria-labelledby={key}>
          <h2 id={key}>{t(key)}</h2>
          <ul>{list.slice(0, SHOWN).map((r) => <li><span lang={lang}>{r.question}</span> <span class="sub">· {r.system || '—'} · <span lang={lang}>{shorten(r.answer, 120)}</span></span></li>)}</ul>
          <More ctx={ctx} n={list.length} />
        </section>
      ))}
    </Layout>
  );
}
