// Prompt versions: every LLM step of every metric has its built-in default per language, and each
// edit in a dataset is saved as a new version. A run records which versions it used.
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { Language, MetricDefinition, PromptInUse, PromptTemplate } from './types.ts';
import { writableGuard } from '../datasets/archived.ts';

export interface PromptVersionRow {
  id: number; dataset_id: number; metric_key: string; step: string; version: number; template: string; note: string;
  created_by: number | null; creator_email: string | null; created_at: string;
}

/** Someone saved a version of the step since the editor showed `basedOn`; `latest` is theirs. */
export class PromptVersionConflict extends Error {
  constructor(readonly latest: PromptVersionRow) { super('conflict'); }
}

export function promptStore(db: DB, audit: AuditQueries) {
  const writable = writableGuard(db);
  const s = {
    latest: db.prepare<[number, string, string], PromptVersionRow>(`SELECT p.*, u.email AS creator_email FROM prompt_version p
      LEFT JOIN user u ON u.id = p.created_by WHERE p.dataset_id = ? AND p.metric_key = ? AND p.step = ? ORDER BY p.version DESC LIMIT 1`),
    byVersion: db.prepare<[number, string, string, number], PromptVersionRow>(`SELECT p.*, u.email AS creator_email FROM prompt_version p
      LEFT JOIN user u ON u.id = p.created_by WHERE p.dataset_id = ? AND p.metric_key = ? AND p.step = ? AND p.version = ?`),
    all: db.prepare<[number, string, string], PromptVersionRow>(`SELECT p.*, u.email AS creator_email FROM prompt_version p
      LEFT JOIN user u ON u.id = p.created_by WHERE p.dataset_id = ? AND p.metric_key = ? AND p.step = ? ORDER BY p.version DESC`),
    insert: db.prepare(`INSERT INTO prompt_version (dataset_id, metric_key, step, version, template, note, created_by)
      VALUES (@dataset_id, @metric_key, @step,
        (SELECT coalesce(max(version), 0) + 1 FROM prompt_version WHERE dataset_id = @dataset_id AND metric_key = @metric_key AND step = @step),
        @template, @note, @created_by)`),
    byId: db.prepare<[number], PromptVersionRow>('SELECT p.*, NULL AS creator_email FROM prompt_version p WHERE id = ?'),
  };

  return {
    /** The prompts a run uses: the given version (all steps) or the latest saved, else the default in the dataset's language. */
    resolve(datasetId: number, metric: MetricDefinition, language: Language, version?: number): Record<string, PromptInUse> {
      const out: Record<string, PromptInUse> = {};
      for (const step of metric.steps) {
        const row = version !== undefined ? s.byVersion.get(datasetId, metric.key, step.step, version) : s.latest.get(datasetId, metric.key, step.step);
        if (version !== undefined && version > 0 && !row) throw new Error(`no version ${version} of the ${metric.key} prompt for step ${step.step}`);
        out[step.step] = row ? { ...(JSON.parse(row.template) as PromptTemplate), version: row.version } : { ...step.defaults[language], version: null };
      }
      return out;
    },
    versions: (datasetId: number, metricKey: string, step: string) => s.all.all(datasetId, metricKey, step),
    /**
     * Saves the template as the step's next version. `basedOn` is the version an editor showed (0: the
     * default): when another was saved since, nothing is saved and PromptVersionConflict names it.
     */
    save(actorId: number | null, datasetId: number, metricKey: string, step: string, template: PromptTemplate, note: string, basedOn?: number): PromptVersionRow {
      return db.transaction(() => {
        writable(datasetId);
        // Versions are never removed: with none saved yet, nobody's work can be overwritten.
        const latest = basedOn === undefined ? undefined : s.latest.get(datasetId, metricKey, step);
        if (latest && latest.version !== basedOn) throw new PromptVersionConflict(latest);
        const id = Number(s.insert.run({ dataset_id: datasetId, metric_key: metricKey, step, template: JSON.stringify(template), note, created_by: actorId }).lastInsertRowid);
        const row = s.byId.get(id)!;
        audit.record({ actorId, entityType: 'prompt', entityId: id, datasetId, action: 'new_version', after: { metric: metricKey, step, version: row.version, note } });
        return row;
      })();
    },
  };
}

export type PromptStore = ReturnType<typeof promptStore>;
