// Prompt iteration: the current prompt next to a draft, few-shot examples picked from expert-labelled
// items of the calibration part, one-click runs on the calibration part, the held-out final check,
// and the side-by-side comparison of two runs.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Prose, textLang } from '../components.tsx';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import type { RunRow } from '../../server/judge/run-queries.ts';
import type { PromptInUse, PromptTemplate } from '../../server/judge/types.ts';
import type { PromptComparison } from '../../server/calibration/compare.ts';
import type { ContextCandidate } from '../../server/calibration/lab-context.ts';
import { ContextCandidates } from './prompt-lab-context.tsx';
import { LIMITS } from '../../server/limits.ts';

export interface ExampleCandidate {
  response_id: number; question: string; answer: string; gold: string; rationale: string; corrected_answer: string;
  /** The step's example can be made from this item's label / from the judge's recorded call of the step. */
  from_label: boolean; from_trace: boolean;
}

export interface LabState {
  metric: string; metrics: string[]; step: string; steps: string[]; criterion: Criterion; criteria: Criterion[];
  current: PromptInUse; draft: PromptTemplate; candidates: ExampleCandidate[]; runs: RunRow[];
  /** A step judged per retrieved context (verify): its candidates are labelled contexts; null otherwise. */
  contextCandidates: ContextCandidate[] | null;
  /** Whether an expert's label can decide this step's output (else examples come from the judge's traces). */
  labels_inform_step: boolean;
  /** One example of the step with placeholder values. */
  example_shape: string;
  parts: { calibration: number; held_out: number };
  /** Held-out final checks of this metric so far: a second one spends the held-out part. */
  heldOutLooks: number;
}

function Selectors({ ctx, dataset, s }: { ctx: PageContext; dataset: DatasetRow; s: LabState }) {
  const { t } = ctx;
  return (
    <form class="filters card" method="get" action={`/datasets/${dataset.id}/prompt-lab`}>
      <label for="f-metric">{t('runs.metric')}</label>
      <select id="f-metric" name="metric" data-autosubmit>{s.metrics.map((m) => <option value={m} selected={m === s.metric}>{m}</option>)}</select>
      <label for="f-step">{t('lab.step')}</label>
      <select id="f-step" name="step" data-autosubmit>{s.steps.map((x) => <option value={x} selected={x === s.step}>{x}</option>)}</select>
      <label for="f-criterion">{t('calib.criterion')}</label>
      <select id="f-criterion" name="criterion" data-autosubmit>{s.criteria.map((c) => <option value={c.id} selected={c.id === s.criterion.id}>{c.name}</option>)}</select>
      <noscript><button class="btn small" type="submit">{t('action.apply')}</button></noscript>
      <span class="sub">{t('lab.parts', { calibration: s.parts.calibration, held_out: s.parts.held_out })}</span>
    </form>
  );
}

