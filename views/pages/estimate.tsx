// The true score, leading the calibration page: judge only, experts only and corrected side by side
// per system with their picture, the estimation sample's progress, the labels planner, the bias
// diagnostics and a comparison of two systems; the sample-drawing form. A partial of its own: the
// calibration page (shared with other work) only places it.
import type { PageContext } from '../layout.tsx';
import { Layout } from '../layout.tsx';
import { Csrf, FormError } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { BiasReport, BiasRow } from '../../server/estimate/bias.ts';
import type { Comparison, Figure, ScopeEstimate, Verdict } from '../../server/estimate/compute.ts';
import { IntervalsChart } from '../interval-chart.tsx';

/** One row of the table: a group of responses and its estimate (null scope: refused, see `refusal`). */
export interface ScopeRow {
  /** '' for every system, else the system's name. */
  key: string;
  label: string;
  scope: ScopeEstimate | null;
  sampleId: number | null;
}

export interface SampleView {
  id: number;
  /** Items in the sample as shown: an extension carries it, so it cannot be applied twice. */
  items: number;
  scope: string;
  at: string;
  by: string | null;
  draws: { id: number; drawn: number; frame: number; seed: number; at: string; by: string | null }[];
}

export interface DrawFormValues { system: string; size: string; seed: string }

/** Where the section's forms come back to: the calibration page's own choices. */
export interface ReturnTo { criterion: number; run: number; part: string; threshold: number }

export interface EstimateSectionModel {
  datasetId: number;
  back: ReturnTo;
  domain: [number, number];
  /** The whole section's refusal (categorical criterion, scores on another scale): a message key suffix. */
  refusal: string | null;
  rows: ScopeRow[];
  focus: ScopeRow | null;
  bias: BiasReport | null;
  notCovered: number;
  sample: SampleView | null;
  systems: string[];
  halfWidth: number;
  comparison: { a: string; b: string; result: Comparison | null } | null;
  canDraw: boolean;
  canLabel: boolean;
  draw: { values: DrawFormValues; errors?: FieldErrors | undefined };
}

