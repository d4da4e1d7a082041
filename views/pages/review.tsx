// The audit queue (items where judge and gold disagree, worst first) and one item under review: the item,
// the experts' labels and rationales, the judge's trace, and the reviewer's verdict form.
import { Layout, type PageContext } from '../layout.tsx';
import { AdjudicatedBy, ItemPager, ItemTexts, Pager, Prose, proseLang, shorten, textLang, ValueLabel } from '../components.tsx';
import { VerdictForm } from './review-verdict-form.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { RunRow, ScoreRow } from '../../server/judge/run-queries.ts';
import type { Trace, TraceStep } from '../../server/judge/types.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import { choices } from '../../server/criteria/values.ts';
import type { ResponseWithSample } from '../../server/responses/queries.ts';
import type { AdjudicationRow } from '../../server/labels/queries.ts';
import type { VerdictRow } from '../../server/calibration/service.ts';
import { stepTitle } from './runs.tsx';
import { PARTS, VERDICT_FILTERS, type Comparison, type QueueItem, type Verdict, type VerdictFilter } from '../../server/review/queue.ts';
import { stateQuery, type QueueState } from '../../server/review/state.ts';
import { reviewText, type RT } from '../../server/review/text.ts';
import { TraceCut } from '../trace-cut.tsx';
import type { Children } from '../jsx-runtime.ts';
import { computationIn } from '../../server/judge/computation.ts';

const BADGE: Record<VerdictFilter, string> = { none: 'badge', judge_right: 'badge run-running', expert_right: 'badge score-error', ambiguous: 'badge status-in_review', any: 'badge' };
const QUESTION_CHARS = 140;

function fmt(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined ? '—' : v.toFixed(digits);
}



/** Pass thresholds offered: 0, 0.05, …, 1, and the current one if it is between those. */
function thresholds(current: number): number[] {
  const grid = Array.from({ length: 21 }, (_, i) => i / 20);
  return grid.includes(current) ? grid : [...grid, current].sort((a, b) => a - b);
}

export function filterLabel(r: RT, f: VerdictFilter): string {
  return f === 'none' ? r('review.filter_none') : f === 'any' ? r('review.filter_any') : r(`review.verdict_${f}`);
}

export function VerdictBadge({ r, verdict }: { r: RT; verdict: Verdict | undefined }) {
  return verdict ? <span class={BADGE[verdict]}>{r(`review.verdict_${verdict}`)}</span> : <span class="badge">{r('review.unreviewed')}</span>;
}

/** The experts' labels of the item with their rationales (or why there are none); `show` words a value. */
export function ExpertLabels({ ctx, experts, hidden = false, show }: { ctx: PageContext; experts: ExpertLabel[]; hidden?: boolean; show: (value: string) => Children }) {
  const { t } = ctx;
  const r = reviewText(t);
  return (
    <section class="card" aria-labelledby="expert-labels">
      <h2 id="expert-labels">{r('review.expert_labels')}</h2>
      {hidden ? <p class="sub">{t('response.hidden')}</p> : experts.length === 0 ? <p class="sub">{r('review.no_labels')}</p> : experts.map((e) => (
        <div class="rationale">
          <p><strong>{e.value === null ? <span class="sub">{r('review.no_value')}</span> : show(e.value)}</strong> <span class="sub">{e.email}{e.submitted_at ? ` · ${e.submitted_at.slice(0, 16).replace('T', ' ')}` : ''}</span></p>
          {e.rationale && <p><strong>{t('field.rationale')}:</strong> <Prose text={e.rationale} /></p>}
          {e.corrected_answer && <p><strong>{t('field.corrected_answer')}:</strong> <Prose text={e.corrected_answer} /></p>}
        </div>
      ))}
    </section>
  );
}

/** The verdict recorded on the item (who, when, the note), or that there is none yet. */
export function CurrentVerdict({ r, verdict }: { r: RT; verdict: { verdict: Verdict; reviewer_email: string; updated_at: string; note: string } | null | undefined }) {
  return verdict ? (
    <>
      <p><VerdictBadge r={r} verdict={verdict.verdict} /> <span class="sub">{r('review.verdict_by', { who: verdict.reviewer_email, at: verdict.updated_at.slice(0, 16).replace('T', ' ') })}</span></p>
      {verdict.note && <p class="rationale" lang={proseLang(verdict.note)}>{verdict.note}</p>}
    </>
  ) : <p class="sub">{r('review.no_verdict')}</p>;
}

