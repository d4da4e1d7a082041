// The calibrated judge for a Python pipeline: the metric's prompts as the files Ragas's load_prompts
// reads (server/judge/ragas-prompts.ts), plus goldset-calibration.json: which prompt version each
// step is, and the calibration of a run that used exactly those versions (never a run of another
// version), with its n and item ids. The same files for the CLI (a directory) and the Metrics page (a zip).
import type { DatasetRow } from '../datasets/queries.ts';
import type { PromptStore } from '../judge/prompt-store.ts';
import { ragasMetricNames, ragasPromptFiles, RAGAS_VERSION, type PromptFile } from '../judge/ragas-prompts.ts';
import type { MetricDefinition } from '../judge/types.ts';
import { describeChange, describePrompts, identityOfRun, promptsIdentity, type JudgeIdentity } from './judge-identity.ts';
import type { CalibrationService } from './service.ts';

export const CALIBRATION_FILE = 'goldset-calibration.json';

export class ExportJudgeError extends Error {
  constructor(readonly code: 'no_ragas_prompts' | 'bad_version', message: string) { super(message); }
}

const FIGURES_LEFT_OUT = new Set(['ci95', 'figure_n', 'notes', 'excluded', 'n', 'kind']);

export interface CalibratedJudge { files: PromptFile[]; language: string; calibrated: boolean }

export function calibratedJudge(deps: { prompts: PromptStore; calibration: CalibrationService }, dataset: DatasetRow, metric: MetricDefinition,
  version?: number): CalibratedJudge {
  let used;
  try { used = deps.prompts.resolve(dataset.id, metric, dataset.language, version); } catch (e) { throw new ExportJudgeError('bad_version', (e as Error).message); }
  const ragas = ragasPromptFiles(metric, used);
  if (!ragas) throw new ExportJudgeError('no_ragas_prompts', `${metric.key} has no prompts that Ragas can load (non-LLM and composite metrics have none)`);
  const identity: JudgeIdentity = { imported: false, model: '', embedding_model: '', prompts: promptsIdentity(used), settings: {} };
  const match = deps.calibration.matching(dataset.id, metric.key, identity, 'prompts');
  const languages = [...new Set(ragas.steps.map((s) => s.language))];

  let calibration: Record<string, unknown> | null = null;
  let note: string | null = null;
  if (match.found) {
    const c = match.found;
    const report = JSON.parse(c.report) as Record<string, unknown>;
    calibration = {
      criterion: c.criterion, run: c.run, part: c.part, recorded_at: c.created_at,
      judge: { model: match.identity.model, embedding_model: match.identity.embedding_model, settings: match.identity.settings },
      prompt_versions: Object.fromEntries(Object.entries(match.identity.prompts).map(([step, p]) => [step, p.version])),
      strength: { name: c.strength_name, value: c.strength },
      n: report.n, excluded: report.excluded,
      figures: Object.fromEntries(Object.entries(report).filter(([k]) => !FIGURES_LEFT_OUT.has(k))),
      ci95: report.ci95,
      item_ids: JSON.parse(c.item_ids) as number[],
    };
  } else {
    note = match.latest
      ? `no calibration of these prompt versions (${describePrompts(identity.prompts)}); the latest calibration was of run "${match.latest.run}" `
        + `(${describePrompts(identityOfRun(match.latest).prompts)}): ${match.changes.map(describeChange).join('; ')}. Score a run with these versions and record its report.`
      : `${metric.key} has never been calibrated against an expert criterion`;
  }
  const body = {
    format: 'goldset-calibration/1',
    dataset: dataset.name, metric: metric.key, ragas_version: RAGAS_VERSION, ragas_metrics: ragasMetricNames(metric),
    language: languages.length === 1 ? languages[0] : languages,
    exported_at: new Date().toISOString(),
    prompts: Object.fromEntries(ragas.steps.map((s) => [s.step, {
      ragas_prompt: s.ragas_prompt, files: s.files, version: used[s.step]!.version, sha256: identity.prompts[s.step]!.sha256,
      examples: s.examples, example_items: used[s.step]!.examples.flatMap((e) => (typeof e.response_id === 'number' ? [e.response_id] : [])),
      ...(s.skipped_examples.length ? { skipped_examples: s.skipped_examples } : {}),
    }])),
    calibration,
    calibration_note: note,
  };
  return { files: [...ragas.files, { name: CALIBRATION_FILE, content: `${JSON.stringify(body, null, 2)}\n` }], language: body.language as string, calibrated: calibration !== null };
}
