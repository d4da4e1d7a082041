// A dataset's metrics: the built-in ones with their prompts (each edit a new version), and custom
// rubric and composite metrics.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, FormError, proseLang, textLang } from '../components.tsx';

/** The language tag of a prompt's texts: its language as saved, or as the form sent it back. */
const promptLang = (language: string): string => textLang(language === 'zh' ? 'zh' : 'en');
import type { FieldErrors } from '../../server/http/forms.ts';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { PromptInUse } from '../../server/judge/types.ts';
import type { PromptVersionRow } from '../../server/judge/prompt-store.ts';
import { MetricSettingsForm, RagasExport, type MetricSettingsView, type RagasExportView } from './metrics-ragas.tsx';
import { LIMITS } from '../../server/limits.ts';

export interface MetricView {
  key: string;
  kind: 'llm' | 'non_llm';
  custom: boolean;
  steps: { step: string; current: PromptInUse; versions: PromptVersionRow[]; shape: string }[];
  /** Its prompts as files for Ragas and its calibrations; null for metrics without prompts Ragas can load. */
  ragas: RagasExportView | null;
  /** Built-in metrics with settings (answer_relevancy's non-committal rule). */
  settings?: MetricSettingsView;
}

/** A prompt edit that was refused: shown again in its step's form, with the reason beside it. */
export interface PromptDraft { metric: string; step: string; fields: Record<string, string> }

