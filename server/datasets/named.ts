// What a command names (--dataset NAME, --criterion NAME, --release TAG, --metric KEY), or its refusal
// in the command line's language (config.cliLocale): every command finds these here, so a name that is
// not there is refused in the same words by all of them.
import type { AppContext } from '../app-context.ts';
import type { DatasetRow } from './queries.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { ReleaseRow } from '../releases/queries.ts';
import type { MetricDefinition } from '../judge/types.ts';
import { translator, type MessageKey, type Params } from '../i18n/index.ts';

/** The error class a command answers with (its usage errors end the process with status 2). */
export type Refusal = new (message: string) => Error;

/** A refusal of the command line, worded in its language. */
export function cliRefusal(ctx: AppContext, Refusal: Refusal, key: MessageKey, params?: Params): Error {
  return new Refusal(translator(ctx.config.cliLocale)(key, params));
}

export function namedDataset(ctx: AppContext, name: string, Refusal: Refusal): DatasetRow {
  const dataset = ctx.datasets.byName(name);
  if (!dataset) throw cliRefusal(ctx, Refusal, 'cli.no_dataset', { name });
  return dataset;
}

/** The dataset's criterion of this name; the refusal lists the names there are. */
export function namedCriterion(ctx: AppContext, dataset: DatasetRow, name: string, Refusal: Refusal): Criterion {
  const criterion = ctx.criteria.queries.byName(dataset.id, name);
  if (criterion) return criterion;
  const names = ctx.criteria.queries.allForDataset(dataset.id).map((c) => c.name);
  throw cliRefusal(ctx, Refusal, 'cli.no_criterion', { name, dataset: dataset.name, names: names.length ? names.join(', ') : '—' });
}

export function taggedRelease(ctx: AppContext, dataset: DatasetRow, tag: string, Refusal: Refusal): ReleaseRow {
  const release = ctx.releases.byTag(dataset.id, tag);
  if (!release) throw cliRefusal(ctx, Refusal, 'cli.no_release', { tag, dataset: dataset.name });
  return release;
}

/** A built-in metric or one of the dataset's custom metrics; the refusal lists the keys there are. */
export function namedMetric(ctx: AppContext, dataset: DatasetRow, key: string, Refusal: Refusal): MetricDefinition {
  const metric = ctx.registry.get(dataset.id, key);
  if (metric) return metric;
  const keys = [...ctx.registry.builtinKeys(), ...ctx.registry.custom(dataset.id).map((m) => m.key)];
  throw cliRefusal(ctx, Refusal, 'cli.no_metric', { metric: key, dataset: dataset.name, metrics: keys.join(', ') });
}
