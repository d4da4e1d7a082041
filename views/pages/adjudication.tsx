// One response with every expert's labels, the gold values, and the adjudication forms; the disagreement list.
import { Layout, type PageContext } from '../layout.tsx';
import { AdjudicatedBy, Csrf, ItemTexts, Pager, Prose, proseLang, textLang, ValueLabel } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { ResponseWithSample } from '../../server/responses/queries.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import { choices } from '../../server/criteria/values.ts';
import type { AdjudicationRow, AnnotationRow, DisagreementRow, LabelValueRow } from '../../server/labels/queries.ts';

export interface Slot { criterion: Criterion; contextIndex: number; values: { annotator: string; value: string }[]; gold: string | null; adjudication: AdjudicationRow | undefined }

/** One label slot: each expert's value, the gold value, and (for adjudicators) the form that sets it, posted by htmx for this row alone. */
export function SlotRow({ ctx, response, language, slot: s, canAdjudicate, saved, error }: {
  ctx: PageContext; response: ResponseWithSample; language: 'zh' | 'en'; slot: Slot; canAdjudicate: boolean; saved?: boolean | undefined; error?: string | undefined;
}) {
  const { t } = ctx;
  const lang = textLang(language);
  const id = `adj-${s.criterion.id}-${s.contextIndex}`;
  const disagree = new Set(s.values.map((v) => v.value)).size > 1;
  return (
    <tr id={`c-${s.criterion.id}-${s.contextIndex}`} class={disagree && !s.adjudication ? 'disagree' : ''}>
      <td><strong>{s.criterion.name}</strong>{s.contextIndex >= 0 && <span class="sub"> · {t('response.context_n', { n: s.contextIndex + 1 })}</span>}</td>
      <td>{s.values.length === 0 ? <span class="sub">—</span> : s.values.map((v) => <div><ValueLabel criterion={s.criterion} value={v.value} language={language} /> <span class="sub">{v.annotator}</span></div>)}</td>
      <td>
        <strong><ValueLabel criterion={s.criterion} value={s.gold} language={language} /></strong>
        {s.adjudication && <div class="sub"><AdjudicatedBy t={t} who={s.adjudication.adjudicator_email} reason={s.adjudication.reason} /></div>}
        {saved && <div class="saved" role="status">{t('flash.adjudicated')}</div>}
      </td>
      {canAdjudicate && (
        <td>
          <form method="post" action={`/responses/${response.id}/adjudicate`} class="adjudicate"
            hx-post={`/responses/${response.id}/adjudicate`} hx-target="closest tr" hx-swap="outerHTML">
            <Csrf token={ctx.csrfToken} />
            <input type="hidden" name="criterion" value={s.criterion.id} />
            <input type="hidden" name="context_index" value={s.contextIndex} />
            <input type="hidden" name="version" value={s.adjudication?.version ?? 0} />
            <label class="sr-only" for={`${id}-v`}>{t('response.gold')}</label>
            {s.criterion.kind === 'numeric'
              ? <input id={`${id}-v`} name="value" type="number" min="0" max="1" step="any" value={s.adjudication?.value ?? s.gold ?? ''} />
              : (
                <select id={`${id}-v`} name="value" required>
                  {(s.adjudication?.value ?? s.gold) === null && <option value="" selected disabled>—</option>}
                  {choices(s.criterion).map((o) => <option value={o.value} lang={lang} selected={(s.adjudication?.value ?? s.gold) === o.value}>{o.label}</option>)}
                </select>
              )}
            <label class="sr-only" for={`${id}-r`}>{t('field.reason')}</label>
            <input id={`${id}-r`} name="reason" placeholder={t('field.reason')} required value={s.adjudication?.reason ?? ''} />
            <button class="btn small" type="submit">{t('response.set_gold')}</button>
            {error && <p class="error" role="alert">{error}</p>}
          </form>
        </td>
      )}
    </tr>
  );
}