const num = (v: number | null | undefined, d = 3) => (v === null || v === undefined ? '—' : v.toFixed(d));
const ci = (f: Figure) => (f.ci95 ? `${num(f.ci95[0])} – ${num(f.ci95[1])}` : '—');
const signed = (v: number, d = 3) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(d)}`;

function Hidden({ back, except = [] }: { back: ReturnTo; except?: string[] }) {
  return <>
    {Object.entries(back).filter(([k]) => !except.includes(k)).map(([k, v]) => <input type="hidden" name={k} value={String(v)} />)}
  </>;
}

function FigureCell({ ctx, f, hint }: { ctx: PageContext; f: Figure; hint?: string }) {
  return (
    <td class="num">
      <span class="strong">{num(f.estimate)}</span>
      <span class="sub block">{ci(f)}</span>
      <span class="sub block">{ctx.t('est.n', { n: f.n })}{hint ? ` · ${hint}` : ''}</span>
    </td>
  );
}

function EstimateTable({ ctx, rows }: { ctx: PageContext; rows: ScopeRow[] }) {
  const { t } = ctx;
  return (
    <table class="table estimate-table">
      <thead>
        <tr>
          <th scope="col">{t('est.scope')}</th>
          <th scope="col" class="num">{t('est.judge_only')}<span class="sub block">{t('est.judge_only_hint')}</span></th>
          <th scope="col" class="num">{t('est.gold_only')}<span class="sub block">{t('est.gold_only_hint')}</span></th>
          <th scope="col" class="num">{t('est.corrected')}<span class="sub block">{t('est.corrected_hint')}</span></th>
          <th scope="col" class="num">{t('est.lambda')}</th>
          <th scope="col" class="num" title={t('est.effective_hint')}>{t('est.effective')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => r.scope ? (
          <tr>
            <th scope="row">{r.label}{r.sampleId === null ? <span class="sub block">{t('est.no_sample_for')}</span> : null}</th>
            <FigureCell ctx={ctx} f={r.scope.judge_only} />
            <FigureCell ctx={ctx} f={r.scope.gold_only} />
            <FigureCell ctx={ctx} f={r.scope.corrected} />
            <td class="num">{num(r.scope.lambda, 2)}</td>
            <td class="num">{r.scope.effective_labels === null ? '—' : Math.round(r.scope.effective_labels)}</td>
          </tr>
        ) : null)}
      </tbody>
    </table>
  );
}

function SampleProgress({ ctx, m }: { ctx: PageContext; m: EstimateSectionModel }) {
  const { t } = ctx;
  const s = m.focus?.scope?.sample;
  if (!m.sample || !s) return null;
  const share = s.drawn ? `${((100 * s.missing) / s.drawn).toFixed(1)}%` : '0%';
  return (
    <section class="card" aria-labelledby="est-sample">
      <h3 id="est-sample">{t('est.sample_heading')}</h3>
      <p class="sub">{t('est.sample_of', { id: m.sample.id, scope: m.sample.scope, at: m.sample.at.slice(0, 16).replace('T', ' '), by: m.sample.by ?? t('est.by_cli') })}</p>
      <div class="est-progress">
        <progress max={s.drawn || 1} value={s.completed} aria-label={t('est.sample_heading')} />
        <span>{t('est.progress', { completed: s.completed, drawn: s.drawn })}</span>
      </div>
      <p class="sub">{t('est.progress_parts', { pending: s.pending, disputed: s.disputed, no_score: s.no_score, used_as_example: s.used_as_example })}</p>
      {m.focus!.scope!.notes.includes('missing_over_5_percent') && <div class="alert" role="status">{t('est.missing_warning', { missing: s.missing, drawn: s.drawn, share })}</div>}
      {m.notCovered > 0 && <p class="alert" role="status">{t('est.not_covered', { n: m.notCovered })}</p>}
      {m.canLabel && s.pending > 0 && <p><a class="btn small" href={`/datasets/${m.datasetId}/label`}>{t('est.start_labelling')}</a></p>}
      <details>
        <summary>{t('est.draws')} ({m.sample.draws.length})</summary>
        <ul class="plain">
          {m.sample.draws.map((d) => <li>{t('est.draw_row', { id: d.id, drawn: d.drawn, frame: d.frame, seed: d.seed, at: d.at.slice(0, 16).replace('T', ' '), by: d.by ?? t('est.by_cli') })}</li>)}
        </ul>
      </details>
    </section>
  );
}

function Planner({ ctx, m }: { ctx: PageContext; m: EstimateSectionModel }) {
  const { t } = ctx;
  const s = m.focus?.scope;
  if (!s || !m.sample) return null;
  const plan = s.labels_needed;
  const n = s.n_labelled;
  const M = s.n_labelled + s.n_unlabelled;
  const h = num(plan.half_width, 3).replace(/0+$/, '').replace(/\.$/, '');
  const gold = plan.gold_only === null ? '—' : plan.gold_only > M ? t('est.plan_beyond', { gold: plan.gold_only, m: M }) : String(plan.gold_only);
  const extra = plan.corrected !== null ? plan.corrected - s.sample.drawn : 0;
  return (
    <section class="card" aria-labelledby="est-plan">
      <h3 id="est-plan">{t('est.planner_heading')}</h3>
      <form class="inline-form" method="get" action={`/datasets/${m.datasetId}/calibration`} hx-get={`/datasets/${m.datasetId}/calibration`} hx-target="#report" hx-swap="outerHTML" hx-push-url="true">
        <Hidden back={m.back} />
        {m.focus!.key && <input type="hidden" name="system" value={m.focus!.key} />}
        <label for="est-h">{t('est.half_width')}</label>
        <input id="est-h" name="h" type="number" min="0.001" step="any" value={String(plan.half_width)} class="narrow" />
        <button class="btn small" type="submit">{t('est.plan_apply')}</button>
      </form>
      <p>{plan.gold_only === null ? t('est.plan_unknown')
        : plan.corrected === null ? t('est.plan_unreachable', { m: M, h, gold })
        : plan.corrected <= n ? t('est.plan_enough', { corrected: plan.corrected, n, h, gold })
        : t('est.plan', { corrected: plan.corrected, n, h, gold })}</p>
      <p class="sub">{t('est.plan_assumes')}</p>
      {m.canDraw && extra > 0 && (
        <form method="post" action={`/datasets/${m.datasetId}/estimate/samples/${m.sample.id}/extend`} class="actions">
          <Csrf token={ctx.csrfToken} />
          <Hidden back={m.back} />
          <input type="hidden" name="size" value={extra} />
          <input type="hidden" name="items" value={m.sample.items} />
          <button class="btn primary" type="submit">{t('est.draw_extra', { n: extra })}</button>
        </form>
      )}
    </section>
  );
}

function biasWords(ctx: PageContext, r: BiasRow): string {
  const x = Math.abs(r.effect!).toFixed(3);
  const lenient = r.effect! < 0;
  if (r.factor === 'answer_length') return ctx.t(lenient ? 'est.bias_lenient_answer_length' : 'est.bias_strict_answer_length', { x });
  if (r.factor === 'contexts') return ctx.t(lenient ? 'est.bias_lenient_contexts' : 'est.bias_strict_contexts', { x });
  return ctx.t(lenient ? 'est.bias_lenient_system' : 'est.bias_strict_system', { x, system: r.factor.slice('system='.length), ref: r.reference ?? '' });
}

function factorName(ctx: PageContext, r: BiasRow): string {
  if (r.factor === 'answer_length') return ctx.t('est.factor_answer_length');
  if (r.factor === 'contexts') return ctx.t('est.factor_contexts');
  return ctx.t('est.factor_system', { system: r.factor.slice('system='.length), ref: r.reference ?? '' });
}

function Bias({ ctx, bias }: { ctx: PageContext; bias: BiasReport | null }) {
  const { t } = ctx;
  if (!bias) return null;
  const flagged = bias.rows.filter((r) => bias.flagged.includes(r.factor));
  return (
    <section class="card" aria-labelledby="est-bias">
      <h3 id="est-bias">{t('est.bias_heading')} <span class="sub">n = {bias.n}</span></h3>
      <p class="sub">{t('est.bias_lead')}</p>
      {bias.too_few ? <p>{t('est.bias_too_few', { n: Math.max(10, bias.rows.length + 2) })}</p> : <>
        {flagged.length ? <ul class="flags">{flagged.map((r) => <li class="strong">{biasWords(ctx, r)}</li>)}</ul> : <p>{t('est.bias_none')}</p>}
        <table class="table">
          <thead><tr><th scope="col">{t('est.factor')}</th><th scope="col" class="num">{t('est.effect')}</th><th scope="col" class="num">{t('est.p')}</th><th scope="col" class="num">{t('est.p_holm')}</th></tr></thead>
          <tbody>
            {bias.rows.map((r) => (
              <tr>
                <th scope="row">{factorName(ctx, r)}</th>
                <td class="num">{r.effect === null ? t('est.not_varying') : signed(r.effect)}</td>
                <td class="num">{num(r.p_value)}</td>
                <td class="num">{num(r.p_adjusted)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </>}
    </section>
  );
}

function verdictText(ctx: PageContext, v: Verdict, a: string, b: string): string {
  return ctx.t(`est.verdict_${v}`, { a, b });
}

function Compare({ ctx, m }: { ctx: PageContext; m: EstimateSectionModel }) {
  const { t } = ctx;
  if (!m.comparison) return null;
  const { a, b, result } = m.comparison;
  return (
    <section class="card" aria-labelledby="est-compare">
      <h3 id="est-compare">{t('est.compare_heading')}</h3>
      <p class="sub">{t('est.compare_lead')}</p>
      <form class="inline-form" method="get" action={`/datasets/${m.datasetId}/calibration`} hx-get={`/datasets/${m.datasetId}/calibration`} hx-target="#report" hx-swap="outerHTML" hx-push-url="true">
        <Hidden back={m.back} />
        <label for="est-a">{t('est.compare_a')}</label>
        <select id="est-a" name="a">{m.systems.map((s) => <option value={s} selected={s === a}>{s}</option>)}</select>
        <label for="est-b">{t('est.compare_b')}</label>
        <select id="est-b" name="b">{m.systems.map((s) => <option value={s} selected={s === b}>{s}</option>)}</select>
        <button class="btn small" type="submit">{t('est.compare')}</button>
      </form>
      {a === b ? <p>{t('est.compare_same')}</p> : result && <>
        <table class="table">
          <thead><tr><th scope="col">{t('est.difference')}</th><th scope="col" class="num">{t('calib.value')}</th><th scope="col" class="num">{t('calib.ci')}</th><th scope="col">{t('est.verdict')}</th></tr></thead>
          <tbody>
            <tr><th scope="row">{t('est.corrected')}</th><td class="num strong">{result.corrected.estimate === null ? '—' : signed(result.corrected.estimate)}</td>
              <td class="num">{ci(result.corrected)}</td><td>{verdictText(ctx, result.corrected.verdict, a, b)}</td></tr>
            <tr><th scope="row">{t('est.judge_only')}</th><td class="num">{result.judge_only.estimate === null ? '—' : signed(result.judge_only.estimate)}</td>
              <td class="num">{ci(result.judge_only)}</td><td>{verdictText(ctx, result.judge_only.verdict, a, b)}</td></tr>
          </tbody>
        </table>
        {result.disagree
          ? <div class="alert" role="status">{t('est.disagree', { judge: verdictText(ctx, result.judge_only.verdict, a, b), corrected: verdictText(ctx, result.corrected.verdict, a, b) })}</div>
          : result.corrected.verdict !== 'unknown' && <p>{t('est.agree', { verdict: verdictText(ctx, result.corrected.verdict, a, b) })}</p>}
      </>}
    </section>
  );
}

/** The form that draws a new sample; on its own page when it comes back with errors without htmx. */
export function DrawSampleForm({ ctx, m }: { ctx: PageContext; m: Pick<EstimateSectionModel, 'datasetId' | 'back' | 'systems' | 'draw'> }) {
  const { t } = ctx;
  const { values, errors } = m.draw;
  const err = (f: string) => errors?.[f];
  return (
    <form id="draw-sample" class="card draw-sample" method="post" action={`/datasets/${m.datasetId}/estimate/samples`}
      hx-post={`/datasets/${m.datasetId}/estimate/samples`} hx-target="this" hx-swap="outerHTML" novalidate>
      <Csrf token={ctx.csrfToken} />
      <Hidden back={m.back} />
      <h3>{t('est.draw_heading')}</h3>
      <p class="sub">{t('est.draw_hint')}</p>
      <FormError errors={errors} />
      <div class="row">
        <div class={`field${err('system') ? ' has-error' : ''}`}>
          <label for="est-system">{t('est.system')}</label>
          <select id="est-system" name="system">
            <option value="">{t('est.all_systems')}</option>
            {m.systems.map((s) => <option value={s} selected={values.system === s}>{s}</option>)}
          </select>
          {err('system') && <p class="error" id="est-system-error">{err('system')}</p>}
        </div>
        <div class={`field${err('size') ? ' has-error' : ''}`}>
          <label for="est-size">{t('est.size')}</label>
          <input id="est-size" name="size" type="number" min="1" step="1" required value={values.size} aria-invalid={err('size') ? 'true' : undefined}
            aria-describedby={err('size') ? 'est-size-error' : undefined} />
          {err('size') && <p class="error" id="est-size-error">{err('size')}</p>}
        </div>
        <div class={`field${err('seed') ? ' has-error' : ''}`}>
          <label for="est-seed">{t('est.seed')}</label>
          <input id="est-seed" name="seed" type="number" min="0" step="1" value={values.seed} aria-invalid={err('seed') ? 'true' : undefined}
            aria-describedby={err('seed') ? 'est-seed-error' : undefined} />
          {err('seed') && <p class="error" id="est-seed-error">{err('seed')}</p>}
        </div>
      </div>
      <button class="btn primary" type="submit">{t('est.draw')}</button>
    </form>
  );
}

export function EstimateSection({ ctx, m }: { ctx: PageContext; m: EstimateSectionModel }) {
  const { t } = ctx;
  const shown = m.rows.filter((r) => r.scope);
  return (
    <section id="true-score" class="true-score" aria-labelledby="est-title">
      <h2 id="est-title">{t('est.title')}</h2>
      <p class="sub">{t('est.lead')}</p>
      {m.refusal ? <p class="alert">{t(`est.refused_${m.refusal}` as 'est.refused_context_criterion')}</p> : <>
        {!m.sample && <p class="alert">{t('est.no_sample')}</p>}
        <div class="card est-main">
          <IntervalsChart domain={m.domain} groups={shown.map((r) => ({ label: r.label, judge: r.scope!.judge_only, gold: r.scope!.gold_only, corrected: r.scope!.corrected }))}
            labels={{ title: t('est.chart_title'), description: t('est.chart_desc'), judge: t('est.judge_only'), gold: t('est.gold_only'), corrected: t('est.corrected'), none: t('est.none') }} />
          <EstimateTable ctx={ctx} rows={shown} />
          {m.focus?.scope && m.focus.scope.notes.length > 0 && (
            <p class="sub">{t('calib.notes')} {m.focus.scope.notes.map((n) => <span class="tag">{t(`est.note_${n}` as 'est.note_no_labels')}</span>)}</p>
          )}
        </div>
        <div class="chart-grid">
          <SampleProgress ctx={ctx} m={m} />
          <Planner ctx={ctx} m={m} />
          <Bias ctx={ctx} bias={m.bias} />
          <Compare ctx={ctx} m={m} />
        </div>
      </>}
      {m.canDraw && (m.sample && !m.draw.errors
        ? <details class="draw-again"><summary>{t('est.draw_heading')}</summary><DrawSampleForm ctx={ctx} m={m} /></details>
        : <DrawSampleForm ctx={ctx} m={m} />)}
    </section>
  );
}

/** The draw form alone, for a browser without htmx whose form came back with an error. */
export function DrawSamplePage({ ctx, title, m }: { ctx: PageContext; title: string; m: Pick<EstimateSectionModel, 'datasetId' | 'back' | 'systems' | 'draw'> }) {
  return (
    <Layout ctx={ctx} title={`${ctx.t('est.draw_heading')} · ${title}`}>
      <nav class="crumbs" aria-label={ctx.t('nav.breadcrumbs')}><a href="/datasets">{ctx.t('nav.datasets')}</a> / <a href={`/datasets/${m.datasetId}`}>{title}</a> / {ctx.t('est.draw_heading')}</nav>
      <DrawSampleForm ctx={ctx} m={m} />
    </Layout>
  );
}
