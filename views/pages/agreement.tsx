// Inter-expert agreement of a dataset: one card per criterion with α, Fleiss' κ, percent agreement,
// the n behind each, a plain-language reading, and Cohen's κ for every pair of experts.
import { Layout, type PageContext } from '../layout.tsx';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import { alphaReading, kappaReading, type Agreement } from '../../server/agreement/service.ts';

const fixed = (x: number | null, digits = 3) => (x === null ? '—' : x.toFixed(digits));
const percent = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);

function KappaReading({ ctx, kappa }: { ctx: PageContext; kappa: number | null }) {
  const r = kappaReading(kappa);
  return r ? <>{ctx.t(`agreement.kappa_${r}`)}</> : <span class="sub">{ctx.t('agreement.no_variation')}</span>;
}

function CriterionCard({ ctx, criterion: c, agreement: a }: { ctx: PageContext; criterion: Criterion; agreement: Agreement }) {
  const { t } = ctx;
  const headingId = `agreement-${c.id}`;
  const alpha = alphaReading(a.krippendorff_alpha);
  const shared = a.pairwise_cohen_kappa.filter((p) => p.n > 0);
  const unshared = a.pairwise_cohen_kappa.length - shared.length;
  return (
    <section class={c.archived ? 'card muted' : 'card'} aria-labelledby={headingId}>
      <h2 id={headingId}>{c.name} <span class="badge">{t(`kind.${c.kind}`)}</span> <span class="badge">{t(`target.${c.target}`)}</span>
        {' '}<span class="badge">{t('agreement.level', { level: t(`agreement.level_${a.level}`) })}</span>
        {c.archived ? <> <span class="badge">{t('datasets.archived')}</span></> : null}</h2>
      <p class="sub">{t('agreement.summary', { items: a.n_items, units: a.n_units, annotators: a.n_annotators, values: a.n_pairable_values })}</p>
      {a.n_items === 0 ? <p class="empty-row">{t('agreement.no_items')}</p> : (
        <>
          <table class="table">
            <thead><tr><th scope="col">{t('agreement.measure')}</th><th scope="col">{t('agreement.value')}</th><th scope="col">{t('agreement.based_on')}</th><th scope="col">{t('agreement.reading')}</th></tr></thead>
            <tbody>
              <tr>
                <th scope="row">{t('agreement.alpha')}</th>
                <td class="mono" data-figure="krippendorff_alpha">{fixed(a.krippendorff_alpha)}</td>
                <td>{t('agreement.n_items_values', { n: a.n_items, values: a.n_pairable_values, annotators: a.n_annotators })}</td>
                <td>{alpha ? <strong>{t(`agreement.alpha_${alpha}`)}</strong> : <span class="sub">{t('agreement.no_variation')}</span>}</td>
              </tr>
              <tr>
                <th scope="row">{t('agreement.fleiss')}</th>
                <td class="mono" data-figure="fleiss_kappa">{fixed(a.fleiss_kappa)}</td>
                <td>{a.labels_per_item !== null && a.fleiss_note === null ? t('agreement.n_items_raters', { n: a.n_items, k: a.labels_per_item }) : '—'}</td>
                <td>{a.fleiss_note === 'numeric' ? <span class="sub">{t('agreement.fleiss_numeric')}</span>
                  : a.fleiss_note === 'unequal_counts' ? <span class="sub">{t('agreement.fleiss_unequal')}</span>
                  : <KappaReading ctx={ctx} kappa={a.fleiss_kappa} />}</td>
              </tr>
              <tr>
                <th scope="row">{t('agreement.percent')}</th>
                <td class="mono" data-figure="percent_agreement">{percent(a.percent_agreement)}</td>
                <td>{t('agreement.n_items', { n: a.n_items })}</td>
                <td class="sub">{t(c.kind === 'numeric' ? 'agreement.percent_reading_numeric' : 'agreement.percent_reading')}</td>
              </tr>
            </tbody>
          </table>
          <h3>{t('agreement.pairs')}</h3>
          {a.kappa_weights === null ? <p class="hint">{t('agreement.cohen_numeric')}</p>
            : <p class="hint">{t(a.kappa_weights === 'quadratic' ? 'agreement.cohen_quadratic' : 'agreement.cohen_unweighted')}</p>}
          {shared.length > 0 && (
            <table class="table">
              <thead><tr><th scope="col">{t('agreement.expert_a')}</th><th scope="col">{t('agreement.expert_b')}</th><th scope="col">{t('agreement.shared')}</th>
                {a.kappa_weights !== null && <><th scope="col">{t('agreement.cohen')}</th><th scope="col">{t('agreement.reading')}</th></>}</tr></thead>
              <tbody>
                {shared.map((p) => (
                  <tr key={`${p.a}|${p.b}`}>
                    <td>{p.a}</td>
                    <td>{p.b}</td>
                    <td>{p.n}</td>
                    {a.kappa_weights !== null && <><td class="mono">{fixed(p.kappa)}</td><td><KappaReading ctx={ctx} kappa={p.kappa} /></td></>}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {unshared > 0 && <p class="sub">{t('agreement.pairs_unshared', { n: unshared })}</p>}
        </>
      )}
    </section>
  );
}

export function AgreementPage({ ctx, dataset, rows }: { ctx: PageContext; dataset: DatasetRow; rows: readonly { criterion: Criterion; agreement: Agreement }[] }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={`${t('agreement.title')} · ${dataset.name}`}>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {t('agreement.title')}</nav>
      <h1>{t('agreement.title')}</h1>
      <p class="lead">{t('agreement.lead')}</p>
      {rows.length === 0 && <p class="empty-row">{t('agreement.none')}</p>}
      {rows.map((r) => <CriterionCard key={r.criterion.id} ctx={ctx} criterion={r.criterion} agreement={r.agreement} />)}
      <section class="card" aria-labelledby="agreement-help">
        <h2 id="agreement-help">{t('agreement.help_title')}</h2>
        <p>{t('agreement.help_alpha')}</p>
        <p>{t('agreement.help_kappa')}</p>
        <p>{t('agreement.help_n')}</p>
      </section>
    </Layout>
  );
}
