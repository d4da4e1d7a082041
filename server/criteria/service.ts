// Rules for criteria: valid shapes, unique names per dataset, options that never lose a used value.
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { Locale, MessageKey } from '../i18n/index.ts';
import { criterionQueries, type Criterion } from './queries.ts';
import { binaryOptionsIn, type CriterionKind, type CriterionOption, type CriterionTarget } from './values.ts';
import { checkName, LIMITS, nameMessage } from '../limits.ts';
import { writableGuard } from '../datasets/archived.ts';

export class CriterionError extends Error {
  constructor(readonly key: MessageKey, readonly field = '_form', readonly params: Record<string, string | number> = {}) { super(key); }
}

/** Someone saved the criterion since the form was read; `current` is what they saved. */
export class CriterionConflict extends Error {
  constructor(readonly current: Criterion) { super('conflict'); }
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
  // The form also holds a name to letters, digits, _ and -; a file's human.<criterion> column may name it otherwise, but never with a control character.
  const name = checkName(input.name, LIMITS.criterionName);
  if (name) { const { key, params } = nameMessage(name); throw new CriterionError(key, 'name', params); }
  if (input.guidelines.length > LIMITS.guidelines) throw new CriterionError('err.limit_too_long', 'guidelines', { limit: LIMITS.guidelines, length: input.guidelines.length });
  if (input.options.length > LIMITS.options) throw new CriterionError('err.limit_options', 'options', { limit: LIMITS.options, count: input.options.length });
  const long = input.options.find((o) => o.value.length > LIMITS.optionText || o.label.length > LIMITS.optionText);
  if (long) throw new CriterionError('err.limit_option_text', 'options', { limit: LIMITS.optionText });
  if (input.kind === 'categorical' && input.options.length < 2) throw new CriterionError('err.criterion_options', 'options');
  // Given labels, a binary criterion takes exactly two (none: its dataset's yes/no, when created).
  if (input.kind === 'binary' && input.options.length !== 0 && input.options.length !== 2) throw new CriterionError('err.binary_options', 'options');
  if (new Set(input.options.map((o) => o.value)).size !== input.options.length) throw new CriterionError('err.criterion_options_unique', 'options');
  if (input.kind === 'ordinal') {
    if (input.scale_min === null || input.scale_max === null || input.scale_min >= input.scale_max || input.scale_max - input.scale_min > LIMITS.scaleSteps - 1) {
      throw new CriterionError('err.criterion_scale', 'scale_max', { limit: LIMITS.scaleSteps });
    }
  }
  // A binary criterion given no two labels gets its dataset's default ones when created (create below).
  const options = input.kind === 'binary' ? (input.options.length === 2 ? input.options.map((o, i) => ({ value: i === 0 ? '1' : '0', label: o.label })) : [])
    : input.kind === 'categorical' ? input.options : [];
  const ordinal = input.kind === 'ordinal';
  return { ...input, options, scale_min: ordinal ? input.scale_min : null, scale_max: ordinal ? input.scale_max : null };
}

export function criterionService(db: DB, audit: AuditQueries) {
  const q = criterionQueries(db);
  const writable = writableGuard(db);
  const count = db.prepare<[number], number>('SELECT count(*) FROM criterion WHERE dataset_id = ?').pluck();
  const language = db.prepare<[number], Locale>('SELECT language FROM dataset WHERE id = ?').pluck();
  return {
    queries: q,
    get: (id: number) => q.byId(id),
    forDataset: (datasetId: number) => q.forDataset(datasetId),
    /** The dataset's criteria, kept between requests while they do not change (queries.ts forDatasetRow); frozen. */
    forDatasetRow: (dataset: { id: number; criteria_stamp: number }) => q.forDatasetRow(dataset),

    create(actorId: number | null, datasetId: number, raw: CriterionInput): Criterion {
      const input = validate(raw);
      return db.transaction(() => {
        writable(datasetId);
        if (q.byName(datasetId, input.name)) throw new CriterionError('err.criterion_name_taken', 'name');
        if (count.get(datasetId)! >= LIMITS.criteria) throw new CriterionError('err.limit_criteria', 'name', { limit: LIMITS.criteria });
        const options = input.kind === 'binary' && input.options.length !== 2 ? binaryOptionsIn(language.get(datasetId)!) : input.options;
        const id = q.insert({ dataset_id: datasetId, ...input, options });
        const created = q.byId(id)!;
        audit.record({ actorId, entityType: 'criterion', entityId: id, datasetId, action: 'create', after: created });
        return created;
      })();
    },

    /**
     * Guidelines and option labels can change at any time; option values in use cannot disappear.
     * `expectedVersion` is the version the form was read at: another save since then is a conflict.
     */
    update(actorId: number, id: number, expectedVersion: number, change: { guidelines: string; options?: CriterionOption[]; archived: boolean }): Criterion {
      return db.transaction(() => {
        const before = q.byId(id);
        if (!before) throw new CriterionError('err.not_found');
        writable(before.dataset_id);
        if (before.version !== expectedVersion) throw new CriterionConflict(before);
        if (change.guidelines.length > LIMITS.guidelines) {
          throw new CriterionError('err.limit_too_long', 'guidelines', { limit: LIMITS.guidelines, length: change.guidelines.length });
        }
        let options = before.options;
        if (change.options && before.kind === 'categorical') {
          const kept = new Set(change.options.map((o) => o.value));
          if (before.options.some((o) => !kept.has(o.value)) && q.labelCount(id) > 0) throw new CriterionError('err.criterion_option_in_use', 'options');
          options = validate({ ...before, options: change.options }).options;
        } else if (change.options && before.kind === 'binary') {
          if (change.options.length !== 2) throw new CriterionError('err.binary_options', 'options');
          validate({ ...before, options: change.options });
          // The form shows `1 | yes` and `0 | no`: lines that keep those values are matched by value (in
          // either order), plain labels by position (yes first).
          const byValue = new Map(change.options.map((o) => [o.value, o.label]));
          const valued = byValue.has('1') && byValue.has('0');
          options = before.options.map((o, i) => ({ value: o.value, label: valued ? byValue.get(o.value)! : change.options![i]!.label }));
        }
        q.update(id, { guidelines: change.guidelines, options, archived: change.archived, version: before.version });
        const after = q.byId(id)!;
        audit.record({ actorId, entityType: 'criterion', entityId: id, datasetId: before.dataset_id, action: 'update', before, after });
        return after;
      })();
    },
  };
}

export type CriterionService = ReturnType<typeof criterionService>;
