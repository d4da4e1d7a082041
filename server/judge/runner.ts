// Runs scoring: a metric over a dataset's responses with bounded concurrency. Each score is stored
// the moment it is computed, so a run killed halfway resumes where it stopped; identical calls come
// from the LLM cache, so a resumed or repeated run pays only for what changed.
import type { DB } from '../db/connection.ts';
import type { Logger } from '../log.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { JudgeClient } from '../llm/client.ts';
import type { JudgeSettings } from './settings.ts';
import type { PromptStore } from './prompt-store.ts';
import type { MetricRegistry } from './registry.ts';
import { hasSettings, resolveSettings, type MetricSettings, type MetricSettingsStore } from './metric-settings.ts';
import type { Language, MetricDefinition, PromptInUse, ScoreResult, ScoringItem } from './types.ts';
import { runQueries, type RunRow, type Selection } from './run-queries.ts';
import { writableGuard } from '../datasets/archived.ts';
import { boundTrace } from './stored-trace.ts';
import { checkName, LIMITS, sqlListOverLimit } from '../limits.ts';
import { translator, type Params } from '../i18n/index.ts';
import type { ReleaseService, ReleaseRow } from '../releases/service.ts';

type RunErrorCode = 'unknown_metric' | 'no_judge' | 'name_taken' | 'name_too_long' | 'name_unsafe' | 'no_items' | 'bad_prompt_version' | 'bad_setting';

/** Why a run cannot be created: `key` and `params` word it in the user's language (its message is the English, with `detail` for the log). */
export class RunError extends Error {
  readonly key: `err.run_${RunErrorCode}`;
  constructor(readonly code: RunErrorCode, readonly params: Params = {}, detail?: string) {
    super(translator('en')(`err.run_${code}`, params) + (detail ? ` (${detail})` : ''));
    this.key = `err.run_${code}`;
  }
}

interface Active { cancelled: boolean; done: Promise<void> }

const PAGE = 200;

