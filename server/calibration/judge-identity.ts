// Which judge a calibration is about: the judge model, the embedding model, each step's prompt
// version (with a fingerprint of its text, so a changed built-in default counts as a change) and the
// metric's settings, as recorded in the run it was computed from. A calibration speaks for a run, or
// for exported prompts, only when this identity is the same; otherwise the differences are named.
import crypto from 'node:crypto';
import type { RunRow } from '../judge/run-queries.ts';
import type { PromptInUse } from '../judge/types.ts';

export interface JudgeIdentity {
  imported: boolean;
  model: string;
  embedding_model: string;
  /** step → prompt version (null = built-in default) and sha-256 of the template as used. */
  prompts: Record<string, { version: number | null; sha256: string }>;
  settings: Record<string, string>;
}

export type IdentityChange =
  | { what: 'source'; from: 'imported' | 'goldset'; to: 'imported' | 'goldset' }
  | { what: 'model' | 'embedding_model'; from: string; to: string }
  | { what: 'prompt_version'; step: string; from: number | null; to: number | null }
  | { what: 'prompt_text'; step: string; version: number | null }
  | { what: 'setting'; name: string; from: string; to: string };

/** sha-256 of a template's instruction, output format, examples and language, in that order. */
export function templateSha(p: PromptInUse): string {
  return crypto.createHash('sha256').update(JSON.stringify([p.instruction, p.output_format, p.examples, p.language])).digest('hex');
}

export function promptsIdentity(prompts: Record<string, PromptInUse>): JudgeIdentity['prompts'] {
  return Object.fromEntries(Object.entries(prompts).map(([step, p]) => [step, { version: p.version, sha256: templateSha(p) }]));
}

/** The judge a run used, from what the run recorded when it was created. */
export function identityOfRun(run: Pick<RunRow, 'source' | 'model' | 'embedding_model' | 'prompts'>): JudgeIdentity {
  const recorded = JSON.parse(run.prompts) as { used?: Record<string, PromptInUse>; settings?: Record<string, string> };
  return {
    imported: run.source === 'imported', model: run.model, embedding_model: run.embedding_model,
    prompts: promptsIdentity(recorded.used ?? {}), settings: recorded.settings ?? {},
  };
}

/** What differs between the judge a calibration was recorded with and another; [] when they are the same. */
export function identityChanges(calibrated: JudgeIdentity, other: JudgeIdentity): IdentityChange[] {
  const changes: IdentityChange[] = [];
  const src = (i: JudgeIdentity) => (i.imported ? 'imported' : 'goldset');
  if (calibrated.imported !== other.imported) changes.push({ what: 'source', from: src(calibrated), to: src(other) });
  if (calibrated.model !== other.model) changes.push({ what: 'model', from: calibrated.model, to: other.model });
  if (calibrated.embedding_model !== other.embedding_model) changes.push({ what: 'embedding_model', from: calibrated.embedding_model, to: other.embedding_model });
  for (const step of new Set([...Object.keys(calibrated.prompts), ...Object.keys(other.prompts)])) {
    const a = calibrated.prompts[step];
    const b = other.prompts[step];
    if (!a || !b || a.version !== b.version) changes.push({ what: 'prompt_version', step, from: a?.version ?? null, to: b?.version ?? null });
    else if (a.sha256 !== b.sha256) changes.push({ what: 'prompt_text', step, version: a.version });
  }
  for (const name of new Set([...Object.keys(calibrated.settings), ...Object.keys(other.settings)])) {
    const a = calibrated.settings[name] ?? '';
    const b = other.settings[name] ?? '';
    if (a !== b) changes.push({ what: 'setting', name, from: a, to: b });
  }
  return changes;
}

const version = (v: number | null) => (v === null ? 'default' : `v${v}`);

/** "statements v2 · nli default" */
export function describePrompts(prompts: JudgeIdentity['prompts']): string {
  return Object.entries(prompts).map(([step, p]) => `${step} ${version(p.version)}`).join(' · ');
}

/** One change in plain English (the CLI; pages word them from their catalogue). */
export function describeChange(c: IdentityChange): string {
  switch (c.what) {
    case 'source': return `scores ${c.from === 'imported' ? 'imported from a file' : 'from goldset\'s judge'} → ${c.to === 'imported' ? 'imported from a file' : 'from goldset\'s judge'}`;
    case 'model': return `judge model ${c.from || '(none)'} → ${c.to || '(none)'}`;
    case 'embedding_model': return `embedding model ${c.from || '(none)'} → ${c.to || '(none)'}`;
    case 'prompt_version': return `prompt ${c.step} ${version(c.from)} → ${version(c.to)}`;
    case 'prompt_text': return `prompt ${c.step} ${version(c.version)} has other text (goldset's built-in default changed)`;
    case 'setting': return `setting ${c.name} ${c.from || '(default)'} → ${c.to || '(default)'}`;
  }
}
