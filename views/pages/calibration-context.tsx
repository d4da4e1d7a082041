// The per-context calibration report: the judge's verdict on each retrieved context against the experts',
// with intervals from a bootstrap over responses, agreement by rank, and context precision per response.
import { Layout, type PageContext } from '../layout.tsx';
import type { MessageKey } from '../../server/i18n/index.ts';
import { Csrf } from '../components.tsx';
import type { ContextReport, RankRow } from '../../server/calibration/report-context.ts';
import { RANKS } from '../../server/calibration/report-context.ts';
import type { Part } from '../../server/calibration/service.ts';
import type { Interval } from '../../server/calibration/report.ts';
import { binaryConfusionMatrix, ConfusionHeatmap } from '../charts.tsx';
import { AgreementByRankChart, ItemScatterChart, RelevanceByRankChart, type RankBar } from '../charts-context.tsx';

export interface ContextReportModel {
  datasetId: number; criterionId: number; runId: number; part: Part;
  report: ContextReport;
  reviewHref: string;
}

export interface ContextPageModel {
  dataset: { id: number; name: string };
  criteria: { id: number; name: string }[];
  runs: { id: number; label: string }[];
  state: { criterionId: number; runId: number; part: Part } | null;
  body: ContextReportModel | null;
}

const PARTS: Part[] = ['calibration', 'held_out', 'all'];

