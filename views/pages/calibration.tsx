// The calibration report: one criterion against one run's scores, with intervals, n's and pictures.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf } from '../components.tsx';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import { choices } from '../../server/criteria/values.ts';
import type { RunRow } from '../../server/judge/run-queries.ts';
import { EvalSetLine } from './run-eval-set.tsx';
import { evalSetOf } from '../../server/releases/service.ts';
import type { CalibrationReport } from '../../server/calibration/report.ts';
import type { Part } from '../../server/calibration/service.ts';
import { BestThresholdButton, CalibrationSuggestions, type SuggestionsView } from './calibration-suggest.tsx';
import { HoldoutLookNote, type HoldoutLookView } from './holdout-looks.tsx';
import { binaryConfusionMatrix, ConfusionHeatmap, KappaThresholdChart, ScoreByLabelChart, ScoreHistogram, type ChartPoint } from '../charts.tsx';
import type { Html } from '../jsx-runtime.ts';

export interface ReportState { criterion: Criterion; run: RunRow; part: Part; threshold: number }

const onGrid = (x: number) => Math.abs(x * 20 - Math.round(x * 20)) < 1e-9;

function fmt(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined ? '—' : v.toFixed(digits);
}

function Figure({ ctx, name, value, report, pct }: { ctx: PageContext; name: string; value: number | null; report: CalibrationReport; pct?: boolean }) {
  const ci = report.ci95[name];
  const n = report.figure_n[name] ?? report.n;
  const show = (v: number) => (pct ? `${(100 * v).toFixed(1)}%` : v.toFixed(3));
  return (
    <tr>
      <th scope="row">{ctx.t(`calib.fig_${name}` as 'calib.fig_pearson')}</th>
      <td class="num strong">{value === null ? '—' : show(value)}</td>
      <td class="num sub">{ci ? `${show(ci[0])} – ${show(ci[1])}` : '—'}</td>
      <td class="num sub">{n}</td>
    </tr>
  );
}

export function ReportBody({ ctx, dataset, state, report, points, curve, looks = null, lead }: {
  ctx: PageContext; dataset: DatasetRow; state: ReportState; report: CalibrationReport; points: ChartPoint[];
  curve: { threshold: number; kappa: number | null }[] | null; looks?: HoldoutLookView | null;
  /** What leads the report: the true-score section (views/pages/estimate.tsx). */
  lead?: Html | null;
}) {
  const { t } = ctx;
  const c = state.criterion;
  const groups = choices(c).length ? choices(c).map((o) => ({ value: o.value, label: o.label })) : [...new Set(points.map((p) => p.gold))].sort().map((v) => ({ value: v, label: v }));
  const excluded = Object.entries(report.excluded).filter(([, n]) => n > 0);
  const binary = report.kind === 'binary' ? report : null;
  return (
    <div id="report" aria-live="polite">
      <EvalSetLine ctx={ctx} datasetId={state.run.dataset_id} release={evalSetOf(state.run.selection)} />
      {lead}
      <p><a class="btn small" href={`/runs/${state.run.id}/review?criterion=${state.criterion.id}&part=${state.part}&threshold=${state.threshold}`}>{t('calib.review')}</a></p>
      {!report.meaningful && <div class="alert" role="status">{t('calib.not_meaningful', { n: report.n })}</div>}
      {looks && <HoldoutLookNote ctx={ctx} looks={looks} />}
      <div class="split">
        <section class="card" aria-labelledby="figures">
          <h2 id="figures">{t('calib.figures')} <span class="sub">n = {report.n}</span></h2>
          <p class="sub">{excluded.length ? t('calib.excluded', { list: excluded.map(([k, n]) => `${t(`calib.ex_${k}` as 'calib.ex_no_gold_label')} ${n}`).join(' · ') }) : t('calib.none_excluded')}</p>
          <table class="table figures">
            <thead><tr><th scope="col">{t('calib.figure')}</th><th scope="col" class="num">{t('calib.value')}</th><th scope="col" class="num">{t('calib.ci')}</th><th scope="col" class="num">n</th></tr></thead>
            <tbody>
              {binary && <>
                <Figure ctx={ctx} name="cohen_kappa" value={binary.cohen_kappa} report={report} />
                <Figure ctx={ctx} name="accuracy" value={binary.accuracy} report={report} pct />
                <Figure ctx={ctx} name="precision" value={binary.precision} report={report} pct />
                <Figure ctx={ctx} name="recall" value={binary.recall} report={report} pct />
                <Figure ctx={ctx} name="f1" value={binary.f1} report={report} />
                <Figure ctx={ctx} name="roc_auc" value={binary.roc_auc} report={report} />
                <Figure ctx={ctx} name="coverage" value={binary.coverage} report={report} pct />
                <Figure ctx={ctx} name="false_failure_rate" value={binary.false_failure_rate} report={report} pct />
                <Figure ctx={ctx} name="alignment" value={binary.alignment} report={report} />
              </>}
              {report.kind === 'ordinal' && <Figure ctx={ctx} name="quadratic_kappa" value={report.quadratic_kappa} report={report} />}
              {report.kind === 'categorical' && <Figure ctx={ctx} name="categorical_kappa" value={report.categorical.kappa} report={report} />}
              <Figure ctx={ctx} name="spearman" value={report.spearman} report={report} />
              <Figure ctx={ctx} name="kendall_tau_b" value={report.kendall_tau_b} report={report} />
              <Figure ctx={ctx} name="pearson" value={report.pearson} report={report} />
              <Figure ctx={ctx} name="mae" value={report.mae} report={report} />
              <Figure ctx={ctx} name="rmse" value={report.rmse} report={report} />
            </tbody>
          </table>
          {binary && <p class="sub best-threshold">{t('calib.best_threshold', { t: fmt(binary.best_threshold, 2), k: fmt(binary.best_threshold_kappa) })}{' '}
            <BestThresholdButton ctx={ctx} dataset={dataset} state={state} best={binary.best_threshold} /></p>}
          {report.notes.length > 0 && <p class="sub">{t('calib.notes')} {report.notes.map((n) => <span class="tag">{t(`calib.note_${n}` as 'calib.note_too_few_items')}</span>)}</p>}
        </section>
        <section class="card charts" aria-label={t('calib.pictures')}>
          <h3 class="chart-title">{t('calib.chart_confusion')}</h3>
          {binary && <ConfusionHeatmap matrix={binaryConfusionMatrix(binary.confusion)} rowLabels={[t('calib.expert_pass'), t('calib.expert_fail')]}
            colLabels={[t('calib.judge_pass'), t('calib.judge_fail')]} labels={{ title: t('calib.chart_confusion'), rows: t('calib.expert'), columns: t('calib.judge') }} />}
          {report.kind === 'categorical' && report.categorical.matrix && <ConfusionHeatmap matrix={report.categorical.matrix} rowLabels={report.categorical.categories}
            colLabels={report.categorical.categories} labels={{ title: t('calib.chart_confusion'), rows: t('calib.expert'), columns: t('calib.judge') }} />}
        </section>
      </div>
      <div class="chart-grid">
        <section class="card"><h3 class="chart-title">{t('calib.chart_scatter')}</h3><ScoreByLabelChart points={points} groups={groups} threshold={binary ? state.threshold : null}
          labels={{ title: t('calib.chart_scatter'), xAxis: t('calib.expert_label'), yAxis: t('calib.judge_score'), threshold: t('calib.threshold') }} /></section>
        <section class="card"><h3 class="chart-title">{t('calib.chart_hist')}</h3><ScoreHistogram points={points} groups={groups} relative
          labels={{ title: t('calib.chart_hist'), xAxis: t('calib.judge_score'), yAxis: t('calib.share') }} /></section>
        {binary && curve && <section class="card"><h3 class="chart-title">{t('calib.chart_kappa')}</h3><KappaThresholdChart curve={curve} threshold={state.threshold}
          best={binary.best_threshold !== null && binary.best_threshold_kappa !== null ? { threshold: binary.best_threshold, kappa: binary.best_threshold_kappa } : null}
          labels={{ title: t('calib.chart_kappa'), xAxis: t('calib.threshold'), yAxis: 'κ', current: t('calib.current'), best: t('calib.best') }} /></section>}
      </div>
      <form method="post" action={`/datasets/${dataset.id}/calibration/record`} class="actions">
        <Csrf token={ctx.csrfToken} />
        <input type="hidden" name="criterion" value={c.id} />
        <input type="hidden" name="run" value={state.run.id} />
        <input type="hidden" name="part" value={state.part} />
        <input type="hidden" name="threshold" value={state.threshold} />
        <button class="btn primary" type="submit">{t('calib.record')}</button>
        <span class="hint">{t('calib.record_hint')}</span>
      </form>
    </div>
  );
}

