// `goldset labelling-sheet` (an expert's queue as a spreadsheet) and the labelling-sheet side of
// `goldset import FILE.xlsx --annotator EMAIL [--submit]`.
import fs from 'node:fs';
import type { AppContext } from '../app-context.ts';
import { translator } from '../i18n/index.ts';
import { sheetQueries, writeLabellingSheet } from './sheet.ts';
import { applyLabellingSheet, readSheetMeta } from './upload.ts';
import { cliRefusal, namedDataset } from '../datasets/named.ts';
import type { Out } from '../io/cli-out.ts';

export class SheetUsageError extends Error {}

function expert(ctx: AppContext, email: unknown) {
  if (typeof email !== 'string' || !email) throw new SheetUsageError('name the expert with --annotator EMAIL');
  const user = ctx.users.queries.byEmail(email.trim().toLowerCase());
  if (!user || user.disabled) throw cliRefusal(ctx, SheetUsageError, 'cli.no_active_user', { email });
  return user;
}

export async function cmdLabellingSheet(ctx: AppContext, o: Record<string, unknown>, out: Out): Promise<number> {
  if (typeof o.dataset !== 'string' || typeof o.out !== 'string') {
    throw new SheetUsageError('usage: labelling-sheet --dataset NAME --annotator EMAIL --out FILE.xlsx [--limit N] [--language en|zh]');
  }
  const dataset = namedDataset(ctx, o.dataset, SheetUsageError);
  const annotator = expert(ctx, o.annotator);
  if (!ctx.labels.canLabel(dataset.id, annotator)) throw cliRefusal(ctx, SheetUsageError, 'cli.may_not_label', { email: annotator.email, dataset: dataset.name });
  const language = o.language === 'zh' || o.language === 'en' ? o.language : annotator.locale ?? dataset.language;
  const limit = o.limit === undefined ? undefined : Number(o.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new SheetUsageError('--limit takes a whole number above 0');
  const tmp = `${o.out}.partial`;
  try {
    const n = await writeLabellingSheet(sheetQueries(ctx.db), { dataset, annotator, criteria: ctx.criteria.forDataset(dataset.id), t: translator(language), ...(limit ? { limit } : {}) },
      fs.createWriteStream(tmp));
    fs.renameSync(tmp, o.out);
    out.print(`wrote ${n} items of ${annotator.email}'s queue to ${o.out}`, { ok: true, dataset: dataset.name, annotator: annotator.email, items: n, file: o.out });
    return 0;
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** Handles `import FILE.xlsx` when the file is a labelling sheet; null when it is not one (an ordinary import then). */
export async function importLabellingSheet(ctx: AppContext, file: string, o: Record<string, unknown>, out: Out): Promise<number | null> {
  if (!await readSheetMeta(file)) return null;
  if (typeof o.dataset !== 'string') throw new SheetUsageError('a labelling sheet goes back into its dataset: give --dataset NAME');
  const dataset = namedDataset(ctx, o.dataset, SheetUsageError);
  const annotator = expert(ctx, o.annotator);
  const state = o.submit ? 'submitted' : 'draft';
  const result = await applyLabellingSheet(ctx, file, { datasetId: dataset.id, annotator, state, actorId: null });
  const t = translator(ctx.config.cliLocale);
  if (!result.ok) {
    const lines = result.errors.map((e) => t(e.key, e.params));
    if (out.json) out.print('', { ok: false, dataset: dataset.name, errors: lines, total_errors: result.total });
    else out.problem(`${t('sheet.failed')}\n${lines.join('\n')}${result.total > lines.length ? `\n${t('import.more_errors', { n: result.total - lines.length })}` : ''}`);
    return 1;
  }
  out.print(t('sheet.done', { saved: result.saved, state: t(`sheet.state_${result.state}`), unchanged: result.unchanged, empty: result.empty }),
    { ok: true, dataset: dataset.name, annotator: annotator.email, labelling_sheet: true, saved: result.saved, state: result.state, unchanged: result.unchanged, empty: result.empty });
  return 0;
}
