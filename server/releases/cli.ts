// `goldset release` (freeze a dataset's approved samples under a tag) and the release side of
// `goldset export --release TAG`.
import fs from 'node:fs';
import type { AppContext } from '../app-context.ts';
import type { ExportFormat } from '../importexport/export.ts';
import { ReleaseError } from './service.ts';
import { ReleaseExportError, releaseExportRefusal, writeReleaseExport } from './export.ts';
import { translator } from '../i18n/index.ts';
import { namedDataset, taggedRelease } from '../datasets/named.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { englishCount } from '../i18n/english-count.ts';
import type { Printer } from '../io/cli-out.ts';

export class ReleaseUsageError extends Error {}

/** The exact keys other programs read from `release --json`. */
export const RELEASE_JSON_KEYS = ['tag', 'hash', 'samples', 'responses', 'created_at'] as const;

export async function cmdRelease(ctx: AppContext, o: Record<string, unknown>, out: Printer): Promise<number> {
  if (typeof o.dataset !== 'string' || typeof o.tag !== 'string') {
    throw new ReleaseUsageError('usage: release --dataset NAME --tag TAG [--responses] [--note TEXT] [--json]');
  }
  const dataset = namedDataset(ctx, o.dataset, ReleaseUsageError);
  try {
    const r = ctx.releases.create(null, dataset, { tag: o.tag, note: typeof o.note === 'string' ? o.note : '', responses: Boolean(o.responses) });
    out.print(`released "${dataset.name}" as ${r.tag}: ${englishCount(r.n_samples, 'sample')}, ${englishCount(r.n_responses, 'response')}\nsha256 ${r.hash}`,
      { tag: r.tag, hash: r.hash, samples: r.n_samples, responses: r.n_responses, created_at: r.created_at });
    return 0;
  } catch (err) {
    if (err instanceof ReleaseError) throw new ReleaseUsageError(translator(ctx.config.cliLocale)(err.key, err.params));
    throw err;
  }
}

/** Writes one export of a release to FILE (through FILE.partial, renamed when complete). */
export async function exportRelease(ctx: AppContext, dataset: DatasetRow, tag: string, format: ExportFormat, responses: boolean, file: string): Promise<number> {
  const release = taggedRelease(ctx, dataset, tag, ReleaseUsageError);
  const tmp = `${file}.partial`;
  const stream = fs.createWriteStream(tmp);
  try {
    const n = await writeReleaseExport(ctx.releases, release, format, responses, stream);
    fs.renameSync(tmp, file);
    return n;
  } catch (err) {
    stream.destroy();
    fs.rmSync(tmp, { force: true });
    if (err instanceof ReleaseExportError) throw new ReleaseUsageError(releaseExportRefusal(err, release, translator(ctx.config.cliLocale)));
    throw err;
  }
}
