// The labelling workspace: one item at a time, every criterion answerable from the keyboard.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, ItemTexts, Kbd, textLang } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { ResponseWithSample } from '../../server/responses/queries.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import { choices } from '../../server/criteria/values.ts';
import type { AnnotationRow } from '../../server/labels/queries.ts';
import { rawHtml, renderedHtml, type SafeHtml } from '../../server/http/html.ts';
import type { T } from '../../server/i18n/index.ts';
import { LabellingSheetLink } from './labelling-sheet.tsx';
import type { Waiting } from '../../server/datasets/waiting.ts';
import type { Children, Html } from '../jsx-runtime.ts';
import { LIMITS } from '../../server/limits.ts';

export interface WorkspaceItem {
  dataset: DatasetRow;
  response: ResponseWithSample;
  /** The retrieved contexts as text (the browser marks the question's words in them: public/highlight.js). */
  contexts: string[];
  criteria: readonly Criterion[];
  annotation: AnnotationRow | null;
  /** Current values keyed "criterionId" or "criterionId:contextIndex". */
  values: Record<string, string>;
  rationale: string;
  correctedAnswer: string;
  progress: { done: number; total: number; mine: number };
}

function CriterionField({ ctx, c, item, errors }: { ctx: PageContext; c: Criterion; item: WorkspaceItem; errors?: FieldErrors | undefined }) {
  const { t } = ctx;
  const name = `c${c.id}`;
  const error = errors?.[name];
  return (
    <fieldset class={error ? 'criterion has-error' : 'criterion'} data-criterion={c.id} aria-describedby={c.guidelines ? `g-${c.id}` : undefined}>
      <legend>{c.name} <span class="sub">{t(`kind.${c.kind}`)}</span></legend>
      {c.guidelines && <p class="guidelines" id={`g-${c.id}`} lang={textLang(item.dataset.language)}>{c.guidelines}</p>}
      {c.kind === 'numeric' ? (
        <div class="field">
          <label for={`${name}-input`} class="sr-only">{c.name}</label>
          <input id={`${name}-input`} name={name} type="number" min="0" max="1" step="0.05" inputMode="decimal" value={item.values[String(c.id)] ?? ''} />
        </div>
      ) : (
        <div class="options" role="radiogroup" aria-label={c.name}>
          {choices(c).map((o, i) => (
            <label class="option" key={o.value}>
              <input type="radio" name={name} value={o.value} checked={item.values[String(c.id)] === o.value} data-key={i + 1} />
              <Kbd>{i + 1}</Kbd> <span lang={textLang(item.dataset.language)}>{o.label}</span>
            </label>
          ))}
        </div>
      )}
      {error && <p class="error" role="alert">{error}</p>}
    </fieldset>
  );
}

function KeysHelp({ t }: { t: T }) {
  return (
    <dialog id="keys-help" aria-labelledby="keys-title">
      <h2 id="keys-title">{t('label.keys')}</h2>
      <table class="table compact">
        <tbody>
          <tr><td><Kbd>1</Kbd>–<Kbd>9</Kbd></td><td>{t('label.key_option')}</td></tr>
          <tr><td><Kbd>J</Kbd> / <Kbd>K</Kbd></td><td>{t('label.key_criterion')}</td></tr>
          <tr><td><Kbd>⇧</Kbd>+<Kbd>1</Kbd>–<Kbd>9</Kbd></td><td>{t('label.key_context')}</td></tr>
          <tr><td><Kbd>Enter</Kbd></td><td>{t('label.key_submit')}</td></tr>
          <tr><td><Kbd>S</Kbd></td><td>{t('label.key_skip')}</td></tr>
          <tr><td><Kbd>B</Kbd> / <Kbd>N</Kbd></td><td>{t('fh.key_history')}</td></tr>
          <tr><td><Kbd>R</Kbd></td><td>{t('label.key_rationale')}</td></tr>
          <tr><td><Kbd>Esc</Kbd></td><td>{t('label.key_escape')}</td></tr>
          <tr><td><Kbd>Ctrl</Kbd>+<Kbd>Enter</Kbd></td><td>{t('label.key_ctrl_enter')}</td></tr>
          <tr><td><Kbd>?</Kbd></td><td>{t('label.key_help')}</td></tr>
        </tbody>
      </table>
      <form method="dialog"><button class="btn" type="submit">{t('action.close')}</button></form>
    </dialog>
  );
}

// The key list is the same on every item: rendered once per language (a translator per language, see i18n).
const keysHelpHtml = new WeakMap<T, SafeHtml>();
function keysHelp(t: T): SafeHtml {
  let html = keysHelpHtml.get(t);
  if (html === undefined) keysHelpHtml.set(t, (html = renderedHtml(<KeysHelp t={t} />)));
  return html;
}