export function Crumbs({ ctx, dataset, run, tail }: { ctx: PageContext; dataset: DatasetRow; run: RunRow; tail: Children }) {
  const { t } = ctx;
  return (
    <nav class="crumbs" aria-label={t('nav.breadcrumbs')}>
      <a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / <a href={`/datasets/${dataset.id}/runs`}>{t('runs.title')}</a> / <a href={`/runs/${run.id}`}>{run.name}</a> / {tail}
    </nav>
  );
}

function JudgeCell({ criterion, item, language }: { criterion: Criterion; item: QueueItem; language: 'zh' | 'en' }) {
  return (
    <>
      {fmt(item.score)}
      {criterion.kind !== 'numeric' && item.judgeValue !== null && <span class="sub"> → <ValueLabel criterion={criterion} value={item.judgeValue} language={language} /></span>}
    </>
  );
}

export type QueueRow = QueueItem & { question: string; goldHidden?: boolean };

export function ReviewQueuePage({ ctx, dataset, run, criteria, state, rows, counts, more, comparable, systems, tags, onlyLabelled = false }: {
  ctx: PageContext; dataset: DatasetRow; run: RunRow; criteria: Criterion[]; state: QueueState | null; rows: QueueRow[];
  counts: Record<VerdictFilter, number>; more: boolean; comparable: boolean; systems: readonly string[]; tags: string[];
  /** The user labels this dataset blind: the queue lists only the items they labelled (access/permissions.ts). */
  onlyLabelled?: boolean;
}) {
  const { t } = ctx;
  const r = reviewText(t);
  const base = `/runs/${run.id}/review`;
  return (
    <Layout ctx={ctx} title={`${r('review.title')} · ${run.name}`} wide>
      <Crumbs ctx={ctx} dataset={dataset} run={run} tail={r('review.title')} />
      <h1>{r('review.title')} <span class="badge mono">{run.metric_key}</span></h1>
      <p class="lead">{r('review.lead')}</p>
      {onlyLabelled && <p class="hint">{t('review.only_labelled')}</p>}
      {!state ? <p class="empty-row">{r('review.no_criteria')} <a href={`/datasets/${dataset.id}/criteria`}>{t('criteria.title')}</a></p> : (
        <>
          <form class="filters card" method="get" action={base} role="search" aria-label={r('review.filters')}>
            <label for="rf-criterion">{r('review.criterion')}</label>
            <select id="rf-criterion" name="criterion">
              {criteria.map((c) => <option value={c.id} selected={c.id === state.criterion.id}>{c.name}</option>)}
            </select>
            <label for="rf-verdict">{r('review.verdict_filter')}</label>
            <select id="rf-verdict" name="verdict">
              {VERDICT_FILTERS.map((f) => <option value={f} selected={f === state.verdict}>{filterLabel(r, f)}</option>)}
            </select>
            <label for="rf-system">{t('field.system')}</label>
            <select id="rf-system" name="system">
              <option value="">{r('review.all_systems')}</option>
              {systems.map((s) => <option value={s} selected={s === state.system}>{s || '—'}</option>)}
            </select>
            <label for="rf-tag">{r('review.tag')}</label>
            <select id="rf-tag" name="tag">
              <option value="">{r('review.all_tags')}</option>
              {tags.map((tag) => <option value={tag} selected={tag === state.tag}>{tag}</option>)}
            </select>
            <label for="rf-part">{r('review.part')}</label>
            <select id="rf-part" name="part">
              {PARTS.map((p) => <option value={p} selected={p === state.part}>{r(`review.part_${p}`)}</option>)}
            </select>
            {state.criterion.kind === 'binary' && <>
              <label for="rf-threshold">{r('review.threshold')}</label>
              <select id="rf-threshold" name="threshold">
                {thresholds(state.threshold).map((x) => <option value={x} selected={x === state.threshold}>{x.toFixed(2)}</option>)}
              </select>
            </>}
            <button class="btn small primary" type="submit">{t('action.filter')}</button>
          </form>
          <nav class="actions" aria-label={r('review.summary')}>
            {VERDICT_FILTERS.map((f) => (
              <a class={f === state.verdict ? 'btn small primary' : 'btn small'} aria-current={f === state.verdict ? 'page' : undefined}
                href={`${base}?${stateQuery(state, { verdict: f, page: 1 })}`}>{`${filterLabel(r, f)} (${counts[f]})`}</a>
            ))}
          </nav>
          {!comparable && <p class="alert" role="alert">{r('review.not_comparable')}</p>}
          {rows.length === 0 ? <p class="empty-row">{r('review.none')}</p> : (
            <table class="table">
              <thead><tr>
                <th scope="col" class="num">#</th><th scope="col">{t('field.question')}</th><th scope="col">{t('field.system')}</th>
                <th scope="col">{r('review.col_gold')}</th><th scope="col" class="num">{r('review.col_judge')}</th>
                <th scope="col" class="num">{r('review.col_gap')}</th><th scope="col">{r('review.col_verdict')}</th>
              </tr></thead>
              <tbody>
                {rows.map((item) => (
                  <tr id={`item-${item.id}`}>
                    <td class="num sub">{item.id}</td>
                    <td lang={textLang(dataset.language)}><a href={`${base}/${item.id}?${stateQuery(state)}`}>{shorten(item.question, QUESTION_CHARS)}</a></td>
                    <td class="sub">{item.system || '—'}</td>
                    <td>{item.goldHidden ? <span class="sub">{t('fh.gold_hidden')}</span> : <ValueLabel criterion={state.criterion} value={item.gold} language={dataset.language} />}</td>
                    <td class="num"><JudgeCell criterion={state.criterion} item={item} language={dataset.language} /></td>
                    <td class="num">{fmt(item.gap)}</td>
                    <td><VerdictBadge r={r} verdict={item.verdict?.verdict} />{item.verdict && !item.disagrees && <span class="sub"> {r('review.agrees_now')}</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <Pager t={t} page={state.page} more={more} href={(page) => `${base}?${stateQuery(state, { page }, true)}`} />
        </>
      )}
    </Layout>
  );
}

function Json({ value }: { value: unknown }) {
  return <pre class="mono trace-json" tabIndex={0}>{JSON.stringify(value, null, 2)}</pre>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const cell = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

/** Lists of objects (statements with verdicts and reasons…) as tables; a list of objects or strings under its key. */
function ParsedList({ name, list }: { name: string; list: unknown[] }) {
  if (list.length > 0 && list.every(isRecord)) {
    const columns = [...new Set(list.flatMap((o) => Object.keys(o)))];
    return (
      <table class="table compact">
        <caption class="sub">{name}</caption>
        <thead><tr>{columns.map((c) => <th scope="col">{c}</th>)}</tr></thead>
        <tbody>{list.map((o) => <tr>{columns.map((c) => <td>{cell(o[c])}</td>)}</tr>)}</tbody>
      </table>
    );
  }
  return <div><p class="sub">{name}</p>{list.length === 0 ? <p>—</p> : <ul>{list.map((x) => <li>{cell(x)}</li>)}</ul>}</div>;
}

/** What the judge's reply was read as: verdicts, statements and reasons laid out, the rest as JSON. */
function Parsed({ r, value }: { r: RT; value: unknown }) {
  if (value === null || value === undefined) return <p>—</p>;
  const laidOut = isRecord(value)
    ? (
      <>
        {Object.entries(value).some(([, v]) => !Array.isArray(v) && !isRecord(v)) && (
          <dl class="kv compact">
            {Object.entries(value).filter(([, v]) => !Array.isArray(v) && !isRecord(v)).map(([k, v]) => <><dt>{k}</dt><dd>{cell(v)}</dd></>)}
          </dl>
        )}
        {Object.entries(value).filter(([, v]) => Array.isArray(v)).map(([k, v]) => <ParsedList name={k} list={v as unknown[]} />)}
        {Object.entries(value).filter(([, v]) => isRecord(v)).map(([k, v]) => <div><p class="sub">{k}</p><Json value={v} /></div>)}
      </>
    )
    : Array.isArray(value) ? <ParsedList name="" list={value} /> : <p>{cell(value)}</p>;
  return (
    <>
      {laidOut}
      <details><summary>{r('review.parsed_json')}</summary><Json value={value} /></details>
    </>
  );
}

export function TraceSteps({ ctx, r, steps, metricKey }: { ctx: PageContext; r: RT; steps: TraceStep[]; metricKey: string }) {
  const { t } = ctx;
  return (
    <>
      {steps.map((step, i) => (
        <section class="card trace-step" aria-labelledby={`step-${i}`}>
          <h2 id={`step-${i}`}>{r('review.step', { n: i + 1, step: stepTitle(t, metricKey, steps, i) })} <span class="sub">{step.prompt_version === null ? t('runs.default_prompt') : `v${step.prompt_version}`}</span>
            {step.cached && <span class="badge">{t('trace.cached')}</span>}{step.error && <span class="badge score-error">{t('runs.status_error')}</span>}</h2>
          <details><summary>{t('trace.prompt')}</summary>
            {(step.messages ?? []).map((m) => <div class="message"><p class="sub">{m.role}</p><pre class="mono" tabIndex={0} lang={proseLang(m.content)}>{m.content}</pre></div>)}
            <TraceCut ctx={ctx} step={step} part="messages" />
          </details>
          <h3>{t('trace.raw')}</h3>
          <pre class="mono" tabIndex={0} lang={step.raw ? proseLang(step.raw) : undefined}>{step.raw ?? '—'}</pre>
          <TraceCut ctx={ctx} step={step} part="raw" />
          <h3>{t('trace.parsed')}</h3>
          <Parsed r={r} value={step.parsed} />
          <TraceCut ctx={ctx} step={step} part="parsed" />
          {step.error && <div class="alert">{step.error}</div>}
        </section>
      ))}
    </>
  );
}

/** An expert's submitted label of the item under review (a context's has no corrected answer). */
export interface ExpertLabel { email: string; value: string | null; rationale: string; corrected_answer?: string; submitted_at: string | null }

export interface ReviewItem {
  response: ResponseWithSample;
  experts: ExpertLabel[];
  gold: string | null;
  adjudication: AdjudicationRow | undefined;
  score: ScoreRow | undefined;
  trace: Trace | null;
  comparison: Comparison;
  verdict: VerdictRow | undefined;
  /** The others' labels and gold are not shown to this expert until they submit their own (access/permissions.ts). */
  hidden: boolean;
}

export function ReviewItemPage({ ctx, dataset, run, state, item, prev, next, canRecord, canAdjudicate, values = {}, errors }: {
  ctx: PageContext; dataset: DatasetRow; run: RunRow; state: QueueState; item: ReviewItem;
  prev: number | undefined; next: number | undefined; canRecord: boolean; canAdjudicate: boolean;
  values?: { verdict?: string; note?: string; gold?: string }; errors?: FieldErrors | undefined;
}) {
  const { t } = ctx;
  const r = reviewText(t);
  const { response, criterion } = { response: item.response, criterion: state.criterion };
  const q = stateQuery(state);
  const base = `/runs/${run.id}/review`;
  const contexts = JSON.parse(response.retrieved_contexts) as string[];
  const tags = JSON.parse(response.tags) as string[];
  const chosen = values.verdict ?? item.verdict?.verdict ?? '';
  const note = values.note ?? item.verdict?.note ?? '';
  const options = choices(criterion);
  const correctable = canAdjudicate && criterion.kind !== 'numeric';
  const judgeChoice = item.comparison.judgeValue !== null && options.some((o) => o.value === item.comparison.judgeValue) ? item.comparison.judgeValue : '';
  const goldChoice = values.gold ?? judgeChoice;
  const guidelines = `/datasets/${dataset.id}/criteria#gl-${criterion.id}`;
  const pager = (where: 'top' | 'bottom') => (
    <ItemPager label={where === 'top' ? r('review.item_nav') : t('fh.item_nav_bottom')} back={{ href: `${base}?${q}#item-${response.id}`, text: r('review.back') }}
      prev={prev === undefined ? undefined : { href: `${base}/${prev}?${q}`, text: r('review.prev_item') }}
      next={next === undefined ? undefined : { href: `${base}/${next}?${q}`, text: r('review.next_item') }} />
  );
  return (
    <Layout ctx={ctx} title={r('review.item_title', { id: response.id })} wide>
      <Crumbs ctx={ctx} dataset={dataset} run={run} tail={<><a href={`${base}?${q}`}>{r('review.title')}</a> / #{response.id}</>} />
      {pager('top')}
      <div class="split">
        <div>
          <section class="card">
            <p class="sub">{r('review.item_title', { id: response.id })} · <span class="badge mono">{criterion.name}</span> <span class="badge mono">{run.metric_key}</span></p>
            <ItemTexts t={t} language={dataset.language} question={response.question} groundTruth={response.ground_truth} answer={response.answer}>
              <dt>{t('field.system')}</dt><dd>{response.system || '—'}</dd>
              {tags.length > 0 && <><dt>{t('field.tags')}</dt><dd>{tags.map((tag) => <span class="tag">{tag}</span>)}</dd></>}
            </ItemTexts>
          </section>

          <section class="card" aria-labelledby="gold-judge">
            <h2 id="gold-judge">{r('review.gold_vs_judge')}</h2>
            <dl class="kv">
              <dt>{r('review.gold')}</dt>
              <dd>
                {item.hidden ? <span class="sub">{t('fh.gold_hidden_item')} <a href={`/responses/${response.id}/label`}>{t('response.my_label')}</a></span>
                  : item.gold === null ? r('review.no_gold') : <strong><ValueLabel criterion={criterion} value={item.gold} language={dataset.language} /></strong>}
                {item.adjudication && <div class="sub"><AdjudicatedBy t={t} who={item.adjudication.adjudicator_email} reason={item.adjudication.reason} /></div>}
              </dd>
              <dt>{r('review.judge_score')}</dt>
              <dd>
                {!item.score ? r('review.no_score') : <>
                  <span class={`badge score-${item.score.status}`}>{t(`runs.status_${item.score.status}`)}</span> <strong class="big">{fmt(item.score.value, 4)}</strong>
                  {item.score.reason && <span class="sub"> <Prose text={item.score.reason} /></span>}
                </>}
              </dd>
              {criterion.kind !== 'numeric' && item.comparison.judgeValue !== null && <><dt>{r('review.judge_verdict')}</dt><dd><ValueLabel criterion={criterion} value={item.comparison.judgeValue} language={dataset.language} /></dd></>}
              <dt>{r('review.gap')}</dt><dd>{fmt(item.comparison.gap)}</dd>
            </dl>
            {item.trace?.computation && <p class="computation">{computationIn(item.trace, t)}</p>}
            {item.score && <p><a href={`/runs/${run.id}/scores/${response.id}`}>{r('review.full_trace')}</a></p>}
          </section>

          <ExpertLabels ctx={ctx} experts={item.experts} hidden={item.hidden} show={(v) => <ValueLabel criterion={criterion} value={v} language={dataset.language} />} />

          <section class="card" aria-labelledby="verdict-heading">
            <h2 id="verdict-heading">{r('review.current_verdict')}</h2>
            <CurrentVerdict r={r} verdict={item.verdict} />
            {item.verdict?.verdict === 'ambiguous' && <p><a href={guidelines}>{r('review.guidelines_link', { criterion: criterion.name })}</a></p>}
            {dataset.archived ? <p class="hint">{r('review.archived')}</p> : !canRecord ? <p class="hint">{r('review.read_only')}</p> : (
              <VerdictForm ctx={ctx} action={`${base}/${response.id}?${q}`} prefix="rv" chosen={chosen} note={note} errors={errors}
                versions={{ verdict: item.verdict?.version ?? 0, gold: item.adjudication?.version ?? 0 }}
                verdictHint={(v) => r(`review.verdict_${v}_hint`)} guidelines={{ href: guidelines, criterion: criterion.name }}
                gold={correctable ? { label: r('review.correct_gold'), hint: r('review.correct_gold_hint'), options, lang: textLang(dataset.language), choice: goldChoice } : null}
                cannotAdjudicate={criterion.kind !== 'numeric'} />
            )}
          </section>
        </div>
        <aside class="card" aria-labelledby="review-contexts">
          <h2 id="review-contexts">{t('field.retrieved_contexts')}</h2>
          {contexts.length === 0 ? <p class="sub">—</p> : (
            <ol class="contexts" lang={textLang(dataset.language)}>{contexts.map((c) => <li class="context"><p class="context-text" data-highlight>{c}</p></li>)}</ol>
          )}
        </aside>
      </div>
      <section aria-labelledby="trace-heading">
        <h2 id="trace-heading">{r('review.trace')}</h2>
        {item.trace && item.trace.steps.length > 0
          ? <>
            {item.trace.values && Object.keys(item.trace.values).length > 0 && <details class="card"><summary>{t('trace.values')}</summary><Json value={item.trace.values} /></details>}
            <TraceSteps ctx={ctx} r={r} steps={item.trace.steps} metricKey={run.metric_key} />
          </>
          : <p class="sub">{r('review.no_trace')}</p>}
      </section>
      {pager('bottom')}
    </Layout>
  );
}
