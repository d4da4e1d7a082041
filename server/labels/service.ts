// The labelling flow: who may label, the next item, drafts, submission, gold values and adjudication.
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { MessageKey } from '../i18n/index.ts';
import type { CurrentUser } from '../http/context.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { LabelTarget } from '../responses/queries.ts';
import { canonicalValue } from '../criteria/values.ts';
import { CLAIM_MINUTES, labelQueries, type AdjudicationRow, type AnnotationRow, type LabelValueRow } from './queries.ts';
import { goldValue } from './gold.ts';
import { labelHistory } from './history.ts';

export class LabelError extends Error {
  constructor(readonly key: MessageKey, readonly field = '_form', readonly params: Record<string, string | number> = {}) { super(key); }
}

/** Someone saved this annotation or adjudication since the form was loaded. */
export class LabelConflict extends Error {
  constructor(readonly current: AnnotationRow | AdjudicationRow) { super('conflict'); }
}

/** Values keyed "criterionId" for response-level criteria and "criterionId:contextIndex" for per-context ones. */
export type LabelValues = Map<string, string>;

export interface AnnotationInput {
  values: LabelValues;
  rationale: string;
  corrected_answer: string;
}

/** An item handed to an expert: the response id with the expert's (reserving) annotation and its label values. */
export interface HandedOut { responseId: number; annotation: AnnotationRow; labels: LabelValueRow[] }

export const valueKey = (criterionId: number, contextIndex: number) => (contextIndex < 0 ? `${criterionId}` : `${criterionId}:${contextIndex}`);