export function PromptLabPage({ ctx, dataset, s, errors }: { ctx: PageContext; dataset: DatasetRow; s: LabState; errors?: Record<string, string> }) {
  const { t } = ctx;
  const parts = s.runs.map(partOf);
  const baseline = defaultBaseline(parts);
  const lang = textLang(dataset.language);
  const hidden = (extra: Record<string, string | number> = {}) => <>
    <Csrf token={ctx.csrfToken} />
    <input type="hidden" name="metric" value={s.metric} />
    <input type="hidden" name="step" value={s.step} />
    <input type="hidden" name="criterion" value={s.criterion.id} />
    {Object.entries(extra).map(([k, v]) => <input type="hidden" name={k} value={v} />)}
  </>;
  return (
    <Layout ctx={ctx} title={`${t('lab.title')} · ${dataset.name}`} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {t('lab.title')}</nav>
      <h1>{t('lab.title')}</h1>
      <p class="lead">{t('lab.lead')}</p>
      <Selectors ctx={ctx} dataset={dataset} s={s} />
      {errors?._form && <div class="alert" role="alert">{errors._form}</div>}
      <form method="post" action={`/datasets/${dataset.id}/prompt-lab/run`} id="draft-form">
        {hidden()}
        <div class="lab-grid">
          <section class="card" aria-labelledby="current-h">
            <h2 id="current-h">{t('lab.current')} <span class="sub">{s.current.version === null ? t('runs.default_prompt') : `v${s.current.version}`}</span></h2>
            <h3>{t('metrics.instruction')}</h3><pre class="mono prompt" tabIndex={0} lang={textLang(s.current.language)}>{s.current.instruction}</pre>
            <h3>{t('metrics.output_format')}</h3><pre class="mono prompt" tabIndex={0} lang={textLang(s.current.language)}>{s.current.output_format}</pre>
            <h3>{t('metrics.examples')} ({s.current.examples.length})</h3><pre class="mono prompt" tabIndex={0}>{JSON.stringify(s.current.examples, null, 2)}</pre>
          </section>
          <section class="card" aria-labelledby="draft-h">
            <h2 id="draft-h">{t('lab.draft')}</h2>
            <div class="field"><label for="d-instruction">{t('metrics.instruction')}</label>
              <textarea id="d-instruction" name="instruction" rows={10} lang={textLang(s.draft.language)}>{s.draft.instruction}</textarea></div>
            <div class="field"><label for="d-output">{t('metrics.output_format')}</label>
              <textarea id="d-output" name="output_format" rows={3} lang={textLang(s.draft.language)}>{s.draft.output_format}</textarea></div>
            <div class="field"><label for="d-examples">{t('metrics.examples')}</label>
              <textarea id="d-examples" name="examples" rows={8} class="mono">{JSON.stringify(s.draft.examples, null, 2)}</textarea>
              <p class="hint mono">{t('examples.shape', { shape: s.example_shape })}</p>
              {errors?.examples && <p class="error" role="alert">{errors.examples}</p>}</div>
            <input type="hidden" name="language" value={s.draft.language} />
            <div class="field"><label for="d-note">{t('metrics.note')}</label><input id="d-note" name="note" maxLength={LIMITS.promptNote} /></div>
            <button class="btn primary" type="submit">{t('lab.run_draft')}</button>
            <p class="hint">{t('lab.run_draft_hint')}</p>
          </section>
        </div>
      </form>
      {s.contextCandidates ? <ContextCandidates ctx={ctx} datasetId={dataset.id} language={dataset.language} candidates={s.contextCandidates} /> : <section class="card" aria-labelledby="examples-h">
        <h2 id="examples-h">{t('lab.pick')}</h2>
        <p class="hint">{t('lab.pick_hint')}</p>
        {!s.labels_inform_step && <p class="hint">{t('lab.add_from_trace_hint')}</p>}
        {s.candidates.length === 0 ? <p class="sub">{t('lab.no_candidates')}</p> : (
          <table class="table">
            <thead><tr><th scope="col">{t('field.question')}</th><th scope="col">{t('field.answer')}</th><th scope="col">{t('response.gold')}</th><th scope="col">{t('field.rationale')}</th><th scope="col"><span class="sr-only">{t('users.actions')}</span></th></tr></thead>
            <tbody>
              {s.candidates.map((c) => (
                <tr id={`cand-${c.response_id}`}>
                  <td lang={lang}>{c.question}</td><td class="sub" lang={lang}>{c.answer}</td><td><strong>{c.gold}</strong></td>
                  <td class="sub"><Prose text={c.rationale} />{c.corrected_answer && <div>{t('field.corrected_answer')}: <span lang={lang}>{c.corrected_answer}</span></div>}</td>
                  <td><div class="actions">
                    {c.from_label && <button class="btn small" type="submit" form="draft-form" formaction={`/datasets/${dataset.id}/prompt-lab/add-example?source=label`}
                      name="example" value={c.response_id}>{t('lab.add_from_label')}</button>}
                    {c.from_trace && <button class="btn small" type="submit" form="draft-form" formaction={`/datasets/${dataset.id}/prompt-lab/add-example?source=trace`}
                      name="example" value={c.response_id}>{t('lab.add_from_trace')}</button>}</div></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>}
      <section class="card" aria-labelledby="runs-h">
        <h2 id="runs-h">{t('lab.runs')}</h2>
        {s.runs.length === 0 ? <p class="sub">{t('runs.none')}</p> : (
          <form method="get" action={`/datasets/${dataset.id}/compare`}>
            <input type="hidden" name="criterion" value={s.criterion.id} />
            <table class="table">
              <thead><tr><th scope="col">A</th><th scope="col">B</th><th scope="col">{t('field.name')}</th><th scope="col">{t('field.status')}</th><th scope="col">{t('lab.scope')}</th><th scope="col"><span class="sr-only">{t('users.actions')}</span></th></tr></thead>
              <tbody>
                {s.runs.map((r, i) => {
                  const part = parts[i]!;
                  return (
                    <tr>
                      <td><input type="radio" name="a" value={r.id} checked={i === baseline} aria-label={`A: ${r.name}`} /></td>
                      <td><input type="radio" name="b" value={r.id} checked={i === 0} aria-label={`B: ${r.name}`} /></td>
                      <td><a href={`/runs/${r.id}`}>{r.name}</a></td>
                      <td><span class={`badge run-${r.status}`}>{t(`runs.status_${r.status}`)}</span></td>
                      <td>{t(`calib.part_${part}` as 'calib.part_all')}</td>
                      <td>{part === 'calibration' && (
                        <button class="btn small" type="submit" form={`final-${r.id}`}>{t('lab.final_check')}</button>
                      )}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            <button class="btn" type="submit">{t('lab.compare')}</button>
          </form>
        )}
        <p class={s.heldOutLooks > 0 ? 'hint warn-text' : 'hint'}>{t('fh.looks_so_far', { n: s.heldOutLooks, metric: s.metric })}</p>
        {s.runs.map((r) => (
          <form id={`final-${r.id}`} method="post" action={`/datasets/${dataset.id}/prompt-lab/final`} class="sr-only">
            {hidden({ run: r.id })}
          </form>
        ))}
      </section>
    </Layout>
  );
}

/**
 * Two runs without an expert-labelled item in common (a calibration-part run against a held-out one)
 * have nothing to compare: said so, instead of a verdict over no items.
 */
export function NothingShared({ ctx, datasetId }: { ctx: PageContext; datasetId: number }) {
  return (
    <div class="alert" role="status">
      <p><strong>{ctx.t('lab.nothing_shared')}</strong></p>
      <p>{ctx.t('lab.nothing_shared_hint')} <a href={`/datasets/${datasetId}/prompt-lab`}>{ctx.t('lab.title')}</a></p>
    </div>
  );
}

/** The part of the items a run scored: calibration, held_out, or all (a run not started from the lab). */
function partOf(run: RunRow): string {
  return (JSON.parse(run.selection) as { part?: string }).part ?? 'all';
}

/**
 * The index of the run offered as A next to the newest run (B), given the runs' parts newest first: the
 * newest earlier one that scored items B scored too (same part, or all items), so that the comparison
 * the page opens with has items to compare.
 */
export function defaultBaseline(parts: readonly string[]): number {
  if (parts.length < 2) return -1;
  const b = parts[0]!;
  const i = parts.findIndex((p, j) => j > 0 && (p === b || p === 'all' || b === 'all'));
  return i === -1 ? 1 : i;
}

function fmt(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : v.toFixed(3);
}

export function ComparePage({ ctx, dataset, criterion, a, b, cmp }: { ctx: PageContext; dataset: DatasetRow; criterion: Criterion; a: RunRow; b: RunRow; cmp: PromptComparison }) {
  const { t } = ctx;
  const rows: [string, number | null | undefined, number | null | undefined][] = [];
  const add = (name: string, key: string) => rows.push([name, (cmp.a as unknown as Record<string, number | null>)[key], (cmp.b as unknown as Record<string, number | null>)[key]]);
  if (cmp.kind === 'binary') { add(t('calib.fig_cohen_kappa'), 'cohen_kappa'); add(t('calib.fig_accuracy'), 'accuracy'); add(t('calib.fig_f1'), 'f1'); add(t('calib.fig_alignment'), 'alignment'); }
  if (cmp.kind === 'ordinal') add(t('calib.fig_quadratic_kappa'), 'quadratic_kappa');
  add(t('calib.fig_spearman'), 'spearman'); add(t('calib.fig_pearson'), 'pearson'); add(t('calib.fig_mae'), 'mae');
  const test = cmp.test;
  return (
    <Layout ctx={ctx} title={`${t('lab.compare')} · ${dataset.name}`} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / <a href={`/datasets/${dataset.id}/prompt-lab`}>{t('lab.title')}</a> / {t('lab.compare')}</nav>
      <h1>{t('lab.compare_title', { a: a.name, b: b.name })}</h1>
      <p class="lead">{t('lab.compare_lead', { criterion: criterion.name, n: cmp.n })}</p>
      {cmp.n === 0 ? <NothingShared ctx={ctx} datasetId={dataset.id} /> : <>
      {!cmp.meaningful && <div class="alert">{t('calib.not_meaningful', { n: cmp.n })}</div>}
      <div class={`card verdict verdict-${cmp.verdict}`} role="status">
        <strong>{t(`lab.verdict_${cmp.verdict}`)}</strong>
        <span class="sub"> {test.method === 'mcnemar_exact'
          ? t('lab.mcnemar', { b: test.b, c: test.c, p: test.p_value.toFixed(4) })
          : t('lab.bootstrap', { diff: fmt(test.diff), lo: fmt(test.ci95?.[0]), hi: fmt(test.ci95?.[1]), p: test.p_value === null ? '—' : test.p_value.toFixed(4) })}</span>
      </div>
      <table class="table figures">
        <thead><tr><th scope="col">{t('calib.figure')}</th><th scope="col" class="num">A · {a.name}</th><th scope="col" class="num">B · {b.name}</th></tr></thead>
        <tbody>{rows.map(([name, x, y]) => <tr><th scope="row">{name}</th><td class="num">{fmt(x)}</td><td class="num strong">{fmt(y)}</td></tr>)}</tbody>
      </table>
      <div class="split">
        <section class="card"><h2>{t('lab.to_agree', { n: cmp.flipped.to_agree.length })}</h2>
          <ul class="flips">{cmp.flipped.to_agree.map((id) => <li><a href={`/runs/${b.id}/scores/${id}`}>#{id}</a></li>)}</ul></section>
        <section class="card"><h2>{t('lab.to_disagree', { n: cmp.flipped.to_disagree.length })}</h2>
          <ul class="flips">{cmp.flipped.to_disagree.map((id) => <li><a href={`/runs/${b.id}/scores/${id}`}>#{id}</a></li>)}</ul></section>
      </div>
      </>}
    </Layout>
  );
}
