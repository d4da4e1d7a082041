// One sample: the edit form, the review workflow, the revision history with diffs, and its audit trail.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, FormError, ITEM_TEXT_FIELDS, proseLang, StatusBadge, textLang } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { SampleRow } from '../../server/samples/queries.ts';
import type { Snapshot } from '../../server/samples/service.ts';
import type { AuditRow } from '../../server/audit/queries.ts';
import { diffSnapshots, type DiffPart } from '../../server/samples/diff.ts';
import { can } from '../../server/http/security.ts';
import { LIMITS } from '../../server/limits.ts';
import { AuditList } from './audit-list.tsx';

export interface SampleFormValues { question: string; ground_truth: string; reference_contexts: string; tags: string; source: string; notes: string; version: number }

export interface HistoryEntry { version: number; snapshot: Snapshot; editor_email: string | null; edited_at: string }

const FIELDS = ['question', 'ground_truth', 'reference_contexts', 'tags', 'source', 'notes', 'status'] as const;

export function formValues(row: SampleRow): SampleFormValues {
  return {
    question: row.question, ground_truth: row.ground_truth,
    reference_contexts: (JSON.parse(row.reference_contexts) as string[]).join('\n\n'),
    tags: (JSON.parse(row.tags) as string[]).join(', '), source: row.source, notes: row.notes, version: row.version,
  };
}

export function Diff({ parts }: { parts: DiffPart[] }) {
  return <span class="diff">{parts.map((p) => (p.op === 'same' ? p.text : p.op === 'add' ? <ins>{p.text}</ins> : <del>{p.text}</del>))}</span>;
}

function SampleForm({ ctx, sample, values, errors, conflict, oversized, lang }: {
  ctx: PageContext; sample: SampleRow; values: SampleFormValues; errors?: FieldErrors | undefined; conflict?: SampleRow | undefined; oversized: boolean;
  /** The dataset's language, of the texts typed here (textLang). */
  lang: string;
}) {
  const { t } = ctx;
  const readOnly = !can(ctx.user?.role, 'expert') || oversized;
  return (
    <form id="sample-form" method="post" action={`/samples/${sample.id}`} novalidate class="card">
      <Csrf token={ctx.csrfToken} />
      <input type="hidden" name="version" value={values.version} />
      {conflict && (
        <div class="alert" role="alert">
          <strong>{t('err.conflict')}</strong>
          <p>{t('samples.conflict_detail', { who: conflict.author_email ?? '—', version: conflict.version })}</p>
          <dl class="kv">
            <dt>{t('field.question')}</dt><dd lang={lang}>{conflict.question}</dd>
            <dt>{t('field.ground_truth')}</dt><dd lang={lang}>{conflict.ground_truth}</dd>
          </dl>
        </div>
      )}
      <FormError errors={errors} />
      {oversized && <div class="alert" role="status">{t('samples.oversized')}</div>}
      <fieldset disabled={readOnly}>
        <Field name="question" label={t('field.question')} errors={errors}>
          <textarea id="f-question" name="question" rows={3} required maxLength={LIMITS.question} lang={lang}>{values.question}</textarea>
        </Field>
        <Field name="ground_truth" label={t('field.ground_truth')} errors={errors}>
          <textarea id="f-ground_truth" name="ground_truth" rows={4} maxLength={LIMITS.groundTruth} lang={lang}>{values.ground_truth}</textarea>
        </Field>
        <Field name="reference_contexts" label={t('field.reference_contexts')} errors={errors} hint={t('hint.contexts')}>
          <textarea id="f-reference_contexts" name="reference_contexts" rows={5} lang={lang}>{values.reference_contexts}</textarea>
        </Field>
        <div class="row">
          <Field name="tags" label={t('field.tags')} errors={errors} hint={t('hint.tags')}>
            <input id="f-tags" name="tags" value={values.tags} />
          </Field>
          <Field name="source" label={t('field.source')} errors={errors}>
            <input id="f-source" name="source" value={values.source} list="sources" />
          </Field>
        </div>
        <Field name="notes" label={t('field.notes')} errors={errors}>
          <textarea id="f-notes" name="notes" rows={2} maxLength={LIMITS.notes}>{values.notes}</textarea>
        </Field>
        {!readOnly && <button type="submit" class="btn primary">{t('action.save')}</button>}
      </fieldset>
      <datalist id="sources">
        <option value="user_log">{t('source.user_log')}</option>
        <option value="support_ticket">{t('source.support_ticket')}</option>
        <option value="scenario">{t('source.scenario')}</option>
      </datalist>
    </form>
  );
}

