// Scoring runs: the list and the form that starts one, a run's live progress and scores, and one score's trace.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, FormError, Pager, proseLang, textLang } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import { LIMITS } from '../../server/limits.ts';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { RunRow, RunSummary, ScoreRow } from '../../server/judge/run-queries.ts';
import type { Trace, TraceStep } from '../../server/judge/types.ts';
import { boundTrace } from '../../server/judge/stored-trace.ts';
import { TraceCut } from '../trace-cut.tsx';
import { isContextPrecisionMetric } from '../../server/calibration/context-service.ts';
import type { T } from '../../server/i18n/index.ts';
import { scoreReason } from '../../server/judge/score-reasons.ts';
import { RunPlanTable, type RunPlanView } from './run-plan.tsx';
import { HoldoutLookNote, type HoldoutLookView } from './holdout-looks.tsx';

/** A score's reason: why an unscored item has no value, in words (its code on hover), or a rubric judge's own explanation as it wrote it. */
function Reason({ t, status, reason }: { t: T; status: string; reason: string | null }) {
  const words = scoreReason(t, status, reason);
  return words === null ? <>{reason ?? ''}</> : <span title={reason ?? undefined}>{words}</span>;
}

/**
 * A trace step's name as a reader needs it: answer_correctness asks for statements twice, the answer's
 * first and the ground truth's second (its trace keeps that order); faithfulness's are the answer's.
 */
export function stepTitle(t: T, metricKey: string, steps: readonly TraceStep[], i: number): string {
  const step = steps[i]!;
  if (step.step !== 'statements') return step.step;
  const nth = steps.slice(0, i).filter((s) => s.step === 'statements').length;
  const whose = metricKey === 'answer_correctness' && nth === 1 ? 'fh.statements_truth' : 'fh.statements_answer';
  return `${step.step} · ${t(whose)}`;
}
import { EvalSetField, EvalSetLine } from './run-eval-set.tsx';
import { evalSetOf } from '../../server/releases/service.ts';
import { computationIn } from '../../server/judge/computation.ts';

export interface RunListItem { run: RunRow; summary: RunSummary }

function fmt(v: number | null, digits = 3): string {
  return v === null ? '—' : v.toFixed(digits);
}

function Crumbs({ ctx, dataset, tail }: { ctx: PageContext; dataset: DatasetRow; tail?: string }) {
  const { t } = ctx;
  return (
    <nav class="crumbs" aria-label={t('nav.breadcrumbs')}>
      <a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / <a href={`/datasets/${dataset.id}/runs`}>{t('runs.title')}</a>{tail ? ` / ${tail}` : ''}
    </nav>
  );
}

export function RunProgress({ ctx, run, summary, cost }: { ctx: PageContext; run: RunRow; summary: RunSummary; cost: number }) {
  const { t } = ctx;
  const done = summary.scored + summary.errored + summary.skipped;
  const live = run.status === 'running' || run.status === 'queued';
  return (
    <div id="run-progress" class="card" {...(live ? { 'hx-get': `/runs/${run.id}/progress`, 'hx-trigger': 'every 1s', 'hx-swap': 'outerHTML', 'data-background': true } : {})}>
      <div class="ws-progress">
        <progress max={run.n_total || 1} value={done} aria-label={t('runs.progress')} />
        <span>{t('runs.progress_text', { done, total: run.n_total })}</span>
        <span class={`badge run-${run.status}`}>{t(`runs.status_${run.status}`)}</span>
      </div>
      <dl class="kv stats">
        <dt>{t('runs.mean')}</dt><dd><strong>{fmt(summary.mean)}</strong> <span class="sub">{t('runs.mean_n', { n: summary.scored })}</span></dd>
        <dt>{t('runs.errored')}</dt><dd>{summary.errored}</dd>
        <dt>{t('runs.skipped')}</dt><dd>{summary.skipped}</dd>
        <dt>{t('runs.calls')}</dt><dd>{t('runs.calls_text', { calls: run.llm_calls, cached: run.cached_calls })}</dd>
        <dt>{t('runs.tokens')}</dt><dd>{t('runs.tokens_text', { prompt: run.prompt_tokens, completion: run.completion_tokens })}{cost > 0 ? ` · ≈ $${cost.toFixed(4)}` : ''}</dd>
      </dl>
      {summary.reasons.length > 0 && (
        <p class="sub">{t('runs.why_left_out')} {summary.reasons.map((r) => <span class="tag" title={r.reason}>{t('runs.left_out_tag', { status: t(`runs.status_${r.status}` as 'runs.status_done'), reason: scoreReason(t, r.status, r.reason) ?? r.reason, n: r.n })}</span>)}</p>
      )}
      {run.error && <div class="alert" role="alert">{run.error}</div>}
      {live && (
        <form method="post" action={`/runs/${run.id}/cancel`} class="inline">
          <Csrf token={ctx.csrfToken} />
          <button class="btn small" type="submit">{t('runs.cancel')}</button>
        </form>
      )}
    </div>
  );
}