export function CalibrationPage({ ctx, dataset, criteria, runs, state, body, suggestions = null, contextsHref }: {
  ctx: PageContext; dataset: DatasetRow; criteria: Criterion[]; runs: RunRow[]; state: ReportState | null; body: Html | null;
  suggestions?: SuggestionsView | null;
  /** The per-context report, when the dataset has per-context criteria. */
  contextsHref?: string | undefined;
}) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={`${t('calib.title')} · ${dataset.name}`} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {t('calib.title')}</nav>
      <h1>{t('calib.title')}</h1>
      <p class="lead">{t('calib.lead')}</p>
      {contextsHref && <p><a class="btn small" href={contextsHref}>{t('ctx.link')}</a></p>}
      {!state ? <p class="empty-row">{t('calib.nothing')}</p> : (
        <form class="filters card" method="get" action={`/datasets/${dataset.id}/calibration`} hx-get={`/datasets/${dataset.id}/calibration`}
          hx-target="#report" hx-swap="outerHTML" hx-push-url="true" hx-sync="this:replace" hx-trigger={'change, input from:"find input[type=range]" delay:250ms'}>
          <label for="f-criterion">{t('calib.criterion')}</label>
          <select id="f-criterion" name="criterion">{criteria.map((c) => <option value={c.id} selected={c.id === state.criterion.id}>{c.name}</option>)}</select>
          <label for="f-run">{t('calib.run')}</label>
          <select id="f-run" name="run">{runs.map((r) => <option value={r.id} selected={r.id === state.run.id}>{`${r.name} · ${r.metric_key}`}</option>)}</select>
          <label for="f-part">{t('calib.part')}</label>
          <select id="f-part" name="part">{(['calibration', 'held_out', 'all'] as const).map((p) => <option value={p} selected={p === state.part}>{t(`calib.part_${p}`)}</option>)}</select>
          {state.criterion.kind === 'binary' && <span class="threshold-group">
            <label for="f-threshold">{t('calib.threshold')}</label>
            {/* 0.05 steps for the keys; any value (e.g. the best threshold 0.44) when the page is opened at one. */}
            <input id="f-threshold" name="threshold" type="range" min="0" max="1" step={onGrid(state.threshold) ? '0.05' : 'any'} value={state.threshold} class="threshold" />
            <output for="f-threshold" id="threshold-value">{state.threshold.toFixed(2)}</output>
          </span>}
          <noscript><button class="btn small" type="submit">{t('action.apply')}</button></noscript>
        </form>
      )}
      {state && suggestions && <CalibrationSuggestions ctx={ctx} dataset={dataset} state={state} view={suggestions} />}
      {body}
    </Layout>
  );
}
