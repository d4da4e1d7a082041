// The audit queue of retrieved contexts (judge and experts disagree on whether a context is relevant) and one
// context under review: the context with the judge's reason beside it, the experts' labels and rationales,
// the response's other contexts, and the reviewer's verdict form.
import { Layout, type PageContext } from '../layout.tsx';
import { AdjudicatedBy, ItemPager, ItemTexts, Pager, Prose, proseLang, shorten, textLang } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { RunRow } from '../../server/judge/run-queries.ts';
import type { TraceStep } from '../../server/judge/types.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import { PARTS, VERDICT_FILTERS, type VerdictFilter } from '../../server/review/queue.ts';
import { contextStateQuery, DIRECTIONS, type ContextQueueItem, type ContextQueueState, type ContextVerdictRow, type Direction } from '../../server/review/context-queue.ts';
import { reviewText } from '../../server/review/text.ts';
import { VerdictForm } from './review-verdict-form.tsx';
import { Crumbs, CurrentVerdict, ExpertLabels, filterLabel, TraceSteps, VerdictBadge, type ExpertLabel } from './review.tsx';
import { computationIn } from '../../server/judge/computation.ts';
import type { Trace } from '../../server/judge/types.ts';

const TEXT_CHARS = 160;


/** "relevant" / "not relevant" for a gold value ('1'/'0') or a judge verdict (1/0). */
function Relevance({ ctx, value }: { ctx: PageContext; value: string | number | null }) {
  if (value === null) return <span class="sub">—</span>;
  const yes = String(value) === '1';
  return <span class={yes ? 'badge relevant' : 'badge not-relevant'}>{ctx.t(yes ? 'ctxr.relevant' : 'ctxr.not_relevant')}</span>;
}

export type ContextQueueRow = ContextQueueItem & { question: string; context: string; reason: string | null };

