// Two runs of a context precision metric side by side on the same contexts: the figures, the contexts whose
// verdict flipped each way, and the paired bootstrap over answers with its verdict.
import { Layout, type PageContext } from '../layout.tsx';
import type { ContextComparison, ContextRef } from '../../server/calibration/compare-context.ts';
import type { PairedBootstrapResult } from '../../server/stats/index.ts';
import { NothingShared } from './prompt-lab.tsx';

function fmt(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : v.toFixed(3);
}

function Flips({ ctx, runId, criterionId, list }: { ctx: PageContext; runId: number; criterionId: number; list: ContextRef[] }) {
  return (
    <ul class="flips context-flips">
      {list.map((f) => (
        <li><a href={`/runs/${runId}/review/contexts/${f.responseId}/${f.index + 1}?criterion=${criterionId}&verdict=any`}>{ctx.t('labc.flip', { id: f.responseId, rank: f.index + 1 })}</a></li>
      ))}
    </ul>
  );
}

export function ContextComparePage({ ctx, dataset, criterion, a, b, cmp }: {
  ctx: PageContext; dataset: { id: number; name: string }; criterion: { id: number; name: string }; a: { id: number; name: string }; b: { id: number; name: string };
  cmp: ContextComparison;
}) {
  const { t } = ctx;
  const rows: [string, number | null, number | null][] = [
    [t('calib.fig_cohen_kappa'), cmp.a.cohen_kappa, cmp.b.cohen_kappa], [t('calib.fig_accuracy'), cmp.a.accuracy, cmp.b.accuracy],
    [t('calib.fig_precision'), cmp.a.precision, cmp.b.precision], [t('calib.fig_recall'), cmp.a.recall, cmp.b.recall], [t('calib.fig_f1'), cmp.a.f1, cmp.b.f1],
    [t('calib.fig_alignment'), cmp.a.alignment, cmp.b.alignment],
  ];
  const k: PairedBootstrapResult | null = cmp.test.kappa;
  const acc: PairedBootstrapResult | null = cmp.test.accuracy;
  return (
    <Layout ctx={ctx} title={`${t('lab.compare')} · ${dataset.name}`} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / <a href={`/datasets/${dataset.id}/prompt-lab?metric=context_precision&step=verify&criterion=${criterion.id}`}>{t('lab.title')}</a> / {t('lab.compare')}</nav>
      <h1>{t('lab.compare_title', { a: a.name, b: b.name })}</h1>
      <p class="lead">{t('labc.compare_lead', { criterion: criterion.name, n: cmp.n, responses: cmp.responses })}</p>
      {cmp.n === 0 ? <NothingShared ctx={ctx} datasetId={dataset.id} /> : <>
      {!cmp.meaningful && <div class="alert">{t('ctx.not_meaningful', { n: cmp.n, responses: cmp.responses })}</div>}
      <div class={`card verdict verdict-${cmp.verdict}`} role="status">
        <strong>{t(`lab.verdict_${cmp.verdict}`)}</strong>
        <span class="sub"> {t('labc.test', {
          diff: fmt(k?.diff), lo: fmt(k?.ci?.[0]), hi: fmt(k?.ci?.[1]), p: k?.p_value === null || k?.p_value === undefined ? '—' : k.p_value.toFixed(4),
          adiff: fmt(acc?.diff), alo: fmt(acc?.ci?.[0]), ahi: fmt(acc?.ci?.[1]),
        })} {t('labc.test_on')}</span>
      </div>
      <table class="table figures">
        <thead><tr><th scope="col">{t('calib.figure')}</th><th scope="col" class="num">A · {a.name}</th><th scope="col" class="num">B · {b.name}</th></tr></thead>
        <tbody>{rows.map(([name, x, y]) => <tr><th scope="row">{name}</th><td class="num">{fmt(x)}</td><td class="num strong">{fmt(y)}</td></tr>)}</tbody>
      </table>
      <div class="split">
        <section class="card"><h2>{t('labc.to_agree', { n: cmp.flipped.to_agree.length })}</h2><Flips ctx={ctx} runId={b.id} criterionId={criterion.id} list={cmp.flipped.to_agree} /></section>
        <section class="card"><h2>{t('labc.to_disagree', { n: cmp.flipped.to_disagree.length })}</h2><Flips ctx={ctx} runId={b.id} criterionId={criterion.id} list={cmp.flipped.to_disagree} /></section>
      </div>
      </>}
    </Layout>
  );
}