function ReviewPanel({ ctx, sample, reopened }: { ctx: PageContext; sample: SampleRow; reopened: { who: string; comment: string; at: string } | null }) {
  const { t } = ctx;
  const canWrite = can(ctx.user?.role, 'expert');
  // Four eyes: neither the author nor whoever last changed the content may approve.
  const isAuthor = ctx.user?.id === sample.author_id;
  const isLastEditor = ctx.user !== null && ctx.user.id === sample.last_editor_id;
  const action = (name: string, label: string, primary = false) => (
    <form method="post" action={`/samples/${sample.id}/status`} class="inline">
      <Csrf token={ctx.csrfToken} />
      <input type="hidden" name="version" value={sample.version} />
      <input type="hidden" name="action" value={name} />
      <button type="submit" class={primary ? 'btn primary small' : 'btn small'}>{label}</button>
    </form>
  );
  return (
    <section class="card" aria-labelledby="review-heading">
      <h2 id="review-heading">{t('samples.review')}</h2>
      <p><StatusBadge status={sample.status} label={t(`status.${sample.status}`)} /></p>
      {sample.status === 'draft' && reopened && (
        <div class="notice" role="note"><p class="sub">{t('fh.reopened_by', { who: reopened.who, at: reopened.at })}</p><p lang={proseLang(reopened.comment)}>{reopened.comment}</p></div>
      )}
      <dl class="kv">
        <dt>{t('field.author')}</dt><dd>{sample.author_email ?? '—'}</dd>
        {sample.approver_email && <><dt>{t('samples.approved_by')}</dt><dd>{sample.approver_email} · {sample.approved_at?.slice(0, 16).replace('T', ' ')}</dd></>}
        <dt>{t('samples.version')}</dt><dd>{sample.version}</dd>
      </dl>
      {canWrite && (
        <div class="actions">
          {sample.status === 'draft' && action('submit', t('samples.submit_review'), true)}
          {sample.status === 'in_review' && (isAuthor ? <p class="hint">{t('samples.approve_other')}</p>
            : isLastEditor ? <p class="hint">{t('samples.approve_other_edit')}</p>
            : action('approve', t('samples.approve'), true))}
        </div>
      )}
      {canWrite && sample.status !== 'draft' && (
        <form method="post" action={`/samples/${sample.id}/status`} class="reopen-form">
          <Csrf token={ctx.csrfToken} />
          <input type="hidden" name="version" value={sample.version} />
          <input type="hidden" name="action" value="reopen" />
          <label for="f-reopen-comment">{t('fh.reopen_comment')}</label>
          <textarea id="f-reopen-comment" name="comment" rows={2} maxLength={LIMITS.note} placeholder={t('fh.reopen_placeholder')}></textarea>
          <button type="submit" class="btn small">{t('samples.reopen')}</button>
        </form>
      )}
      {sample.status === 'in_review' && <p><a href={`/datasets/${sample.dataset_id}/inbox`}>{t('fh.inbox_title')}</a></p>}
    </section>
  );
}

/** The comment of the latest "back to draft", from the sample's audit trail. */
function lastReopen(audit: AuditRow[]): { who: string; comment: string; at: string } | null {
  const e = audit.find((x) => x.action === 'reopen');
  if (!e?.after) return null;
  try {
    const comment = (JSON.parse(e.after) as { comment?: unknown }).comment;
    return typeof comment === 'string' && comment ? { who: e.actor_email ?? '—', comment, at: e.at.slice(0, 16).replace('T', ' ') } : null;
  } catch { return null; }
}

/** `lang`: the dataset's (textLang), on the changes of the item's own texts. */
function History({ ctx, sample, history, lang }: { ctx: PageContext; sample: SampleRow; history: HistoryEntry[]; lang: string }) {
  const { t } = ctx;
  // history holds the superseded versions, newest first; each is compared with the version after it.
  const current: Snapshot = {
    question: sample.question, ground_truth: sample.ground_truth,
    reference_contexts: JSON.parse(sample.reference_contexts) as string[], tags: JSON.parse(sample.tags) as string[],
    source: sample.source, notes: sample.notes, status: sample.status,
  };
  // A status is shown as the word the badge uses ("In review"), not as its code.
  const readable = (v: Snapshot): Record<string, unknown> => ({ ...v, status: t(`status.${v.status}`) });
  const entries = history.map((h, i) => {
    const newer = i === 0 ? current : history[i - 1]!.snapshot;
    return { version: h.version + 1, editor: h.editor_email, at: h.edited_at, changes: diffSnapshots(readable(h.snapshot), readable(newer), FIELDS) };
  });
  return (
    <section class="card" aria-labelledby="history-heading">
      <h2 id="history-heading">{t('samples.history')}</h2>
      {entries.length === 0 ? <p class="sub">{t('samples.no_history')}</p> : (
        <ol class="history">
          {entries.map((e) => (
            <li key={e.version}>
              <p class="sub">{t('samples.version_by', { version: e.version, who: e.editor ?? '—', at: e.at.slice(0, 16).replace('T', ' ') })}</p>
              <dl class="kv">
                {e.changes.map((c) => <><dt>{t(`field.${c.field}` as 'field.question')}</dt><dd lang={ITEM_TEXT_FIELDS.has(c.field) ? lang : undefined}><Diff parts={c.parts} /></dd></>)}
              </dl>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function SamplePage({ ctx, dataset, sample, values, history, audit, errors, conflict, oversized = false }: {
  ctx: PageContext; dataset: DatasetRow; sample: SampleRow; values: SampleFormValues; history: HistoryEntry[]; audit: AuditRow[];
  errors?: FieldErrors; conflict?: SampleRow;
  /** Texts longer than the limits (stored before they existed): shown cut, not editable. */
  oversized?: boolean;
}) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={`#${sample.id} · ${dataset.name}`} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / #{sample.id}</nav>
      <div class="split">
        <div>
          <h1>{t('samples.sample', { id: sample.id })} <StatusBadge status={sample.status} label={t(`status.${sample.status}`)} /></h1>
          <SampleForm ctx={ctx} sample={sample} values={values} errors={errors} conflict={conflict} oversized={oversized} lang={textLang(dataset.language)} />
          <History ctx={ctx} sample={sample} history={history} lang={textLang(dataset.language)} />
        </div>
        <aside>
          <ReviewPanel ctx={ctx} sample={sample} reopened={lastReopen(audit)} />
          <section class="card" aria-labelledby="audit-heading">
            <h2 id="audit-heading">{t('audit.title')}</h2>
            <AuditList ctx={ctx} events={audit} />
          </section>
        </aside>
      </div>
    </Layout>
  );
}