export function ContextQueuePage({ ctx, dataset, run, criteria, state, rows, counts, directions, more, systems, tags }: {
  ctx: PageContext; dataset: DatasetRow; run: RunRow; criteria: Criterion[]; state: ContextQueueState | null; rows: ContextQueueRow[];
  counts: Record<VerdictFilter, number>; directions: Record<Direction, number>; more: boolean; systems: readonly string[]; tags: string[];
}) {
  const { t } = ctx;
  const r = reviewText(t);
  const base = `/runs/${run.id}/review/contexts`;
  return (
    <Layout ctx={ctx} title={`${t('ctxr.title')} · ${run.name}`} wide>
      <Crumbs ctx={ctx} dataset={dataset} run={run} tail={t('ctxr.title')} />
      <h1>{t('ctxr.title')} <span class="badge mono">{run.metric_key}</span></h1>
      <p class="lead">{t('ctxr.lead')}</p>
      {!state ? <p class="empty-row">{t('ctxr.no_criteria')} <a href={`/datasets/${dataset.id}/criteria`}>{t('criteria.title')}</a></p> : (
        <>
          <form class="filters card" method="get" action={base} role="search" aria-label={r('review.filters')}>
            <label for="cf-criterion">{r('review.criterion')}</label>
            <select id="cf-criterion" name="criterion">{criteria.map((c) => <option value={c.id} selected={c.id === state.criterion.id}>{c.name}</option>)}</select>
            <label for="cf-direction">{t('ctxr.direction')}</label>
            <select id="cf-direction" name="direction">{DIRECTIONS.map((d) => <option value={d} selected={d === state.direction}>{t(`ctxr.direction_${d}`)}</option>)}</select>
            <label for="cf-verdict">{r('review.verdict_filter')}</label>
            <select id="cf-verdict" name="verdict">{VERDICT_FILTERS.map((f) => <option value={f} selected={f === state.verdict}>{filterLabel(r, f)}</option>)}</select>
            <label for="cf-system">{t('field.system')}</label>
            <select id="cf-system" name="system">
              <option value="">{r('review.all_systems')}</option>
              {systems.map((s) => <option value={s} selected={s === state.system}>{s || '—'}</option>)}
            </select>
            <label for="cf-tag">{r('review.tag')}</label>
            <select id="cf-tag" name="tag">
              <option value="">{r('review.all_tags')}</option>
              {tags.map((tag) => <option value={tag} selected={tag === state.tag}>{tag}</option>)}
            </select>
            <label for="cf-part">{r('review.part')}</label>
            <select id="cf-part" name="part">{PARTS.map((p) => <option value={p} selected={p === state.part}>{r(`review.part_${p}`)}</option>)}</select>
            <button class="btn small primary" type="submit">{t('action.filter')}</button>
          </form>
          <nav class="actions" aria-label={t('ctxr.directions')}>
            {DIRECTIONS.map((d) => (
              <a class={d === state.direction ? 'btn small primary' : 'btn small'} aria-current={d === state.direction ? 'page' : undefined}
                href={`${base}?${contextStateQuery(state, { direction: d, page: 1 })}`}>{`${t(`ctxr.direction_${d}`)} (${directions[d]})`}</a>
            ))}
          </nav>
          <nav class="actions" aria-label={r('review.summary')}>
            {VERDICT_FILTERS.map((f) => (
              <a class={f === state.verdict ? 'btn small primary' : 'btn small'} aria-current={f === state.verdict ? 'page' : undefined}
                href={`${base}?${contextStateQuery(state, { verdict: f, page: 1 })}`}>{`${filterLabel(r, f)} (${counts[f]})`}</a>
            ))}
          </nav>
          {rows.length === 0 ? <p class="empty-row">{r('review.none')}</p> : (
            <table class="table context-queue">
              <thead><tr>
                <th scope="col" class="num">{t('ctx.rank')}</th><th scope="col" class="num">#</th><th scope="col">{t('field.question')}</th>
                <th scope="col">{t('ctxr.context')}</th><th scope="col">{t('ctxr.experts')}</th><th scope="col">{t('ctxr.judge')}</th>
                <th scope="col">{t('ctxr.reason')}</th><th scope="col">{r('review.col_verdict')}</th>
              </tr></thead>
              <tbody>
                {rows.map((item) => (
                  <tr id={`ctx-${item.responseId}-${item.index + 1}`}>
                    <td class="num">{item.index + 1}</td>
                    <td class="num sub">{item.responseId}</td>
                    <td lang={textLang(dataset.language)}><a href={`${base}/${item.responseId}/${item.index + 1}?${contextStateQuery(state)}`}>{shorten(item.question, 90)}</a></td>
                    <td class="sub" lang={textLang(dataset.language)}>{shorten(item.context, TEXT_CHARS)}</td>
                    <td><Relevance ctx={ctx} value={item.gold} /></td>
                    <td><Relevance ctx={ctx} value={item.judge} /></td>
                    <td class="sub">{item.reason ? <Prose text={shorten(item.reason, TEXT_CHARS)} /> : '—'}</td>
                    <td><VerdictBadge r={r} verdict={item.verdict?.verdict} />{item.verdict && !item.disagrees && <span class="sub"> {r('review.agrees_now')}</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <Pager t={t} page={state.page} more={more} href={(page) => `${base}?${contextStateQuery(state, { page }, true)}`} />
        </>
      )}
    </Layout>
  );
}

/** What the item page is handed: the response, every context with gold, verdict and reason, and the labels. */
export interface ContextItemModel {
  response: { id: number; question: string; groundTruth: string; answer: string; system: string };
  contexts: { rank: number; text: string; gold: string | null; judge: 0 | 1 | null; reason: string | null }[];
  /** The context under review (0-based). */
  index: number;
  criterion: { id: number; name: string; guidelines: string };
  score: { status: string; value: number | null } | null;
  /** How the run's score of the whole answer was computed (computationIn says it in the reader's language). */
  computation: Pick<Trace, 'computation' | 'explained'> | null;
  /** The judge's call for this context, as sent and answered. */
  step: TraceStep | null;
  experts: ExpertLabel[];
  adjudication: { by: string; reason: string; version: number } | null;
  verdict: ContextVerdictRow | null;
}

type Ref = { rid: number; rank: number } | undefined;

export function ContextItemPage({ ctx, dataset, run, query, item, prev, next, canRecord, canAdjudicate, values = {}, errors }: {
  ctx: PageContext; dataset: DatasetRow; run: RunRow; query: string; item: ContextItemModel; prev: Ref; next: Ref;
  canRecord: boolean; canAdjudicate: boolean; values?: { verdict?: string; note?: string; gold?: string }; errors?: FieldErrors | undefined;
}) {
  const { t } = ctx;
  const r = reviewText(t);
  const { response, criterion } = item;
  const here = item.contexts[item.index]!;
  const base = `/runs/${run.id}/review/contexts`;
  const chosen = values.verdict ?? item.verdict?.verdict ?? '';
  const note = values.note ?? item.verdict?.note ?? '';
  const goldChoice = values.gold ?? (here.judge === null ? '' : String(here.judge));
  const guidelines = `/datasets/${dataset.id}/criteria#gl-${criterion.id}`;
  const title = t('ctxr.item_title', { id: response.id, rank: here.rank });
  const pager = (where: 'top' | 'bottom') => (
    <ItemPager label={where === 'top' ? r('review.item_nav') : t('fh.item_nav_bottom')} back={{ href: `${base}?${query}#ctx-${response.id}-${here.rank}`, text: r('review.back') }}
      prev={prev ? { href: `${base}/${prev.rid}/${prev.rank}?${query}`, text: r('review.prev_item') } : undefined}
      next={next ? { href: `${base}/${next.rid}/${next.rank}?${query}`, text: r('review.next_item') } : undefined} />
  );
  return (
    <Layout ctx={ctx} title={title} wide>
      <Crumbs ctx={ctx} dataset={dataset} run={run} tail={<><a href={`${base}?${query}`}>{t('ctxr.title')}</a> / {title}</>} />
      {pager('top')}
      <div class="split">
        <div>
          <section class="card">
            <p class="sub">{title} · <span class="badge mono">{criterion.name}</span> <span class="badge mono">{run.metric_key}</span></p>
            <ItemTexts t={t} language={dataset.language} question={response.question} groundTruth={response.groundTruth} answer={response.answer}>
              <dt>{t('field.system')}</dt><dd>{response.system || '—'}</dd>
            </ItemTexts>
          </section>

          <section class="card context-under-review" aria-labelledby="this-context">
            <h2 id="this-context">{t('ctxr.this_context', { rank: here.rank })}</h2>
            <blockquote class="context-text" lang={textLang(dataset.language)} data-highlight>{here.text}</blockquote>
            <div class="split verdicts">
              <div>
                <h3>{t('ctxr.judge')}</h3>
                <p><Relevance ctx={ctx} value={here.judge} /></p>
                <p class="judge-reason"><strong>{t('ctxr.reason')}:</strong> {here.reason === null ? t('ctxr.no_reason') : <Prose text={here.reason} />}</p>
              </div>
              <div>
                <h3>{t('ctxr.experts_gold')}</h3>
                <p>{here.gold === null ? <span class="sub">{r('review.no_gold')}</span> : <Relevance ctx={ctx} value={here.gold} />}</p>
                {item.adjudication && <p class="sub"><AdjudicatedBy t={t} who={item.adjudication.by} reason={item.adjudication.reason} /></p>}
              </div>
            </div>
            {item.computation?.computation && <p class="computation">{computationIn(item.computation, t)}</p>}
            {item.score && <p><a href={`/runs/${run.id}/scores/${response.id}`}>{r('review.full_trace')}</a></p>}
          </section>

          <ExpertLabels ctx={ctx} experts={item.experts} show={(v) => <Relevance ctx={ctx} value={v} />} />

          <section class="card" aria-labelledby="verdict-heading">
            <h2 id="verdict-heading">{r('review.current_verdict')}</h2>
            <CurrentVerdict r={r} verdict={item.verdict} />
            {dataset.archived ? <p class="hint">{r('review.archived')}</p> : !canRecord ? <p class="hint">{r('review.read_only')}</p> : (
              <VerdictForm ctx={ctx} action={`${base}/${response.id}/${here.rank}?${query}`} prefix="cv" chosen={chosen} note={note} errors={errors}
                versions={{ verdict: item.verdict?.version ?? 0, gold: item.adjudication?.version ?? 0 }}
                verdictHint={(v) => t(`ctxr.verdict_${v}_hint`)} guidelines={{ href: guidelines, criterion: criterion.name }}
                gold={canAdjudicate ? { label: t('ctxr.correct_gold'), hint: t('ctxr.correct_gold_hint'), choice: goldChoice,
                  options: [{ value: '1', label: t('ctxr.relevant') }, { value: '0', label: t('ctxr.not_relevant') }] } : null}
                cannotAdjudicate />
            )}
          </section>
        </div>
        <aside class="card" aria-labelledby="all-contexts">
          <h2 id="all-contexts">{t('ctxr.all_contexts')}</h2>
          <ol class="contexts">
            {item.contexts.map((c) => (
              <li class={c.rank === here.rank ? 'context current' : 'context'} aria-current={c.rank === here.rank ? 'true' : undefined}>
                <div>
                  <p class="context-text" data-highlight>{c.text}</p>
                  <p class="sub context-marks">{t('ctxr.experts')} <Relevance ctx={ctx} value={c.gold} /> · {t('ctxr.judge')} <Relevance ctx={ctx} value={c.judge} /></p>
                  {c.reason && <p class="sub" lang={proseLang(c.reason)}>{c.reason}</p>}
                </div>
              </li>
            ))}
          </ol>
        </aside>
      </div>
      {item.step && (
        <section aria-labelledby="trace-heading">
          <h2 id="trace-heading">{t('ctxr.judge_call', { rank: here.rank })}</h2>
          <TraceSteps ctx={ctx} r={r} steps={[item.step]} metricKey={run.metric_key} />
        </section>
      )}
      {pager('bottom')}
    </Layout>
  );
}