function num(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined ? '—' : v.toFixed(digits);
}
const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${(100 * v).toFixed(1)}%`);
const interval = (ci: Interval | null | undefined, show: (v: number) => string) => (ci ? `${show(ci[0])} – ${show(ci[1])}` : '—');

/** Figures whose response-level names speak of pass/fail: here the positive class is "relevant". */
const CONTEXT_NAMES: Partial<Record<string, MessageKey>> = {
  precision: 'ctx.fig_precision', recall: 'ctx.fig_recall', f1: 'ctx.fig_f1', coverage: 'ctx.fig_coverage', false_failure_rate: 'ctx.fig_false_failure_rate',
};

function FigureRow({ ctx, name, value, report, asPct }: { ctx: PageContext; name: string; value: number | null; report: ContextReport; asPct?: boolean }) {
  const show = (v: number) => (asPct ? pct(v) : v.toFixed(3));
  return (
    <tr>
      <th scope="row">{ctx.t(CONTEXT_NAMES[name] ?? (`calib.fig_${name}` as MessageKey))}</th>
      <td class="num strong">{value === null ? '—' : show(value)}</td>
      <td class="num sub">{interval(report.ci95[name], show)}</td>
      <td class="num sub">{report.figure_n[name] ?? report.n}</td>
    </tr>
  );
}

function rankLabel(row: RankRow): string {
  return row.rank === RANKS ? `${row.rank}+` : String(row.rank);
}

function ByRank({ ctx, rows }: { ctx: PageContext; rows: RankRow[] }) {
  const { t } = ctx;
  const bars: RankBar[] = rows.map((r) => ({ rank: r.rank, label: rankLabel(r), n: r.n, gold: r.gold_rate, judge: r.judge_rate, kappa: r.kappa, accuracy: r.accuracy }));
  return (
    <section class="card" aria-labelledby="by-rank">
      <h2 id="by-rank">{t('ctx.by_rank')}</h2>
      <p class="sub">{t('ctx.by_rank_lead', { last: RANKS })}</p>
      {rows.length === 0 ? <p class="sub">{t('ctx.none_counted')}</p> : <>
        <div class="chart-grid">
          <div><h3 class="chart-title">{t('ctx.chart_rates')}</h3><RelevanceByRankChart rows={bars}
            labels={{ title: t('ctx.chart_rates'), xAxis: t('ctx.rank'), yAxis: t('ctx.share'), gold: t('ctx.gold_rate'), judge: t('ctx.judge_rate') }} /></div>
          <div><h3 class="chart-title">{t('ctx.chart_agreement')}</h3><AgreementByRankChart rows={bars}
            labels={{ title: t('ctx.chart_agreement'), xAxis: t('ctx.rank'), yAxis: t('ctx.agreement'), kappa: t('calib.fig_cohen_kappa'), accuracy: t('calib.fig_accuracy') }} /></div>
        </div>
        <table class="table figures by-rank">
          <thead><tr>
            <th scope="col">{t('ctx.rank')}</th><th scope="col" class="num">n</th><th scope="col" class="num">{t('calib.fig_cohen_kappa')}</th>
            <th scope="col" class="num">{t('calib.fig_accuracy')}</th><th scope="col" class="num">{t('ctx.gold_rate')}</th><th scope="col" class="num">{t('ctx.judge_rate')}</th>
          </tr></thead>
          <tbody>{rows.map((r) => (
            <tr><th scope="row">{rankLabel(r)}</th><td class="num">{r.n}</td><td class="num strong">{num(r.kappa)}</td><td class="num">{pct(r.accuracy)}</td>
              <td class="num">{pct(r.gold_rate)}</td><td class="num">{pct(r.judge_rate)}</td></tr>
          ))}</tbody>
        </table>
      </>}
    </section>
  );
}

function ItemLevelCard({ ctx, report }: { ctx: PageContext; report: ContextReport }) {
  const { t } = ctx;
  const item = report.item_level;
  const apart = ([
    ['ctx.apart_no_relevant', item.no_relevant], ['ctx.apart_partial_gold', item.partial_gold], ['ctx.apart_no_gold', item.no_gold],
    ['ctx.apart_judge_error', item.judge_error], ['ctx.apart_no_score', item.no_score],
  ] as const).filter(([, n]) => n > 0);
  const row = (name: 'pearson' | 'spearman' | 'mae') => (
    <tr><th scope="row">{t(`calib.fig_${name}`)}</th><td class="num strong">{num(item[name])}</td><td class="num sub">{interval(item.ci95[name], (v) => v.toFixed(3))}</td><td class="num sub">{item.n}</td></tr>
  );
  return (
    <section class="card" aria-labelledby="item-level">
      <h2 id="item-level">{t('ctx.item_level')} <span class="sub">{t('ctx.item_n', { n: item.n })}</span></h2>
      <p class="sub">{t('ctx.item_lead')}</p>
      <div class="chart-grid">
        <div>
          <table class="table figures item-level">
            <thead><tr><th scope="col">{t('calib.figure')}</th><th scope="col" class="num">{t('calib.value')}</th><th scope="col" class="num">{t('calib.ci')}</th><th scope="col" class="num">n</th></tr></thead>
            <tbody>{row('pearson')}{row('spearman')}{row('mae')}</tbody>
          </table>
          {apart.length > 0 && (
            <ul class="apart">
              {apart.map(([key, n]) => <li>{key === 'ctx.apart_no_relevant' ? t(key, { n, zero: item.no_relevant_judge_zero }) : t(key, { n })}</li>)}
            </ul>
          )}
        </div>
        <div><h3 class="chart-title">{t('ctx.chart_scatter')}</h3>
          <ItemScatterChart points={item.points} labels={{ title: t('ctx.chart_scatter'), xAxis: t('ctx.expert_cp'), yAxis: t('ctx.judge_cp'), diagonal: t('ctx.diagonal'),
            subsample: (shown, total) => t('ctx.subsample', { shown, total }) }} /></div>
      </div>
    </section>
  );
}

export function ContextReportBody({ ctx, model }: { ctx: PageContext; model: ContextReportModel }) {
  const { t } = ctx;
  const { report } = model;
  const excluded = Object.entries(report.excluded).filter(([, n]) => n > 0);
  return (
    <div id="report" aria-live="polite">
      <p><a class="btn small" href={model.reviewHref}>{t('ctx.review')}</a></p>
      {!report.meaningful && <div class="alert" role="status">{t('ctx.not_meaningful', { n: report.n, responses: report.responses })}</div>}
      <div class="split">
        <section class="card" aria-labelledby="figures">
          <h2 id="figures">{t('ctx.figures')} <span class="sub">{t('ctx.n', { n: report.n, responses: report.responses })}</span></h2>
          <p class="sub">{excluded.length ? t('ctx.excluded', { list: excluded.map(([k, n]) => `${t(`calib.ex_${k}` as 'calib.ex_no_gold_label')} ${n}`).join(' · ') }) : t('calib.none_excluded')}</p>
          <table class="table figures">
            <thead><tr><th scope="col">{t('calib.figure')}</th><th scope="col" class="num">{t('calib.value')}</th><th scope="col" class="num">{t('calib.ci')}</th><th scope="col" class="num">n</th></tr></thead>
            <tbody>
              <FigureRow ctx={ctx} name="cohen_kappa" value={report.cohen_kappa} report={report} />
              <FigureRow ctx={ctx} name="accuracy" value={report.accuracy} report={report} asPct />
              <FigureRow ctx={ctx} name="precision" value={report.precision} report={report} asPct />
              <FigureRow ctx={ctx} name="recall" value={report.recall} report={report} asPct />
              <FigureRow ctx={ctx} name="f1" value={report.f1} report={report} />
              <FigureRow ctx={ctx} name="coverage" value={report.coverage} report={report} asPct />
              <FigureRow ctx={ctx} name="false_failure_rate" value={report.false_failure_rate} report={report} asPct />
              <FigureRow ctx={ctx} name="alignment" value={report.alignment} report={report} />
            </tbody>
          </table>
          <p class="sub ci-method">{t('ctx.ci_method')}</p>
        </section>
        <section class="card charts" aria-label={t('calib.pictures')}>
          <h3 class="chart-title">{t('calib.chart_confusion')}</h3>
          <ConfusionHeatmap matrix={binaryConfusionMatrix(report.confusion)} rowLabels={[t('ctx.expert_relevant'), t('ctx.expert_not_relevant')]}
            colLabels={[t('ctx.judge_relevant'), t('ctx.judge_not_relevant')]} labels={{ title: t('calib.chart_confusion'), rows: t('calib.expert'), columns: t('calib.judge') }} />
        </section>
      </div>
      <ByRank ctx={ctx} rows={report.by_rank} />
      <ItemLevelCard ctx={ctx} report={report} />
      <form method="post" action={`/datasets/${model.datasetId}/calibration/contexts/record`} class="actions">
        <Csrf token={ctx.csrfToken} />
        <input type="hidden" name="criterion" value={model.criterionId} />
        <input type="hidden" name="run" value={model.runId} />
        <input type="hidden" name="part" value={model.part} />
        <button class="btn primary" type="submit">{t('calib.record')}</button>
        <span class="hint">{t('ctx.record_hint')}</span>
      </form>
    </div>
  );
}

export function ContextCalibrationPage({ ctx, model }: { ctx: PageContext; model: ContextPageModel }) {
  const { t } = ctx;
  const { dataset, state } = model;
  const base = `/datasets/${dataset.id}/calibration/contexts`;
  return (
    <Layout ctx={ctx} title={`${t('ctx.title')} · ${dataset.name}`} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}>
        <a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / <a href={`/datasets/${dataset.id}/calibration`}>{t('calib.title')}</a> / {t('ctx.title')}
      </nav>
      <h1>{t('ctx.title')}</h1>
      <p class="lead">{t('ctx.lead')}</p>
      {!state ? <p class="empty-row">{t('ctx.nothing')}</p> : (
        <form class="filters card" method="get" action={base} hx-get={base} hx-target="#report" hx-swap="outerHTML" hx-push-url="true" hx-sync="this:replace" hx-trigger="change">
          <label for="c-criterion">{t('calib.criterion')}</label>
          <select id="c-criterion" name="criterion">{model.criteria.map((c) => <option value={c.id} selected={c.id === state.criterionId}>{c.name}</option>)}</select>
          <label for="c-run">{t('calib.run')}</label>
          <select id="c-run" name="run">{model.runs.map((r) => <option value={r.id} selected={r.id === state.runId}>{r.label}</option>)}</select>
          <label for="c-part">{t('calib.part')}</label>
          <select id="c-part" name="part">{PARTS.map((p) => <option value={p} selected={p === state.part}>{t(`calib.part_${p}`)}</option>)}</select>
          <noscript><button class="btn small" type="submit">{t('action.apply')}</button></noscript>
        </form>
      )}
      {model.body && <ContextReportBody ctx={ctx} model={model.body} />}
    </Layout>
  );
}