export function ResponsePage({ ctx, dataset, response, slots, annotations, visible, canAdjudicate, canLabel, errors, next }: {
  ctx: PageContext; dataset: DatasetRow; response: ResponseWithSample; slots: Slot[]; annotations: AnnotationRow[];
  visible: boolean; canAdjudicate: boolean; canLabel: boolean; errors?: FieldErrors; next?: number | null;
}) {
  const { t } = ctx;
  const contexts = JSON.parse(response.retrieved_contexts) as string[];
  return (
    <Layout ctx={ctx} title={t('response.title', { id: response.id })} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / <a href={`/datasets/${dataset.id}/disagreements`}>{t('disagree.title')}</a> / #{response.id}</nav>
      <div class="split">
        <div>
          <section class="card">
            <ItemTexts t={t} language={dataset.language} question={response.question} groundTruth={response.ground_truth} answer={response.answer}>
              {response.system && <><dt>{t('field.system')}</dt><dd>{response.system}</dd></>}
            </ItemTexts>
            <div class="actions">
              {canLabel && <a class="btn small" href={`/responses/${response.id}/label`}>{t('response.my_label')}</a>}
              {canAdjudicate && (next ? <a class="btn small primary" rel="next" href={`/responses/${next}`}>{t('fh.next_disagreement')}</a>
                : <a class="btn small" href={`/datasets/${dataset.id}/disagreements`}>{t('disagree.title')}</a>)}
            </div>
          </section>
          <section class="card" aria-labelledby="labels-heading">
            <h2 id="labels-heading">{t('response.labels')}</h2>
            {errors?._form && <div class="alert" role="alert">{errors._form}</div>}
            {!visible ? <p class="hint">{t('response.hidden')}</p> : (
              <table class="table">
                <thead><tr><th scope="col">{t('response.slot')}</th><th scope="col">{t('response.expert_values')}</th><th scope="col">{t('response.gold')}</th>{canAdjudicate && <th scope="col">{t('response.adjudicate')}</th>}</tr></thead>
                <tbody>
                  {slots.map((s) => <SlotRow ctx={ctx} response={response} language={dataset.language} slot={s} canAdjudicate={canAdjudicate} />)}
                </tbody>
              </table>
            )}
          </section>
          {visible && annotations.length > 0 && (
            <section class="card" aria-labelledby="rationales-heading">
              <h2 id="rationales-heading">{t('response.rationales')}</h2>
              {annotations.map((a) => (
                <div class="rationale">
                  <p class="sub">{a.annotator_email} · {a.submitted_at?.slice(0, 16).replace('T', ' ')}</p>
                  {a.rationale && <p lang={proseLang(a.rationale)}>{a.rationale}</p>}
                  {a.corrected_answer && <p><strong>{t('field.corrected_answer')}:</strong> <Prose text={a.corrected_answer} /></p>}
                </div>
              ))}
            </section>
          )}
        </div>
        <aside class="card" aria-labelledby="response-contexts">
          <h2 id="response-contexts">{t('field.retrieved_contexts')}</h2>
          <ol class="contexts" lang={textLang(dataset.language)}>{contexts.map((c) => <li class="context"><p class="context-text" data-highlight>{c}</p></li>)}</ol>
        </aside>
      </div>
    </Layout>
  );
}

export function DisagreementsPage({ ctx, dataset, rows, criteria, page, more }: {
  ctx: PageContext; dataset: DatasetRow; rows: DisagreementRow[]; criteria: Map<number, Criterion>; page: number; more: boolean;
}) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={`${t('disagree.title')} · ${dataset.name}`} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {t('disagree.title')}</nav>
      <h1>{t('disagree.title')}</h1>
      <p class="lead">{t('disagree.lead')}</p>
      {rows.length === 0 ? <p class="empty-row">{t('disagree.none')}</p> : (
        <table class="table">
          <thead><tr><th scope="col">{t('field.question')}</th><th scope="col">{t('field.system')}</th><th scope="col">{t('response.slot')}</th><th scope="col">{t('response.expert_values')}</th></tr></thead>
          <tbody>
            {rows.map((r) => {
              const c = criteria.get(r.criterion_id)!;
              return (
                <tr>
                  <td lang={textLang(dataset.language)}><a href={`/responses/${r.response_id}#c-${r.criterion_id}-${r.context_index}`}>{r.question}</a></td>
                  <td class="sub">{r.system || '—'}</td>
                  <td>{c.name}{r.context_index >= 0 && <span class="sub"> · {t('response.context_n', { n: r.context_index + 1 })}</span>}</td>
                  <td>{(JSON.parse(r.values) as string[]).map((v) => <span class="tag"><ValueLabel criterion={c} value={v} language={dataset.language} /></span>)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <Pager t={t} page={page} more={more} href={(p) => `/datasets/${dataset.id}/disagreements?page=${p}`} />
    </Layout>
  );
}

export type { LabelValueRow };
