// SQL for scoring runs and their scores.
import type { DB } from '../db/connection.ts';
import { PREVIEW_CHARS } from '../samples/queries.ts';

export type RunStatus = 'queued' | 'running' | 'done' | 'cancelled' | 'failed';

export interface RunRow {
  id: number; dataset_id: number; name: string; metric_key: string; source: 'goldset' | 'imported'; status: RunStatus;
  model: string; embedding_model: string; prompts: string; selection: string; concurrency: number; n_total: number;
  llm_calls: number; cached_calls: number; prompt_tokens: number; completion_tokens: number; error: string | null;
  created_by: number | null; created_at: string; started_at: string | null; finished_at: string | null; archived: 0 | 1;
}

export interface RunSummary {
  scored: number; errored: number; skipped: number; mean: number | null;
  reasons: { status: string; reason: string; n: number }[];
}

export interface ScoreRow { run_id: number; response_id: number; status: 'ok' | 'error' | 'skipped'; value: number | null; reason: string | null; trace: string | null; scored_at: string }

/** Which responses a run scores; `part` names the holdout part the ids were drawn from, for display. */
export interface Selection {
  system?: string; response_ids?: number[]; part?: 'calibration' | 'held_out';
  /** The release the run is limited to (its items, scored as released); none: the unreleased working copy. */
  release?: { id: number; tag: string; hash: string };
}