export function RunsPage({ ctx, dataset, runs, metrics, systems, values = {}, errors, judgeReady, showArchived, plan, releases }: {
  ctx: PageContext; dataset: DatasetRow; runs: RunListItem[]; metrics: { key: string; kind: string; suggested?: boolean }[]; systems: readonly string[];
  values?: Record<string, string>; errors?: FieldErrors; judgeReady: boolean; showArchived: boolean; plan: RunPlanView;
  /** Tags of the dataset's releases, newest first: a run can be limited to one. */
  releases?: string[];
}) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={`${t('runs.title')} · ${dataset.name}`} wide>
      <Crumbs ctx={ctx} dataset={dataset} />
      <div class="page-head">
        <h1>{t('runs.title')}</h1>
        <a class="btn ghost small" href={showArchived ? `/datasets/${dataset.id}/runs` : `/datasets/${dataset.id}/runs?archived=1`}>
          {showArchived ? t('fh.hide_archived_runs') : t('fh.show_archived_runs')}</a>
      </div>
      {!judgeReady && <p class="alert">{t('runs.no_judge')} {ctx.user?.role === 'admin' && <a href="/settings/judge">{t('judge.settings_title')}</a>}</p>}
      {runs.length === 0 ? <p class="empty-row">{t('runs.none')}</p> : (
        <table class="table">
          <thead><tr><th scope="col">{t('fh.col_run')}</th><th scope="col">{t('runs.metric')}</th><th scope="col">{t('field.status')}</th>
            <th scope="col" class="num">{t('runs.mean')}</th><th scope="col" class="num">{t('runs.scored')}</th><th scope="col" class="num">{t('runs.errored')}</th>
            <th scope="col" class="num">{t('runs.skipped')}</th><th scope="col">{t('runs.model')}</th></tr></thead>
          <tbody>
            {runs.map(({ run, summary }) => (
              <tr>
                <td><a href={`/runs/${run.id}`}>{run.name}</a>{run.source === 'imported' && <span class="badge nowrap">{t('runs.imported')}</span>}
                  {run.archived === 1 && <span class="badge nowrap">{t('datasets.archived')}</span>}</td>
                <td class="mono">{run.metric_key}</td>
                <td><span class={`badge nowrap run-${run.status}`}>{t(`runs.status_${run.status}`)}</span></td>
                <td class="num">{fmt(summary.mean)}</td>
                <td class="num">{summary.scored}</td>
                <td class="num">{summary.errored}</td>
                <td class="num">{summary.skipped}</td>
                <td class="sub">{run.model || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <section class="card" aria-labelledby="new-run">
        <h2 id="new-run">{t('runs.new')}</h2>
        <form method="post" action={`/datasets/${dataset.id}/runs`} novalidate>
          <Csrf token={ctx.csrfToken} />
          <FormError errors={errors} />
          <div class="row">
            <Field name="metric" label={t('runs.metric')} errors={errors}>
              <select id="f-metric" name="metric">
                {metrics.map((m) => <option value={m.key} selected={values.metric === m.key}>{`${m.key}${m.kind === 'non_llm' ? ` (${t('runs.no_llm')})` : ''}${m.suggested ? ` · ${t('ragas.suggested_zh')}` : ''}`}</option>)}
              </select>
            </Field>
            <Field name="name" label={t('runs.name')} errors={errors} hint={t('runs.name_hint')}>
              <input id="f-name" name="name" maxLength={LIMITS.runName} value={values.name ?? ''} />
            </Field>
          </div>
          <div class="row">
            <EvalSetField ctx={ctx} releases={releases ?? []} value={values.release} errors={errors} />
            <Field name="system" label={t('field.system')} errors={errors}>
              <select id="f-system" name="system">
                <option value="">{t('runs.all_systems')}</option>
                {systems.map((s) => <option value={s} selected={values.system === s}>{s || '—'}</option>)}
              </select>
            </Field>
            <Field name="prompt_version" label={t('runs.prompt_version')} errors={errors} hint={t('runs.prompt_version_hint')}>
              <input id="f-prompt_version" name="prompt_version" type="number" min="0" value={values.prompt_version ?? ''} />
            </Field>
            <Field name="concurrency" label={t('judge.concurrency')} errors={errors}>
              <input id="f-concurrency" name="concurrency" type="number" min="1" max="256" value={values.concurrency ?? '16'} />
            </Field>
          </div>
          <RunPlanTable ctx={ctx} plan={plan} />
          <button class="btn primary" type="submit">{t('runs.start')}</button>
        </form>
      </section>
    </Layout>
  );
}

export interface ScoresList {
  ctx: PageContext; run: RunRow; scores: (ScoreRow & { question: string; system: string })[]; page: number; more: boolean; status: string;
  /** The dataset's language, of the questions listed (textLang). */
  language: 'zh' | 'en';
}

/** The run's scores, one page; it reloads itself when the live progress reports the run finished. */
export function ScoresSection({ ctx, run, scores, page, more, status, language }: ScoresList) {
  const { t } = ctx;
  const lang = textLang(language);
  const q = (p: number, s = status) => `/runs/${run.id}?page=${p}${s ? `&status=${s}` : ''}`;
  return (
    <section id="scores" aria-labelledby="scores-heading" hx-get={q(page)} hx-trigger="run-finished" hx-swap="outerHTML">
      <div class="page-head">
        <h2 id="scores-heading">{t('runs.scores')}</h2>
        <nav class="actions" aria-label={t('runs.filter')}>
          {['', 'ok', 'error', 'skipped'].map((s) => <a class={s === status ? 'btn small primary' : 'btn small'} href={q(1, s)}>{s ? t(`runs.status_${s}` as 'runs.status_done') : t('audit.all')}</a>)}
        </nav>
      </div>
      {scores.length === 0 ? <p class="empty-row">{t('fh.no_scores_yet')}</p> : (
        <table class="table">
          <thead><tr><th scope="col" class="num">#</th><th scope="col">{t('field.question')}</th><th scope="col">{t('field.system')}</th><th scope="col">{t('field.status')}</th><th scope="col" class="num">{t('runs.score')}</th><th scope="col">{t('runs.reason')}</th></tr></thead>
          <tbody>
            {scores.map((s) => (
              <tr>
                <td class="num sub">{s.response_id}</td>
                <td lang={lang}><a href={`/runs/${run.id}/scores/${s.response_id}`}>{s.question}</a></td>
                <td class="sub">{s.system || '—'}</td>
                <td><span class={`badge nowrap score-${s.status}`}>{t(`runs.status_${s.status}` as 'runs.status_done')}</span></td>
                <td class="num">{fmt(s.value)}</td>
                <td class="sub"><Reason t={t} status={s.status} reason={s.reason} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager t={t} page={page} more={more} href={q} />
    </section>
  );
}

export function RunPage({ ctx, dataset, run, summary, cost, scores, page, more, status, looks }: ScoresList & {
  dataset: DatasetRow; summary: RunSummary; cost: number; looks?: HoldoutLookView | null;
}) {
  const { t } = ctx;
  const versions = (JSON.parse(run.prompts) as { versions?: Record<string, number | null> }).versions ?? {};
  return (
    <Layout ctx={ctx} title={`${run.name} · ${run.metric_key}`} wide>
      <Crumbs ctx={ctx} dataset={dataset} tail={run.name} />
      <h1>{run.name} <span class="badge mono">{run.metric_key}</span>{run.source === 'imported' && <span class="badge">{t('runs.imported')}</span>}
        {run.archived === 1 && <span class="badge">{t('datasets.archived')}</span>}</h1>
      <EvalSetLine ctx={ctx} datasetId={dataset.id} release={evalSetOf(run.selection)} />
      <p class="sub">
        {run.model && `${t('runs.model')}: ${run.model}`}{run.embedding_model && ` · ${run.embedding_model}`}
        {Object.keys(versions).length > 0 && ` · ${t('runs.prompts')}: ${Object.entries(versions).map(([k, v]) => `${k} ${v === null ? t('runs.default_prompt') : `v${v}`}`).join(', ')}`}
      </p>
      {looks && <HoldoutLookNote ctx={ctx} looks={looks} />}
      <RunProgress ctx={ctx} run={run} summary={summary} cost={cost} />
      <div class="actions">
        <a class="btn small primary" href={`/runs/${run.id}/review`}>{t('review.open')}</a>
        {isContextPrecisionMetric(run.metric_key) && <a class="btn small" href={`/runs/${run.id}/review/contexts`}>{t('ctx.review')}</a>}
        <a class="btn small" href={`/datasets/${dataset.id}/calibration?run=${run.id}`}>{t('calib.title')}</a>
        {ctx.user && ctx.user.role !== 'viewer' && (
          <form method="post" action={`/runs/${run.id}/archive`} class="inline">
            <Csrf token={ctx.csrfToken} />
            <input type="hidden" name="archived" value={run.archived === 1 ? '0' : '1'} />
            <button class="btn small ghost" type="submit">{t(run.archived === 1 ? 'fh.unarchive_run' : 'fh.archive_run')}</button>
          </form>
        )}
      </div>
      <ScoresSection ctx={ctx} run={run} scores={scores} page={page} more={more} status={status} language={dataset.language} />
    </Layout>
  );
}

function Json({ value }: { value: unknown }) {
  return <pre class="mono trace-json" tabIndex={0}>{JSON.stringify(value, null, 2)}</pre>;
}

export function TracePage({ ctx, dataset, run, score, item }: {
  ctx: PageContext; dataset: DatasetRow; run: RunRow; score: ScoreRow;
  item: { question: string; answer: string; ground_truth: string; retrieved_contexts: string[] };
}) {
  const { t } = ctx;
  // Cut to the limits on display too: traces stored before the limits existed may hold whole 10 MB replies.
  const trace = boundTrace((score.trace ? JSON.parse(score.trace) : { steps: [], computation: '' }) as Trace);
  const lang = textLang(dataset.language);
  return (
    <Layout ctx={ctx} title={`${t('trace.title')} · ${run.name}`} wide>
      <Crumbs ctx={ctx} dataset={dataset} tail={`${run.name} / #${score.response_id}`} />
      <h1>{t('trace.title')} <span class="badge mono">{run.metric_key}</span></h1>
      <div class="split">
        <div>
          <section class="card">
            <p><span class={`badge score-${score.status}`}>{t(`runs.status_${score.status}` as 'runs.status_done')}</span> <strong class="big">{fmt(score.value, 4)}</strong> {score.reason && <span class="sub"><Reason t={t} status={score.status} reason={score.reason} /></span>}</p>
            {trace.computation && <p class="computation">{computationIn(trace, t)}</p>}
            {trace.values && <details><summary>{t('trace.values')}</summary><Json value={trace.values} /></details>}
          </section>
          {trace.steps.map((step, i) => (
            <section class="card trace-step" aria-labelledby={`trace-step-${i}`}>
              <h2 id={`trace-step-${i}`}>{i + 1}. {stepTitle(t, run.metric_key, trace.steps, i)} <span class="sub">{step.prompt_version === null ? t('runs.default_prompt') : `v${step.prompt_version}`}</span>
                {step.cached && <span class="badge">{t('trace.cached')}</span>}{step.error && <span class="badge score-error">{t('runs.status_error')}</span>}</h2>
              <details><summary>{t('trace.prompt')}</summary>
                {step.messages.map((m) => <div class="message"><p class="sub">{m.role}</p><pre class="mono" tabIndex={0} lang={proseLang(m.content)}>{m.content}</pre></div>)}
                <TraceCut ctx={ctx} step={step} part="messages" />
              </details>
              <h3>{t('trace.raw')}</h3>
              <pre class="mono" tabIndex={0} lang={step.raw ? proseLang(step.raw) : undefined}>{step.raw ?? '—'}</pre>
              <TraceCut ctx={ctx} step={step} part="raw" />
              <h3>{t('trace.parsed')}</h3>
              <Json value={step.parsed} />
              <TraceCut ctx={ctx} step={step} part="parsed" />
              {step.error && <div class="alert">{step.error}</div>}
            </section>
          ))}
        </div>
        <aside class="card" aria-labelledby="trace-item">
          <h2 id="trace-item">{t('field.question')}</h2><p lang={lang}>{item.question}</p>
          <h2>{t('field.ground_truth')}</h2>{item.ground_truth ? <p lang={lang}>{item.ground_truth}</p> : <p>—</p>}
          <h2>{t('field.answer')}</h2><p class="answer" lang={lang}>{item.answer}</p>
          <h2>{t('field.retrieved_contexts')}</h2>
          <ol class="contexts" lang={lang}>{item.retrieved_contexts.map((c) => <li class="context"><p class="context-text">{c}</p></li>)}</ol>
        </aside>
      </div>
    </Layout>
  );
}
