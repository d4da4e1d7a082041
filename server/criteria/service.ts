// Rules for criteria: valid shapes, unique names per dataset, options that never lose a used value.
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { MessageKey } from '../i18n/index.ts';
import { criterionQueries, type Criterion } from './queries.ts';
import { BINARY_OPTIONS, type CriterionKind, type CriterionOption, type CriterionTarget } from './values.ts';

export class CriterionError extends Error {
  constructor(readonly key: MessageKey, readonly field = '_form') { super(key); }
}

export interface CriterionInput {
  name: string;
  kind: CriterionKind;
  target: CriterionTarget;
  options: CriterionOption[];
  scale_min: number | null;
  scale_max: number | null;
  guidelines: string;
}

function validate(input: CriterionInput): CriterionInput {
  if (input.kind === 'categorical' && input.options.length < 2) throw new CriterionError('err.criterion_options', 'options');
  if (new Set(input.options.map((o) => o.value)).size !== input.options.length) throw new CriterionError('err.criterion_options_unique', 'options');
  if (input.kind === 'ordinal') {
    if (input.scale_min === null || input.scale_max === null || input.scale_min >= input.scale_max || input.scale_max - input.scale_min > 9) {
      throw new CriterionError('err.criterion_scale', 'scale_max');
    }
  }
  const options = input.kind === 'binary' ? (input.options.length === 2 ? input.options.map((o, i) => ({ value: i === 0 ? '1' : '0', label: o.label })) : BINARY_OPTIONS)
    : input.kind === 'categorical' ? input.options : [];
  const ordinal = input.kind === 'ordinal';
  return { ...input, options, scale_min: ordinal ? input.scale_min : null, scale_max: ordinal ? input.scale_max : null };
}

export function criterionService(db: DB, audit: AuditQueries) {
  const q = criterionQueries(db);
  return {
    queries: q,
    get: (id: number) => q.byId(id),
    forDataset: (datasetId: number) => q.forDataset(datasetId),

    create(actorId: number | null, datasetId: number, raw: CriterionInput): Criterion {
      const input = validate(raw);
      return db.transaction(() => {
        if (q.byName(datasetId, input.name)) throw new CriterionError('err.criterion_name_taken', 'name');
        const id = q.insert({ dataset_id: datasetId, ...input });
        const created = q.byId(id)!;
        audit.record({ actorId, entityType: 'criterion', entityId: id, datasetId, action: 'create', after: created });
        return created;
      })();
    },

    /** Guidelines and option labels can change at any time; option values in use cannot disappear. */
    update(actorId: number, id: number, change: { guidelines: string; options?: CriterionOption[]; archived: boolean }): Criterion {
      return db.transaction(() => {
        const before = q.byId(id);
        if (!before) throw new CriterionError('err.not_found');
        let options = before.options;
        if (change.options && before.kind === 'categorical') {
          const kept = new Set(change.options.map((o) => o.value));
          if (before.options.some((o) => !kept.has(o.value)) && q.labelCount(id) > 0) throw new CriterionError('err.criterion_option_in_use', 'options');
          options = validate({ ...before, options: change.options }).options;
        } else if (change.options && before.kind === 'binary' && change.options.length === 2) {
          options = before.options.map((o, i) => ({ value: o.value, label: change.options![i]!.label }));
        }
        q.update(id, { guidelines: change.guidelines, options, archived: change.archived });
        const after = q.byId(id)!;
        audit.record({ actorId, entityType: 'criterion', entityId: id, datasetId: before.dataset_id, action: 'update', before, after });
        return after;
      })();
    },
  };
}

export type CriterionService = ReturnType<typeof criterionService>;
