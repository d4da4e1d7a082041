// Which score columns `export --responses --run NAME` adds: every run of each name, in the column
// Ragas writes that metric in (goldset's context_precision_without_reference as
// llm_context_precision_without_reference, rouge_score as rouge_score(mode=fmeasure), …; an
// imported run keeps its file's column name), so goldset's scores read like a Ragas results table.
import type { MetricRegistry } from '../judge/registry.ts';
import type { RunQueries } from '../judge/run-queries.ts';
import type { ScoreColumn } from './export-responses.ts';
import { translator, type MessageKey, type Params } from '../i18n/index.ts';

/** A run asked for that cannot be exported; `key` and `params` say why in any language, `message` in English (logs). */
export class ExportRunError extends Error {
  constructor(readonly key: MessageKey, readonly params: Params) { super(translator('en')(key, params)); }
}

export function scoreColumnsOf(deps: { runs: RunQueries; registry: MetricRegistry }, datasetId: number, names: readonly string[]): ScoreColumn[] {
  const columns: (ScoreColumn & { run: string })[] = [];
  for (const name of names) {
    const runs = deps.runs.byNameAny(datasetId, name);
    if (runs.length === 0) throw new ExportRunError('export.no_run', { name });
    for (const run of runs) {
      const column = run.source === 'goldset' ? (deps.registry.get(datasetId, run.metric_key)?.ragas_column ?? run.metric_key) : run.metric_key;
      const taken = columns.find((c) => c.column === column);
      if (taken) throw new ExportRunError('export.run_column_taken', { a: taken.run, b: run.name, column });
      columns.push({ column, runId: run.id, run: run.name });
    }
  }
  return columns.map(({ column, runId }) => ({ column, runId }));
}
