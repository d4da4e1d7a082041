// `goldset export-judge`: writes a metric's prompts as the files Ragas's load_prompts(dir, language)
// reads, and goldset-calibration.json beside them, into a folder.
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../app-context.ts';
import { calibratedJudge, CALIBRATION_FILE, ExportJudgeError } from './export-judge.ts';
import { CalibrationUsageError } from './cli.ts';
import { namedDataset, namedMetric, cliRefusal } from '../datasets/named.ts';
import type { Printer } from '../io/cli-out.ts';

const USAGE = 'usage: export-judge --dataset NAME --metric KEY --out DIR [--version N]';

export function cmdExportJudge(ctx: AppContext, o: Record<string, unknown>, out: Printer): number {
  if (typeof o.dataset !== 'string' || typeof o.metric !== 'string' || typeof o.out !== 'string' || !o.out) throw new CalibrationUsageError(USAGE);
  const dataset = namedDataset(ctx, o.dataset, CalibrationUsageError);
  const metric = namedMetric(ctx, dataset, o.metric, CalibrationUsageError);
  if (o.version !== undefined && !/^\d{1,9}$/.test(String(o.version))) throw new CalibrationUsageError(`--version takes a whole number, got ${String(o.version)}`);
  let judge;
  try {
    judge = calibratedJudge(ctx, dataset, metric, o.version === undefined ? undefined : Number(o.version));
  } catch (err) {
    if (err instanceof ExportJudgeError) throw cliRefusal(ctx, CalibrationUsageError, `ragas.export_${err.code}`);
    throw err;
  }
  fs.mkdirSync(o.out, { recursive: true });
  // Each file replaces the one of the same name whole (written aside, then renamed), so the folder
  // can be exported into again on every turn of the loop; Ragas's load_prompts ignores other files.
  for (const f of judge.files) {
    const target = path.join(o.out, f.name);
    fs.writeFileSync(`${target}.partial`, f.content);
    fs.renameSync(`${target}.partial`, target);
  }
  const calibration = JSON.parse(judge.files.find((f) => f.name === CALIBRATION_FILE)!.content) as { calibration: { n: number; run: string } | null; calibration_note: string | null };
  const names = judge.files.map((f) => f.name);
  out.print([
    `wrote ${names.length} files to ${o.out}: ${names.join(', ')}`,
    calibration.calibration ? `calibration: run "${calibration.calibration.run}", n = ${calibration.calibration.n}` : `no calibration: ${calibration.calibration_note}`,
    `load in Python: metric.set_prompts(**metric.load_prompts("${o.out}", "${judge.language}"))`,
  ].join('\n'), { ok: true, dataset: dataset.name, metric: metric.key, dir: o.out, files: names, language: judge.language, calibrated: judge.calibrated });
  return 0;
}