export function runQueries(db: DB) {
  const s = {
    byId: db.prepare<[number], RunRow>('SELECT * FROM run WHERE id = ?'),
    byName: db.prepare<[number, string, string], RunRow>('SELECT * FROM run WHERE dataset_id = ? AND name = ? AND metric_key = ?'),
    byNameAny: db.prepare<[number, string], RunRow>('SELECT * FROM run WHERE dataset_id = ? AND name = ? ORDER BY id'),
    forDataset: db.prepare<[number, number], RunRow>('SELECT * FROM run WHERE dataset_id = ? AND archived <= ? ORDER BY id DESC LIMIT 200'),
    setArchived: db.prepare<[number, number]>('UPDATE run SET archived = ? WHERE id = ?'),
    unfinished: db.prepare<[], RunRow>("SELECT * FROM run WHERE status IN ('queued', 'running') AND source = 'goldset' ORDER BY id"),
    insert: db.prepare(`INSERT INTO run (dataset_id, name, metric_key, source, status, model, embedding_model, prompts, selection, concurrency, n_total, created_by)
      VALUES (@dataset_id, @name, @metric_key, @source, @status, @model, @embedding_model, @prompts, @selection, @concurrency, @n_total, @created_by)`),
    setStatus: db.prepare<{ id: number; status: RunStatus; error: string | null }>(`UPDATE run SET status = @status, error = @error,
      started_at = CASE WHEN @status = 'running' AND started_at IS NULL THEN strftime('%Y-%m-%dT%H:%M:%fZ', 'now') ELSE started_at END,
      finished_at = CASE WHEN @status IN ('done', 'cancelled', 'failed') THEN strftime('%Y-%m-%dT%H:%M:%fZ', 'now') ELSE NULL END
      WHERE id = @id`),
    addUsage: db.prepare(`UPDATE run SET llm_calls = llm_calls + @llm_calls, cached_calls = cached_calls + @cached_calls,
      prompt_tokens = prompt_tokens + @prompt, completion_tokens = completion_tokens + @completion WHERE id = @id`),
    insertScore: db.prepare(`INSERT INTO score (run_id, response_id, status, value, reason, trace) VALUES (@run_id, @response_id, @status, @value, @reason, @trace)
      ON CONFLICT (run_id, response_id) DO NOTHING`),
    summary: db.prepare<[number], { scored: number; errored: number; skipped: number; mean: number | null }>(`SELECT
      count(*) FILTER (WHERE status = 'ok') AS scored, count(*) FILTER (WHERE status = 'error') AS errored,
      count(*) FILTER (WHERE status = 'skipped') AS skipped, avg(value) AS mean FROM score WHERE run_id = ?`),
    reasons: db.prepare<[number], { status: string; reason: string; n: number }>(`SELECT status, coalesce(reason, '') AS reason, count(*) AS n
      FROM score WHERE run_id = ? AND status <> 'ok' GROUP BY status, reason ORDER BY n DESC`),
    scores: db.prepare<{ run: number; limit: number; offset: number; status: string | null }, ScoreRow & { question: string; system: string }>(`
      SELECT sc.run_id, sc.response_id, sc.status, sc.value, sc.reason, NULL AS trace, sc.scored_at, substr(s.question, 1, ${PREVIEW_CHARS}) AS question, r.system
      FROM score sc JOIN response r ON r.id = sc.response_id JOIN sample s ON s.id = r.sample_id
      WHERE sc.run_id = @run AND (@status IS NULL OR sc.status = @status) ORDER BY sc.response_id LIMIT @limit OFFSET @offset`),
    // The same figures for every run of a dataset, in two queries (the runs page).
    summaries: db.prepare<[number], { run_id: number; scored: number; errored: number; skipped: number; mean: number | null }>(`SELECT run_id,
      count(*) FILTER (WHERE status = 'ok') AS scored, count(*) FILTER (WHERE status = 'error') AS errored,
      count(*) FILTER (WHERE status = 'skipped') AS skipped, avg(value) AS mean
      FROM score WHERE run_id IN (SELECT id FROM run WHERE dataset_id = ?) GROUP BY run_id`),
    allReasons: db.prepare<[number], { run_id: number; status: string; reason: string; n: number }>(`SELECT run_id, status, coalesce(reason, '') AS reason,
      count(*) AS n FROM score WHERE run_id IN (SELECT id FROM run WHERE dataset_id = ?) AND status <> 'ok'
      GROUP BY run_id, status, reason ORDER BY run_id, n DESC`),
    score: db.prepare<[number, number], ScoreRow>('SELECT * FROM score WHERE run_id = ? AND response_id = ?'),
    done: db.prepare<[number]>('SELECT count(*) FROM score WHERE run_id = ?').pluck(),
  };

  /** Responses of a run's selection that have no score yet, in id order, a page at a time. */
  function pendingPage(run: RunRow, after: number, limit: number): number[] {
    const sel = JSON.parse(run.selection) as Selection;
    if (sel.response_ids) {
      const done = new Set(db.prepare<[number], number>('SELECT response_id FROM score WHERE run_id = ?').pluck().all(run.id) as number[]);
      return sel.response_ids.filter((id) => id > after && !done.has(id)).sort((a, b) => a - b).slice(0, limit);
    }
    return db.prepare<{ ds: number; run: number; after: number; limit: number; system: string | null }, number>(`
      SELECT r.id FROM response r WHERE r.dataset_id = @ds AND r.id > @after AND (@system IS NULL OR r.system = @system)
        AND NOT EXISTS (SELECT 1 FROM score sc WHERE sc.run_id = @run AND sc.response_id = r.id)
      ORDER BY r.id LIMIT @limit`).pluck().all({ ds: run.dataset_id, run: run.id, after, limit, system: sel.system ?? null }) as number[];
  }

  function countSelection(datasetId: number, sel: Selection): number {
    if (sel.response_ids) return sel.response_ids.length;
    return db.prepare<{ ds: number; system: string | null }>('SELECT count(*) FROM response WHERE dataset_id = @ds AND (@system IS NULL OR system = @system)')
      .pluck().get({ ds: datasetId, system: sel.system ?? null }) as number;
  }

  return {
    byId: (id: number) => s.byId.get(id),
    byName: (datasetId: number, name: string, metricKey: string) => s.byName.get(datasetId, name, metricKey),
    byNameAny: (datasetId: number, name: string) => s.byNameAny.all(datasetId, name),
    /** The dataset's runs, newest first; archived ones only when asked for (lists and default pickers leave them out). */
    forDataset: (datasetId: number, includeArchived = false) => s.forDataset.all(datasetId, includeArchived ? 1 : 0),
    setArchived: (id: number, archived: boolean) => s.setArchived.run(archived ? 1 : 0, id),
    unfinished: () => s.unfinished.all(),
    insert: (r: Omit<RunRow, 'id' | 'llm_calls' | 'cached_calls' | 'prompt_tokens' | 'completion_tokens' | 'error' | 'created_at' | 'started_at' | 'finished_at' | 'archived'>) =>
      Number(s.insert.run(r).lastInsertRowid),
    setStatus: (id: number, status: RunStatus, error: string | null = null) => s.setStatus.run({ id, status, error }),
    addUsage: (id: number, u: { llm_calls: number; cached_calls: number; prompt: number; completion: number }) => s.addUsage.run({ id, ...u }),
    insertScore: (sc: { run_id: number; response_id: number; status: string; value: number | null; reason: string | null; trace: string | null }) => s.insertScore.run(sc),
    summary(id: number): RunSummary {
      return { ...s.summary.get(id)!, reasons: s.reasons.all(id) };
    },
    /** The summary of every run of a dataset that has scores, by run id. */
    summaries(datasetId: number): Map<number, RunSummary> {
      const out = new Map<number, RunSummary>();
      for (const { run_id, ...figures } of s.summaries.all(datasetId)) out.set(run_id, { ...figures, reasons: [] });
      for (const { run_id, ...reason } of s.allReasons.all(datasetId)) out.get(run_id)?.reasons.push(reason);
      return out;
    },
    scores: (run: number, page: { limit: number; offset: number; status?: string | null }) => s.scores.all({ run, ...page, status: page.status ?? null }),
    score: (run: number, responseId: number) => s.score.get(run, responseId),
    done: (id: number) => s.done.get(id) as number,
    pendingPage,
    countSelection,
  };
}

export type RunQueries = ReturnType<typeof runQueries>;