export function MetricsPage({ ctx, dataset, metrics, values = {}, errors, draft }: {
  ctx: PageContext; dataset: DatasetRow; metrics: MetricView[]; values?: Record<string, string>; errors?: FieldErrors; draft?: PromptDraft;
}) {
  const { t } = ctx;
  const canWrite = ctx.user?.role === 'admin' || ctx.user?.role === 'expert';
  return (
    <Layout ctx={ctx} title={`${t('metrics.title')} · ${dataset.name}`} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {t('metrics.title')}</nav>
      <h1>{t('metrics.title')}</h1>
      <p class="lead">{t('metrics.lead')}</p>
      {metrics.map((m) => (
        <details class="card metric" id={`m-${m.key}`} open={draft?.metric === m.key || (m.settings !== undefined && errors?.settings !== undefined)}>
          <summary><strong class="mono">{m.key}</strong> {m.custom && <span class="badge">{t('metrics.custom')}</span>} {m.kind === 'non_llm' && <span class="badge">{t('runs.no_llm')}</span>}
            <span class="sub"> {m.steps.map((s) => `${s.step} ${s.current.version === null ? t('runs.default_prompt') : `v${s.current.version}`}`).join(' · ')}</span></summary>
          {m.settings && <MetricSettingsForm ctx={ctx} datasetId={dataset.id} metric={m.key} v={m.settings} canWrite={canWrite} error={errors?.settings} />}
          {m.ragas && <RagasExport ctx={ctx} datasetId={dataset.id} v={m.ragas} />}
          {m.steps.map((s) => {
            const d = draft?.metric === m.key && draft.step === s.step ? draft.fields : undefined;
            return (
            <section class="prompt-step">
              <h3>{s.step} <span class="sub">{s.current.version === null ? t('metrics.default_lang', { lang: t(`lang.${s.current.language}`) }) : t('metrics.version_n', { n: s.current.version })}</span></h3>
              {canWrite ? (
                <form method="post" action={`/datasets/${dataset.id}/prompts`} novalidate>
                  <Csrf token={ctx.csrfToken} />
                  <input type="hidden" name="metric" value={m.key} />
                  <input type="hidden" name="step" value={s.step} />
                  <input type="hidden" name="based_on" value={s.current.version ?? 0} />
                  {d && errors?.prompt && <div class="alert" role="alert">{errors.prompt}</div>}
                  <div class="field"><label for={`i-${m.key}-${s.step}`}>{t('metrics.instruction')}</label>
                    <textarea id={`i-${m.key}-${s.step}`} name="instruction" rows={6} lang={promptLang(d?.language ?? s.current.language)}>{d?.instruction ?? s.current.instruction}</textarea></div>
                  <div class="field"><label for={`o-${m.key}-${s.step}`}>{t('metrics.output_format')}</label>
                    <textarea id={`o-${m.key}-${s.step}`} name="output_format" rows={2} lang={promptLang(d?.language ?? s.current.language)}>{d?.output_format ?? s.current.output_format}</textarea></div>
                  <div class="field"><label for={`e-${m.key}-${s.step}`}>{t('metrics.examples')}</label>
                    <textarea id={`e-${m.key}-${s.step}`} name="examples" rows={6} class="mono" aria-invalid={d && errors?.prompt ? 'true' : undefined}>{d?.examples ?? JSON.stringify(s.current.examples, null, 2)}</textarea>
                    <p class="hint">{t('metrics.examples_hint')}</p><p class="hint mono">{t('examples.shape', { shape: s.shape })}</p></div>
                  <div class="row">
                    <div class="field"><label for={`l-${m.key}-${s.step}`}>{t('field.language')}</label>
                      <select id={`l-${m.key}-${s.step}`} name="language">
                        <option value="zh" selected={(d?.language ?? s.current.language) === 'zh'}>{t('lang.zh')}</option>
                        <option value="en" selected={(d?.language ?? s.current.language) === 'en'}>{t('lang.en')}</option>
                      </select></div>
                    <div class="field"><label for={`n-${m.key}-${s.step}`}>{t('metrics.note')}</label>
                      <input id={`n-${m.key}-${s.step}`} name="note" maxLength={LIMITS.promptNote} value={d?.note ?? ''} /></div>
                  </div>
                  <button class="btn small primary" type="submit">{t('metrics.save_version')}</button>
                </form>
              ) : <pre class="mono">{s.current.instruction}</pre>}
              {s.versions.length > 0 && (
                <table class="table compact">
                  <thead><tr><th scope="col">{t('samples.version')}</th><th scope="col">{t('audit.who')}</th><th scope="col">{t('audit.when')}</th><th scope="col">{t('metrics.note')}</th></tr></thead>
                  <tbody>{s.versions.map((v) => <tr><td>v{v.version}</td><td>{v.creator_email ?? '—'}</td><td class="sub nowrap">{v.created_at.slice(0, 16).replace('T', ' ')}</td><td lang={proseLang(v.note)}>{v.note}</td></tr>)}</tbody>
                </table>
              )}
            </section>
            );
          })}
          {m.steps.length === 0 && <p class="sub">{t('metrics.no_prompts')}</p>}
        </details>
      ))}
      {canWrite && (
        <section class="card" aria-labelledby="new-metric">
          <h2 id="new-metric">{t('metrics.new')}</h2>
          <form method="post" action={`/datasets/${dataset.id}/metrics`} novalidate>
            <Csrf token={ctx.csrfToken} />
            <FormError errors={errors} />
            <div class="row">
              <Field name="key" label={t('metrics.key')} errors={errors} hint={t('hint.criterion_name')}>
                <input id="f-key" name="key" required maxLength={LIMITS.metricKey} value={values.key ?? ''} />
              </Field>
              <Field name="kind" label={t('field.kind')} errors={errors}>
                <select id="f-kind" name="kind">
                  <option value="custom" selected={values.kind !== 'composite'}>{t('metrics.kind_custom')}</option>
                  <option value="composite" selected={values.kind === 'composite'}>{t('metrics.kind_composite')}</option>
                </select>
              </Field>
              <Field name="output" label={t('metrics.output')} errors={errors}>
                <select id="f-output" name="output">
                  {(['binary', 'categorical', 'scale_1_5', 'score_0_1'] as const).map((o) => <option value={o} selected={values.output === o}>{t(`metrics.output_${o}`)}</option>)}
                </select>
              </Field>
            </div>
            <Field name="instruction" label={t('metrics.rubric')} errors={errors} hint={t('metrics.rubric_hint')}>
              <textarea id="f-instruction" name="instruction" rows={6}>{values.instruction ?? ''}</textarea>
            </Field>
            <div class="row">
              <Field name="categories" label={t('metrics.categories')} errors={errors} hint={t('metrics.categories_hint')}>
                <textarea id="f-categories" name="categories" rows={3}>{values.categories ?? ''}</textarea>
              </Field>
              <Field name="components" label={t('metrics.components')} errors={errors} hint={t('metrics.components_hint')}>
                <textarea id="f-components" name="components" rows={3}>{values.components ?? ''}</textarea>
              </Field>
            </div>
            <button class="btn primary" type="submit">{t('metrics.create')}</button>
          </form>
        </section>
      )}
    </Layout>
  );
}
