// Adjudication: the gold value of a label slot, the adjudicator's decisions, and the open expert
// disagreements they settle (kept, and kept current by the label service's writes).
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { DerivedCache } from '../db/derived-cache.ts';
import type { Criterion } from '../criteria/queries.ts';
import { canonicalValue } from '../criteria/values.ts';
import { writableGuard } from '../datasets/archived.ts';
import { LIMITS } from '../limits.ts';
import { goldValue } from './gold.ts';
import { keptOpenDisagreements } from './open-disagreements.ts';
import type { AdjudicationRow, DisagreementRow, LabelQueries } from './queries.ts';
import { LabelConflict, LabelError } from './errors.ts';
import type { Touch, Tracked } from './tracked.ts';

export function adjudicationService(db: DB, q: LabelQueries, audit: AuditQueries, derived: DerivedCache, tracked: Tracked) {
  const open = keptOpenDisagreements(db, derived);
  const writable = writableGuard(db);
  const adjudicateTx = tracked((args) => args[0], (touch: Touch, _datasetId: number, responseId: number, write: () => AdjudicationRow) => {
    touch(responseId);
    return write();
  });

  return {
    adjudications: (responseId: number) => q.adjudications.all(responseId),

    /** The gold value of one label slot: adjudicated, else unanimous (numeric: the mean), else none. */
    gold(criterion: Criterion, responseId: number, contextIndex: number): string | null {
      const adj = q.adjudication.get(responseId, criterion.id, contextIndex);
      const values = q.labelsForResponse.all(responseId).filter((l) => l.criterion_id === criterion.id && l.context_index === contextIndex).map((l) => l.value);
      return goldValue(criterion.kind, values, adj?.value ?? null);
    },

    /**
     * Sets the gold value of one slot. `expectedVersion` is the adjudication version the form was
     * read at, 0 when there was none yet: a decision made meanwhile by someone else is a conflict,
     * the first decision included.
     */
    adjudicate(actorId: number, criterion: Criterion, responseId: number, contextIndex: number, rawValue: string, reason: string, expectedVersion: number): AdjudicationRow {
      const value = canonicalValue(criterion, rawValue);
      if (value === null) throw new LabelError('err.label_invalid', 'value', { criterion: criterion.name });
      if (!reason.trim()) throw new LabelError('err.reason_required', 'reason');
      if (reason.length > LIMITS.reason) throw new LabelError('err.too_long_limit', 'reason', { limit: LIMITS.reason });
      return adjudicateTx(criterion.dataset_id, responseId, () => {
        writable(criterion.dataset_id);
        const existing = q.adjudication.get(responseId, criterion.id, contextIndex);
        if ((existing?.version ?? 0) !== expectedVersion) throw new LabelConflict(existing ?? null);
        if (existing) {
          const changed = q.updateAdjudication.run({ id: existing.id, version: existing.version, value, reason, adjudicator_id: actorId }).changes;
          if (changed === 0) throw new LabelConflict(q.adjudication.get(responseId, criterion.id, contextIndex)!);
        } else {
          q.insertAdjudication.run({ response_id: responseId, criterion_id: criterion.id, context_index: contextIndex, value, reason, adjudicator_id: actorId });
        }
        const after = q.adjudication.get(responseId, criterion.id, contextIndex)!;
        audit.record({ actorId, entityType: 'adjudication', entityId: after.id, datasetId: criterion.dataset_id, action: existing ? 'update' : 'create',
          before: existing ? { value: existing.value, reason: existing.reason, by: existing.adjudicator_email } : undefined,
          after: { response: responseId, criterion: criterion.name, context_index: contextIndex, value, reason } });
        return after;
      });
    },

    disagreements: (datasetId: number, limit: number, offset: number) => q.disagreements.all({ ds: datasetId, limit, offset }),
    /** disagreements(datasetId, limit, offset) read from the kept open slots: only the responses of that page are grouped. */
    disagreementsPage(datasetId: number, limit: number, offset: number): DisagreementRow[] {
      const w = open.of(datasetId).window(offset, limit);
      if (!w) return [];
      return q.disagreementsBetween.all({ ds: datasetId, first: w.first, last: w.last }).slice(w.skip, w.skip + limit);
    },
    /** Open expert disagreements counted afresh over the whole dataset (what openDisagreements keeps). */
    disagreementCount: (datasetId: number) => q.disagreementCount.get(datasetId) as number,
    /** Open expert disagreements of the dataset: their number and the responses (kept, and kept current by the label service's writes). */
    openDisagreements: (datasetId: number) => open.of(datasetId),
  };
}
