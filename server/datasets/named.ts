// The dataset a command names (--dataset NAME), or its refusal in the command line's language
// (config.cliLocale): every command that takes a dataset finds it here.
import type { AppContext } from '../app-context.ts';
import type { DatasetRow } from './queries.ts';
import { translator } from '../i18n/index.ts';

export function namedDataset(ctx: AppContext, name: string, Refusal: new (message: string) => Error): DatasetRow {
  const dataset = ctx.datasets.byName(name);
  if (!dataset) throw new Refusal(translator(ctx.config.cliLocale)('cli.no_dataset', { name }));
  return dataset;
}