export function labelService(db: DB, audit: AuditQueries) {
  const q = labelQueries(db);
  const cutoff = () => new Date(Date.now() - CLAIM_MINUTES * 60_000).toISOString();

  /** Checks every value against its criterion and the response's contexts; submission also needs every criterion answered. */
  function validate(criteria: Criterion[], nContexts: () => number, values: LabelValues, complete: boolean): { criterion_id: number; context_index: number; value: string }[] {
    const out: { criterion_id: number; context_index: number; value: string }[] = [];
    for (const c of criteria) {
      const indices = c.target === 'context' ? [...Array(nContexts()).keys()] : [-1];
      for (const i of indices) {
        const raw = values.get(valueKey(c.id, i));
        // An unticked relevance box is a "not relevant" verdict, not a missing one.
        const given = raw ?? (c.target === 'context' && complete ? '0' : undefined);
        if (given === undefined || given === '') {
          if (complete) throw new LabelError('err.label_missing', `c${c.id}`, { criterion: c.name });
          continue;
        }
        const value = canonicalValue(c, given);
        if (value === null) throw new LabelError('err.label_invalid', `c${c.id}`, { criterion: c.name });
        out.push({ criterion_id: c.id, context_index: i, value });
      }
    }
    for (const key of values.keys()) {
      const [cid, idx] = key.split(':').map(Number);
      if (!criteria.some((c) => c.id === cid)) throw new LabelError('err.label_invalid', '_form', { criterion: String(cid) });
      if (idx !== undefined && (idx < 0 || idx >= nContexts())) throw new LabelError('err.label_context_range', '_form');
    }
    return out;
  }

  // Runs inside a transaction (see saveTx and submitAndHandOutTx below).
  function save(user: CurrentUser, response: LabelTarget, criteria: Criterion[], input: AnnotationInput, state: 'draft' | 'submitted',
    expectedVersion: number | null): AnnotationRow {
    // Reading the contexts is only needed for per-context values, and costs more than the rest of the row.
    let nContexts = response.nContexts;
    const values = validate(criteria, () => (nContexts ??= q.contextCount.get(response.id)!), input.values, state === 'submitted');
    const existing = q.mine.get(response.id, user.id);
    if (existing && expectedVersion !== null && existing.version !== expectedVersion) throw new LabelConflict(existing);
    const submittedAt = state === 'submitted' ? (existing?.submitted_at ?? new Date().toISOString()) : null;
    // A submitted annotation stays submitted: autosave of an edited one must not take it out of the counts.
    const nextState = existing?.state === 'submitted' ? 'submitted' : state;
    let saved: AnnotationRow;
    if (existing) {
      // Only submissions advance the version: autosaved drafts must not make the open form stale.
      const updated = q.updateAnnotation.get({ id: existing.id, version: existing.version, bump: state === 'submitted' ? 1 : 0, state: nextState, rationale: input.rationale,
        corrected_answer: input.corrected_answer, submitted_at: nextState === 'submitted' ? submittedAt ?? existing.submitted_at : null });
      if (!updated) throw new LabelConflict(q.mine.get(response.id, user.id)!);
      saved = updated;
    } else {
      saved = q.insertAnnotation.get({ response_id: response.id, dataset_id: response.dataset_id, annotator_id: user.id, state,
        rationale: input.rationale, corrected_answer: input.corrected_answer, submitted_at: submittedAt })!;
    }
    // The labels before the change are only for the audit event, which only submissions record.
    const before = existing && state === 'submitted' ? q.labelsOf.all(existing.id) : [];
    if (existing) q.deleteLabels.run(existing.id); // a new annotation has none
    for (const v of values) q.insertLabel.run(saved.id, v.criterion_id, v.context_index, v.value);
    if (nextState === 'submitted' && existing?.state !== 'submitted') {
      const submitted = q.bumpResponse.get(response.id)!;
      q.bumpSlotsWithin.run({ ds: response.dataset_id, n_submitted: submitted });
    }
    if (state === 'submitted') {
      audit.record({ actorId: user.id, entityType: 'label', entityId: saved.id, datasetId: response.dataset_id,
        action: existing?.state === 'submitted' ? 'update' : 'submit',
        before: existing ? { values: before.map((l) => [l.criterion_id, l.context_index, l.value]), rationale: existing.rationale, corrected_answer: existing.corrected_answer } : undefined,
        after: { response: response.id, values: values.map((l) => [l.criterion_id, l.context_index, l.value]), rationale: input.rationale, corrected_answer: input.corrected_answer } });
    }
    return saved;
  }

  // Runs inside a transaction. The item is reserved for the expert it is shown to (a fresh draft
  // keeps the queue from handing it to others, see CLAIM_MINUTES); the reserving statement returns
  // the expert's annotation of it, which the workspace shows.
  function handOut(datasetId: number, userId: number, overlap: number, after: number): HandedOut | null {
    const next = (from: number) => q.next.get({ ds: datasetId, me: userId, overlap, cutoff: cutoff(), after: from })?.id;
    const id = next(after) ?? (after > 0 ? next(0) : undefined); // wrap around after skipping
    if (id === undefined) return null;
    const annotation = q.claim.get({ response: id, ds: datasetId, me: userId }) ?? q.mine.get(id, userId)!;
    return { responseId: id, annotation, labels: q.labelsOf.all(annotation.id) };
  }

  const saveTx = db.transaction(save);
  const handOutTx = db.transaction(handOut);
  // Saving and handing out the next item in one transaction: one commit per request instead of two.
  const submitAndHandOutTx = db.transaction((user: CurrentUser, response: LabelTarget, criteria: Criterion[], input: AnnotationInput,
    expectedVersion: number | null, overlap: number) => {
    save(user, response, criteria, input, 'submitted', expectedVersion);
    return handOut(response.dataset_id, user.id, overlap, 0);
  });

  return {
    queries: q,
    history: labelHistory(db),

    /** Experts and admins label; when a dataset lists labellers, only they do. */
    canLabel(datasetId: number, user: CurrentUser | null): boolean {
      if (!user || user.role === 'viewer') return false;
      if ((q.labellerCount.get(datasetId) as number) === 0) return true;
      return q.member.get(datasetId, user.id)?.can_label === 1;
    },

    canAdjudicate(datasetId: number, user: CurrentUser | null): boolean {
      if (!user) return false;
      return user.role === 'admin' || (user.role === 'expert' && q.member.get(datasetId, user.id)?.can_adjudicate === 1);
    },

    /** The item the queue would hand this expert next, without reserving it (for pages a GET shows); null when done. */
    peekNext(datasetId: number, userId: number, overlap: number): number | null {
      return q.next.get({ ds: datasetId, me: userId, overlap, cutoff: cutoff(), after: 0 })?.id ?? null;
    },

    /** The next item for this expert (after `after`, wrapping around), reserved for them; null when the queue is done. */
    handOut: (datasetId: number, userId: number, overlap: number, after = 0): HandedOut | null => handOutTx(datasetId, userId, overlap, after),

    mine: (responseId: number, userId: number) => {
      const a = q.mine.get(responseId, userId);
      return a ? { annotation: a, labels: q.labelsOf.all(a.id) } : null;
    },

    saveDraft: (user: CurrentUser, response: LabelTarget, criteria: Criterion[], input: AnnotationInput) =>
      saveTx(user, response, criteria, input, 'draft', null),

    submit: (user: CurrentUser, response: LabelTarget, criteria: Criterion[], input: AnnotationInput, expectedVersion: number | null) =>
      saveTx(user, response, criteria, input, 'submitted', expectedVersion),

    /** Submits and hands out the next item (see handOut) in one transaction: the workspace's "submit and next". */
    submitAndHandOut: (user: CurrentUser, response: LabelTarget, criteria: Criterion[], input: AnnotationInput, expectedVersion: number | null, overlap: number) =>
      submitAndHandOutTx(user, response, criteria, input, expectedVersion, overlap),

    progress(datasetId: number, userId: number) {
      const p = q.progressOf.get({ ds: datasetId, me: userId })!;
      return { done: p.slots_filled, total: p.n_responses * p.overlap, mine: p.mine, overlap: p.overlap };
    },

    submittedFor: (responseId: number) => ({ annotations: q.submittedFor.all(responseId), labels: q.labelsForResponse.all(responseId) }),
    adjudications: (responseId: number) => q.adjudications.all(responseId),

    /** The gold value of one label slot: adjudicated, else unanimous (numeric: the mean), else none. */
    gold(criterion: Criterion, responseId: number, contextIndex: number): string | null {
      const adj = q.adjudication.get(responseId, criterion.id, contextIndex);
      const values = q.labelsForResponse.all(responseId).filter((l) => l.criterion_id === criterion.id && l.context_index === contextIndex).map((l) => l.value);
      return goldValue(criterion.kind, values, adj?.value ?? null);
    },

    adjudicate(actorId: number, criterion: Criterion, responseId: number, contextIndex: number, rawValue: string, reason: string, expectedVersion: number | null): AdjudicationRow {
      const value = canonicalValue(criterion, rawValue);
      if (value === null) throw new LabelError('err.label_invalid', 'value', { criterion: criterion.name });
      if (!reason.trim()) throw new LabelError('err.reason_required', 'reason');
      return db.transaction(() => {
        const existing = q.adjudication.get(responseId, criterion.id, contextIndex);
        if (existing) {
          if (expectedVersion !== null && existing.version !== expectedVersion) throw new LabelConflict(existing);
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
      })();
    },

    disagreements: (datasetId: number, limit: number, offset: number) => q.disagreements.all({ ds: datasetId, limit, offset }),
    disagreementCount: (datasetId: number) => q.disagreementCount.get(datasetId) as number,

    /** Keeps the queue counters right after labels arrive in bulk (imports). */
    recount(datasetId: number): void {
      q.recountResponses.run(datasetId);
      q.recountSlots.run(datasetId);
    },

    setAssignment(actorId: number, datasetId: number, overlap: number, members: { userId: number; label: boolean; adjudicate: boolean }[]): void {
      db.transaction(() => {
        const before = { overlap: q.progress.get(datasetId)!.overlap, members: q.members.all(datasetId) };
        q.setOverlap.run(overlap, datasetId);
        q.clearMembers.run(datasetId);
        for (const m of members) if (m.label || m.adjudicate) q.insertMember.run(datasetId, m.userId, m.label ? 1 : 0, m.adjudicate ? 1 : 0);
        q.recountSlots.run(datasetId);
        audit.record({ actorId, entityType: 'dataset', entityId: datasetId, datasetId, action: 'assignment', before, after: { overlap, members: q.members.all(datasetId) } });
      })();
    },
    members: (datasetId: number) => q.members.all(datasetId),
  };
}

export type LabelService = ReturnType<typeof labelService>;