/** Where B or N found nothing more in the expert's history: said on the item that stays shown. */
export type HistoryEdge = 'first' | 'last';

export function Workspace({ ctx, item, errors, conflict, edge }: {
  ctx: PageContext; item: WorkspaceItem; errors?: FieldErrors | undefined; conflict?: boolean; edge?: HistoryEdge;
}) {
  const { t } = ctx;
  const { response: r, dataset } = item;
  const responseCriteria = item.criteria.filter((c) => c.target === 'response');
  const contextCriteria = item.criteria.filter((c) => c.target === 'context');
  const pct = item.progress.total ? Math.round((100 * item.progress.done) / item.progress.total) : 0;
  const reference = JSON.parse(r.reference_contexts) as string[];
  const next = `/datasets/${dataset.id}/label/next`;
  const lang = textLang(dataset.language);
  return (
    <div id="workspace" class="workspace" data-response={r.id}>
      <div class="ws-head">
        <div class="ws-progress">
          <progress max={item.progress.total || 1} value={item.progress.done} aria-label={t('label.progress')} />
          <span class="sub">{t('label.progress_text', { done: item.progress.done, total: item.progress.total, pct, mine: item.progress.mine })}</span>
        </div>
        <div class="actions">
          <span class="sub nowrap">{t('label.item', { id: r.id })}{r.system ? ` · ${r.system}` : ''}</span>
          {item.annotation?.state === 'submitted' && <span class="badge status-approved">{t('label.submitted')}</span>}
          <a class="btn ghost small" href={`/datasets/${dataset.id}/label/history`}>{t('fh.history')}</a>
          <button type="button" class="btn ghost small" data-show-help>{t('label.keys')} <Kbd>?</Kbd></button>
        </div>
      </div>
      {conflict && <div class="alert" role="alert">{t('label.conflict')}</div>}
      {errors?._form && <div class="alert" role="alert">{errors._form}</div>}
      {edge && (
        <div class="flash" role="status">
          {t(edge === 'first' ? 'fh.history_first' : 'fh.history_last')}
          {edge === 'last' && <> <a href={`/datasets/${dataset.id}/label`}>{t('fh.continue_queue')}</a></>}
        </div>
      )}
      <div class="ws-grid">
        <section class="ws-main card" aria-labelledby="ws-question">
          <ItemTexts t={t} language={dataset.language} id="ws-question" question={r.question} groundTruth={r.ground_truth} answer={r.answer} />
          {reference.length > 0 && (
            <details class="more"><summary>{t('field.reference_contexts')} ({reference.length})</summary>
              <ol class="ref-contexts" lang={lang}>{reference.map((c) => <li>{c}</li>)}</ol>
            </details>
          )}
          <form id="label-form" method="post" action={`/responses/${r.id}/label`} hx-post={`/responses/${r.id}/label`}
            hx-target="#workspace" hx-swap="outerHTML" hx-push-url="false" novalidate>
            <Csrf token={ctx.csrfToken} />
            <input type="hidden" name="version" value={item.annotation?.version ?? ''} />
            {responseCriteria.map((c) => <CriterionField ctx={ctx} c={c} item={item} errors={errors} />)}
            {item.criteria.length === 0 && <p class="alert">{t('label.no_criteria')} <a href={`/datasets/${dataset.id}/criteria`}>{t('criteria.title')}</a></p>}
            <div class="row">
              <Field name="rationale" label={t('field.rationale')} errors={errors}>
                <textarea id="f-rationale" name="rationale" rows={2} maxLength={LIMITS.rationale}>{item.rationale}</textarea>
              </Field>
              <Field name="corrected_answer" id="f-corrected" label={t('field.corrected_answer')} errors={errors}>
                <textarea id="f-corrected" name="corrected_answer" rows={2} maxLength={LIMITS.correctedAnswer} lang={lang}>{item.correctedAnswer}</textarea>
              </Field>
            </div>
          </form>
        </section>
        <section class="ws-contexts" aria-labelledby="ws-contexts-heading">
          <h2 id="ws-contexts-heading">{t('field.retrieved_contexts')} <span class="sub">({item.contexts.length})</span></h2>
          {contextCriteria.filter((c) => c.guidelines).map((c) => (
            <p class="guidelines context-guidelines" id={`g-${c.id}`} lang={lang}><strong>{c.name}</strong> · {c.guidelines}</p>
          ))}
          {item.contexts.length === 0 && <p class="sub">{t('label.no_contexts')}</p>}
          {r.n_contexts > item.contexts.length && <p class="hint">{t('label.contexts_cut', { shown: item.contexts.length, total: r.n_contexts })}</p>}
          <ol class="contexts">
            {item.contexts.map((text, i) => (
              <li class="context" key={i}>
                <div class="context-head">
                  <span class="rank">#{i + 1}</span>
                  {contextCriteria.map((c) => (
                    <label class="toggle">
                      <input type="checkbox" form="label-form" name={`c${c.id}_${i}`} value="1" checked={item.values[`${c.id}:${i}`] === '1'}
                        data-context-key={i + 1} aria-describedby={c.guidelines ? `g-${c.id}` : undefined} />
                      {c.name} {i < 9 && <Kbd>⇧{i + 1}</Kbd>}
                    </label>
                  ))}
                </div>
                <p class="context-text" lang={lang} data-highlight>{text}</p>
              </li>
            ))}
          </ol>
        </section>
      </div>
      {/* After the contexts in the page, so Tab reaches every relevance box before Submit. */}
      <div class="actions ws-actions">
        <button type="submit" form="label-form" class="btn primary">{t('label.submit')} <Kbd>Enter</Kbd></button>
        <form method="post" action={next} hx-post={next} hx-target="#workspace" hx-swap="outerHTML" class="inline">
          <Csrf token={ctx.csrfToken} />
          <input type="hidden" name="after" value={r.id} />
          <button type="submit" class="btn" data-hotkey="s">{t('label.skip')} <Kbd>S</Kbd></button>
        </form>
        <a class="btn ghost" href={`/responses/${r.id}/label/prev`} hx-get={`/responses/${r.id}/label/prev`} hx-target="#workspace" hx-swap="outerHTML"
          data-hotkey="b">{t('label.back')} <Kbd>B</Kbd></a>
        <a class="btn ghost" href={`/responses/${r.id}/label/next`} hx-get={`/responses/${r.id}/label/next`} hx-target="#workspace" hx-swap="outerHTML"
          data-hotkey="n">{t('fh.forward')} <Kbd>N</Kbd></a>
        <span class="draft-status sub" id="draft-status" aria-live="polite" data-background
          hx-post={`/responses/${r.id}/draft`} hx-include="#label-form" hx-trigger="change from:#label-form delay:600ms, input from:#label-form delay:2s"
          hx-target="this" hx-swap="innerHTML"></span>
      </div>
    </div>
  );
}

