// Rules for datasets (eval sets): unique names, a language, archiving instead of deleting.
import crypto from 'node:crypto';
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { MessageKey } from '../i18n/index.ts';
import { datasetQueries, type DatasetRow } from './queries.ts';
import { ArchivedError } from './archived.ts';
import { checkName, checkText, LIMITS, nameMessage, type NameProblem } from '../limits.ts';

export class DatasetError extends Error {
  constructor(readonly key: MessageKey, readonly field = '_form', readonly params: Record<string, string | number> = {}) { super(key); }
}

/** Someone changed the dataset's settings or assignment since the form was read; `current` is the dataset now. */
export class DatasetConflict extends Error {
  constructor(readonly current: DatasetRow) { super('conflict'); }
}

export interface DatasetInput {
  name: string;
  description: string;
  language: 'zh' | 'en';
  domain: string;
}

/** What is wrong with a dataset's name, domain or description, or null: the same rules for the form, the command line and a restore. */
export function datasetInputProblem(input: Pick<DatasetInput, 'name' | 'description' | 'domain'>): { field: 'name' | 'domain' | 'description'; problem: NameProblem } | null {
  const name = checkName(input.name, LIMITS.datasetName);
  if (name) return { field: 'name', problem: name };
  const domain = checkName(input.domain, LIMITS.domain);
  if (domain) return { field: 'domain', problem: domain };
  const description = checkText(input.description, LIMITS.description);
  return description && { field: 'description', problem: description };
}

/** Refuses a dataset input as the form shows it: the field and its message. */
function validate(input: DatasetInput): void {
  if (input.name.trim() === '') throw new DatasetError('err.required', 'name');
  const found = datasetInputProblem(input);
  if (!found) return;
  const { key, params } = nameMessage(found.problem);
  throw new DatasetError(key, found.field, params);
}

function snapshot(d: DatasetRow) {
  return { name: d.name, description: d.description, language: d.language, domain: d.domain, archived: d.archived === 1 };
}

export function datasetService(db: DB, audit: AuditQueries) {
  const q = datasetQueries(db);
  return {
    queries: q,
    get: (id: number) => q.byId(id),
    byName: (name: string) => q.byName(name),
    list: (includeArchived = false) => q.list(includeArchived),

    create(actorId: number | null, input: DatasetInput): DatasetRow {
      validate(input);
      return db.transaction(() => {
        if (q.byName(input.name)) throw new DatasetError('err.dataset_name_taken', 'name');
        // The seed fixes the calibration/held-out split for the life of the dataset.
        const id = q.insert({ ...input, seed: crypto.randomInt(1, 2 ** 31 - 1), by: actorId });
        const created = q.byId(id)!;
        audit.record({ actorId, entityType: 'dataset', entityId: id, datasetId: id, action: 'create', after: snapshot(created) });
        return created;
      })();
    },

    /**
     * Settings are read-only while the dataset is archived, except for un-archiving it.
     * `expectedVersion` is the version the form was read at: another change since then is a conflict.
     */
    update(actorId: number, id: number, expectedVersion: number, input: DatasetInput & { archived: boolean }): DatasetRow {
      validate(input);
      return db.transaction(() => {
        const before = q.byId(id);
        if (!before) throw new DatasetError('err.not_found');
        if (before.archived && input.archived) throw new ArchivedError(id);
        if (before.version !== expectedVersion) throw new DatasetConflict(before);
        const clash = q.byName(input.name);
        if (clash && clash.id !== id) throw new DatasetError('err.dataset_name_taken', 'name');
        q.update({ id, ...input, archived: input.archived ? 1 : 0, version: before.version });
        const after = q.byId(id)!;
        audit.record({ actorId, entityType: 'dataset', entityId: id, datasetId: id, action: 'update', before: snapshot(before), after: snapshot(after) });
        return after;
      })();
    },

    /** For the CLI's `import --dataset NAME`: the named dataset, created if it does not exist yet. */
    ensure(actorId: number | null, name: string, language: 'zh' | 'en'): { dataset: DatasetRow; created: boolean } {
      const existing = q.byName(name);
      if (existing) return { dataset: existing, created: false };
      return { dataset: this.create(actorId, { name, description: '', language, domain: '' }), created: true };
    },
  };
}

export type DatasetService = ReturnType<typeof datasetService>;