export function runManager(db: DB, log: Logger, audit: AuditQueries,
  deps: { settings: JudgeSettings; prompts: PromptStore; registry: MetricRegistry; metricSettings: MetricSettingsStore; releases: ReleaseService;
    /** Runs a write outside any group commit (group-commit.ts alone): a run goes on after each write as if it was kept. */
    alone: <T>(write: () => T) => T }) {
  const runs = runQueries(db);
  const { alone } = deps;
  const active = new Map<number, Active>();
  // An item over the input limits (stored before they existed) is not sent to the judge: a million
  // contexts would be a million calls. It is skipped with the reason 'over_limit'.
  const overLimit = `(length(r.answer) > ${LIMITS.answer} OR length(s.question) > ${LIMITS.question} OR length(s.ground_truth) > ${LIMITS.groundTruth}
    OR ${sqlListOverLimit('r.retrieved_contexts', LIMITS.contexts, LIMITS.context)} OR ${sqlListOverLimit('s.reference_contexts', LIMITS.contexts, LIMITS.context)})`;
  const itemOf = db.prepare<[number], { sample_id: number; answer: string; retrieved_contexts: string; question: string; ground_truth: string; reference_contexts: string; over: 0 | 1 }>(`
    SELECT ${overLimit} AS over, r.sample_id, r.answer, r.retrieved_contexts, s.question, s.ground_truth, s.reference_contexts
    FROM response r JOIN sample s ON s.id = r.sample_id WHERE r.id = ?`);
  const languageOf = db.prepare<[number]>('SELECT language FROM dataset WHERE id = ?').pluck();
  const writable = writableGuard(db);

  /** What the judge reads: the item as released for a run on a release, else as it is now. */
  function item(responseId: number, release: ReleaseRow | null): ScoringItem | 'over_limit' | null {
    const row = itemOf.get(responseId);
    if (release) {
      const current = row ? { sample_id: row.sample_id, answer: row.answer, retrieved_contexts: JSON.parse(row.retrieved_contexts) as string[] } : null;
      return deps.releases.scoringContent(release, responseId, current);
    }
    if (!row) return null;
    if (row.over) return 'over_limit';
    return {
      question: row.question, answer: row.answer, ground_truth: row.ground_truth,
      retrieved_contexts: JSON.parse(row.retrieved_contexts) as string[], reference_contexts: JSON.parse(row.reference_contexts) as string[],
    };
  }

  async function scoreOne(run: RunRow, metric: MetricDefinition, responseId: number, judge: JudgeClient | null, prompts: Record<string, PromptInUse>,
    release: ReleaseRow | null): Promise<ScoreResult> {
    const it = item(responseId, release);
    const empty = { steps: [], computation: '' };
    if (!it) return { status: 'skipped', value: null, reason: 'response_deleted', trace: empty };
    if (it === 'over_limit') return { status: 'skipped', value: null, reason: 'over_limit', trace: empty };
    for (const need of metric.needs) {
      const missing = need === 'ground_truth' ? !it.ground_truth.trim() : it[need].length === 0;
      if (missing) return { status: 'skipped', value: null, reason: `no_${need}`, trace: empty };
    }
    try {
      return await metric.score(it, { judge: judge ?? unavailableJudge, prompts });
    } catch (err) {
      log.error('run.item_failed', { run: run.id, response: responseId, message: (err as Error).message });
      return { status: 'error', value: null, reason: 'internal', trace: { steps: [], computation: (err as Error).message } };
    }
  }

  async function execute(run: RunRow, state: Active): Promise<void> {
    runs.setStatus(run.id, 'running');
    const recorded = JSON.parse(run.prompts) as { used?: Record<string, PromptInUse>; settings?: MetricSettings };
    const metric = deps.registry.get(run.dataset_id, run.metric_key, recorded.settings);
    if (!metric) { runs.setStatus(run.id, 'failed', `unknown metric ${run.metric_key}`); return; }
    const judge = metric.kind === 'llm' ? deps.settings.client({ maxConcurrency: run.concurrency }) : null;
    if (metric.kind === 'llm' && !judge) { runs.setStatus(run.id, 'failed', 'no judge endpoint configured'); return; }
    const prompts = recorded.used ?? {};
    const limitedTo = (JSON.parse(run.selection) as Selection).release;
    const release = limitedTo ? deps.releases.byId(limitedTo.id) ?? null : null;
    if (limitedTo && (!release || release.hash !== limitedTo.hash)) { runs.setStatus(run.id, 'failed', `release ${limitedTo.tag} was deleted`); return; }
    let reported = { llm_calls: 0, cached_calls: 0, prompt: 0, completion: 0 };
    const flushUsage = () => {
      if (!judge) return;
      const st = judge.stats();
      const now = { llm_calls: st.llm_calls, cached_calls: st.cached_calls, prompt: st.tokens.prompt, completion: st.tokens.completion };
      runs.addUsage(run.id, { llm_calls: now.llm_calls - reported.llm_calls, cached_calls: now.cached_calls - reported.cached_calls,
        prompt: now.prompt - reported.prompt, completion: now.completion - reported.completion });
      reported = now;
    };

    // A shared cursor over the pending responses; workers pull from it until it is empty or the run is cancelled.
    let buffer: number[] = [];
    let after = 0;
    let exhausted = false;
    const next = (): number | undefined => {
      if (!buffer.length && !exhausted) {
        buffer = runs.pendingPage(run, after, PAGE);
        if (buffer.length) after = buffer[buffer.length - 1]!; else exhausted = true;
      }
      return buffer.shift();
    };
    const worker = async () => {
      for (let id = next(); id !== undefined && !state.cancelled; id = next()) {
        const result = await scoreOne(run, metric, id, judge, prompts, release);
        // Its own commit: the cursor moves past this item, so a score lost with a failed group commit would never be written.
        alone(() => {
          runs.insertScore({ run_id: run.id, response_id: id, status: result.status, value: result.value, reason: result.reason, trace: JSON.stringify(boundTrace(result.trace)) });
          flushUsage();
        });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, run.concurrency) }, worker));
    alone(() => {
      flushUsage();
      runs.setStatus(run.id, state.cancelled ? 'cancelled' : 'done');
    });
    log.info('run.finished', { run: run.id, status: state.cancelled ? 'cancelled' : 'done', ...runs.summary(run.id), reasons: undefined });
  }

  return {
    queries: runs,

    /** Creates a goldset run (queued); the prompts it will use are frozen into the run now. */
    create(actorId: number | null, datasetId: number, input: {
      name: string; metricKey: string; promptVersion?: number | undefined; concurrency?: number | undefined; selection?: Selection;
      prompts?: Record<string, PromptInUse>;
      /** Overrides of the dataset's settings of the metric, for this run (e.g. the CLI's --noncommittal). */
      settings?: MetricSettings | undefined;
    }): RunRow {
      writable(datasetId);
      let settings: MetricSettings | undefined;
      try {
        settings = hasSettings(input.metricKey) ? resolveSettings(input.metricKey, deps.metricSettings.get(datasetId, input.metricKey).settings, input.settings) : undefined;
      } catch (e) { throw new RunError('bad_setting', {}, (e as Error).message); }
      const metric = deps.registry.get(datasetId, input.metricKey, settings);
      if (!metric) throw new RunError('unknown_metric', {}, input.metricKey);
      const judge = deps.settings.effective();
      if (metric.kind === 'llm' && !judge) throw new RunError('no_judge');
      const nameProblem = checkName(input.name, LIMITS.runName);
      if (nameProblem) throw nameProblem.code === 'too_long' ? new RunError('name_too_long', { limit: LIMITS.runName }) : new RunError('name_unsafe');
      if (runs.byName(datasetId, input.name, metric.key)) throw new RunError('name_taken', {}, `${input.name}, ${metric.key}`);
      const language = (languageOf.get(datasetId) as Language | undefined) ?? 'en';
      let used: Record<string, PromptInUse>;
      try { used = input.prompts ?? deps.prompts.resolve(datasetId, metric, language, input.promptVersion); } catch (e) { throw new RunError('bad_prompt_version', {}, (e as Error).message); }
      const selection = input.selection ?? {};
      const n = runs.countSelection(datasetId, selection);
      if (n === 0) throw new RunError('no_items');
      return db.transaction(() => {
        const id = runs.insert({
          dataset_id: datasetId, name: input.name, metric_key: metric.key, source: 'goldset', status: 'queued',
          model: metric.kind === 'llm' ? judge!.chat_model : '', embedding_model: metric.uses_embeddings ? judge!.embedding_model : '',
          prompts: JSON.stringify({ versions: Object.fromEntries(Object.entries(used).map(([k, v]) => [k, v.version])), used, ...(settings ? { settings } : {}) }),
          selection: JSON.stringify(selection), concurrency: input.concurrency ?? judge?.max_concurrency ?? 16, n_total: n, created_by: actorId,
        });
        audit.record({ actorId, entityType: 'run', entityId: id, datasetId, action: 'create', after: { name: input.name, metric: metric.key, n } });
        return runs.byId(id)!;
      })();
    },

    /** Starts (or resumes) a run in the background; the promise settles when it stops. */
    start(runId: number): Promise<void> {
      const existing = active.get(runId);
      if (existing) return existing.done;
      const run = runs.byId(runId);
      if (!run || run.status === 'done' || run.source !== 'goldset') return Promise.resolve();
      const state: Active = { cancelled: false, done: Promise.resolve() };
      state.done = execute(run, state)
        .catch((err: unknown) => {
          log.error('run.failed', { run: runId, message: (err as Error).message, stack: (err as Error).stack });
          runs.setStatus(runId, 'failed', (err as Error).message);
        })
        .finally(() => active.delete(runId));
      active.set(runId, state);
      return state.done;
    },

    cancel(actorId: number | null, runId: number): boolean {
      const state = active.get(runId);
      const run = runs.byId(runId);
      if (!run) return false;
      if (state) state.cancelled = true;
      else if (run.status === 'queued' || run.status === 'running') runs.setStatus(runId, 'cancelled');
      else return false;
      audit.record({ actorId, entityType: 'run', entityId: runId, datasetId: run.dataset_id, action: 'cancel' });
      return true;
    },

    /** Archives a run (hidden from lists and default pickers, still readable) or brings it back. */
    setArchived(actorId: number | null, runId: number, archived: boolean): void {
      db.transaction(() => {
        const run = runs.byId(runId);
        if (!run || (run.archived === 1) === archived) return;
        runs.setArchived(runId, archived);
        audit.record({ actorId, entityType: 'run', entityId: runId, datasetId: run.dataset_id, action: archived ? 'archive' : 'unarchive', after: { name: run.name } });
      })();
    },

    /** After a restart: runs that were going when the process stopped carry on. */
    resumeUnfinished(): number[] {
      const ids = runs.unfinished().map((r) => r.id);
      for (const id of ids) void this.start(id);
      return ids;
    },

    isActive: (runId: number) => active.has(runId),
  };
}

/** Stands in where a non-LLM metric is asked for an LLM by mistake: fails loudly instead of hanging. */
const unavailableJudge = {
  chatJson: () => Promise.reject(new Error('this metric has no judge')),
  embed: () => Promise.reject(new Error('this metric has no judge')),
};

export type RunManager = ReturnType<typeof runManager>;