/** What the end of a queue shows: the expert's count and what else waits in the dataset. */
export interface QueueDoneView { progress: { done: number; total: number; mine: number }; waiting: Waiting }

export function NextActions({ ctx, dataset, waiting }: { ctx: PageContext; dataset: DatasetRow; waiting: Waiting }) {
  const { t } = ctx;
  const links: Html[] = [];
  if (waiting.canAdjudicate && waiting.disagreements > 0) {
    links.push(<a class="btn primary" href={`/datasets/${dataset.id}/disagreements`}>{t('fh.next_disagreements', { n: waiting.disagreements })}</a>);
  }
  if (waiting.canReview && waiting.inReviewForYou > 0) {
    links.push(<a class="btn" href={`/datasets/${dataset.id}/inbox`}>{t('fh.next_review', { n: waiting.inReviewForYou })}</a>);
  }
  links.push(<a class="btn" href={`/datasets/${dataset.id}/label/history`}>{t('fh.history')}</a>);
  links.push(<a class="btn" href={`/datasets/${dataset.id}/agreement`}>{t('agreement.title')}</a>);
  links.push(<a class="btn ghost" href={`/datasets/${dataset.id}`}>{dataset.name}</a>);
  return <nav class="actions next-actions" aria-label={t('fh.next_steps')}>{links}</nav>;
}

export function QueueDone({ ctx, dataset, next }: { ctx: PageContext; dataset: DatasetRow; next: QueueDoneView }) {
  const { t } = ctx;
  return (
    <div id="workspace" class="workspace">
      <section class="card empty" aria-labelledby="done-title">
        <h1 id="done-title">{t('label.done_title')}</h1>
        <p>{t('label.done_lead', { mine: next.progress.mine })}</p>
        <p class="sub">{t('fh.labels_left', { n: next.waiting.labelsLeft })}</p>
        <NextActions ctx={ctx} dataset={dataset} waiting={next.waiting} />
      </section>
    </div>
  );
}

export function LabelPage({ ctx, dataset, children }: { ctx: PageContext; dataset: DatasetRow; children: Children }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={`${t('label.title')} · ${dataset.name}`} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {t('label.title')}</nav>
      {children}
      <LabellingSheetLink ctx={ctx} datasetId={dataset.id} />
      {/* Once per page, not in every workspace an htmx swap brings: the workspace's "?" and Keys button open it. */}
      {rawHtml(keysHelp(t))}
    </Layout>
  );
}
