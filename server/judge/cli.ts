// `goldset score`: scores a dataset's responses with one metric and prints the run's summary.
import type { AppContext } from '../app-context.ts';
import { RunError } from './runner.ts';
import { releaseSelection } from '../releases/runs.ts';
import { describeEvalSet, evalSetOf } from '../releases/service.ts';
import { cliRefusal, namedDataset, namedMetric, taggedRelease } from '../datasets/named.ts';
import { translator } from '../i18n/index.ts';
import { englishCount } from '../i18n/english-count.ts';

/** The exact keys other programs read from `score --json`. */
export const SCORE_JSON_KEYS = ['run', 'scored', 'errored', 'skipped', 'mean', 'llm_calls', 'cached_calls', 'tokens'] as const;

export class ScoreUsageError extends Error {}

function int(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ScoreUsageError(`${name} takes a whole number, got ${String(value)}`);
  return n;
}

export async function cmdScore(ctx: AppContext, o: Record<string, unknown>, out: { json: boolean; print(text: string, data: Record<string, unknown>): void }): Promise<number> {
  const datasetName = o.dataset as string | undefined;
  const metricKey = o.metric as string | undefined;
  if (!datasetName || !metricKey) throw new ScoreUsageError('usage: score --dataset NAME --metric ID [--prompt-version N] [--concurrency N] [--run NAME] [--system NAME] [--noncommittal all|any] [--release TAG] [--json]');
  const dataset = namedDataset(ctx, datasetName, ScoreUsageError);
  namedMetric(ctx, dataset, metricKey, ScoreUsageError);
  const name = (o.run as string | undefined) ?? `${metricKey} ${new Date().toISOString().slice(0, 19).replace('T', ' ')}`;
  const release = typeof o.release === 'string' ? taggedRelease(ctx, dataset, o.release, ScoreUsageError) : undefined;
  const existing = ctx.runner.queries.byName(dataset.id, name, metricKey);
  let runId: number;
  if (existing) {
    // The same name again continues an unfinished run (e.g. after a kill); a finished one is not redone.
    if (existing.status === 'done') throw cliRefusal(ctx, ScoreUsageError, 'cli.run_finished', { run: name, metric: metricKey });
    if (existing.source !== 'goldset') throw cliRefusal(ctx, ScoreUsageError, 'cli.run_imported', { run: name });
    runId = existing.id;
  } else {
    try {
      runId = ctx.runner.create(null, dataset.id, {
        name, metricKey, promptVersion: int(o['prompt-version'], '--prompt-version'), concurrency: int(o.concurrency, '--concurrency'),
        selection: release ? releaseSelection(ctx, release, o.system === undefined ? '' : String(o.system))
          : o.system !== undefined ? { system: String(o.system) } : {},
        // answer_relevancy's non-committal rule for this run, over the dataset's setting.
        settings: o.noncommittal !== undefined ? { noncommittal: String(o.noncommittal) } : undefined,
      }).id;
    } catch (err) {
      // As the Runs page says it, except where the command line has its own way: the judge's settings.
      if (err instanceof RunError) throw new ScoreUsageError(translator(ctx.config.cliLocale)(err.code === 'no_judge' ? 'cli.run_no_judge' : err.key, err.params));
      throw err;
    }
  }
  const stop = () => { ctx.runner.cancel(null, runId); };
  process.once('SIGINT', stop);
  await ctx.runner.start(runId);
  process.off('SIGINT', stop);
  const run = ctx.runner.queries.byId(runId)!;
  const s = ctx.runner.queries.summary(runId);
  const data = {
    run: run.name, scored: s.scored, errored: s.errored, skipped: s.skipped, mean: s.mean,
    llm_calls: run.llm_calls, cached_calls: run.cached_calls, tokens: { prompt: run.prompt_tokens, completion: run.completion_tokens },
  };
  out.print([
    `run "${run.name}" (${run.metric_key}) ${run.status}: ${s.scored} scored, ${englishCount(s.errored, 'error')}, ${s.skipped} with nothing to score`,
    `eval set: ${describeEvalSet(evalSetOf(run.selection))}`,
    `mean ${s.mean === null ? '—' : s.mean.toFixed(4)} over ${englishCount(s.scored, 'item')}`,
    ...s.reasons.map((r) => `  ${r.status} ${r.reason}: ${r.n}`),
    `LLM calls ${run.llm_calls} (+${run.cached_calls} from cache), tokens ${run.prompt_tokens} prompt + ${run.completion_tokens} completion`,
  ].join('\n'), data);
  return run.status === 'done' ? 0 : 1;
}
