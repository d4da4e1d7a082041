// The labelling flow: who may label, the next item, drafts, submission, the queue's counters and
// who is assigned; gold values and adjudication are in adjudication.ts, its part of the service.
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { CurrentUser } from '../http/context.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { LabelTarget, ResponseWithSample } from '../responses/queries.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { canonicalValue } from '../criteria/values.ts';
import { CLAIM_MINUTES, labelQueries, type AnnotationRow, type LabelValueRow, type ProgressRow } from './queries.ts';
import { ArchivedError, writableGuard } from '../datasets/archived.ts';
import { checkText, LIMITS } from '../limits.ts';
import { accessFacts } from '../access/facts.ts';
import { mayAdjudicate, mayLabel } from '../access/permissions.ts';
import { labelHistory } from './history.ts';
import type { DerivedCache, Touched } from '../db/derived-cache.ts';
import type { GroupCommit } from '../db/group-commit.ts';
import { AssignmentConflict, LabelConflict, LabelError } from './errors.ts';
import { trackedWrites, type Touch } from './tracked.ts';
import { adjudicationService } from './adjudication.ts';

export { AssignmentConflict, LabelConflict, LabelError };

/** Values keyed "criterionId" for response-level criteria and "criterionId:contextIndex" for per-context ones. */
export type LabelValues = Map<string, string>;

export interface AnnotationInput {
  values: LabelValues;
  rationale: string;
  corrected_answer: string;
}

/** An item handed to an expert: the response id with the expert's (reserving) annotation and its label values. */
export interface HandedOut { responseId: number; annotation: AnnotationRow; labels: LabelValueRow[] }

/**
 * The dataset's archived flag as the caller read it, with the group commit's mark at that read
 * (group-commit.ts `mark`). While that mark is still the mark, the write runs in the transaction that
 * read the flag (which holds the write lock: no other connection writes) and no other request has
 * joined it since (each joins before it writes), so nothing can have archived the dataset in between:
 * the write refuses on the flag it is given instead of reading it again. Otherwise it reads it again.
 */
export interface ArchivedAsRead { archived: boolean; mark: number | null }

/** A dataset's labelling progress: label slots filled of all it asks for (responses × overlap), and the expert's own submissions. */
export interface Progress { done: number; total: number; mine: number; overlap: number }

const progressFrom = (p: ProgressRow): Progress => ({ done: p.slots_filled, total: p.n_responses * p.overlap, mine: p.mine, overlap: p.overlap });

/** The version a form showing this annotation carries: 0 while it was never submitted ("none yet"). */
export function seenVersion(a: { state: string; version: number } | null | undefined): number {
  return a && a.state === 'submitted' ? a.version : 0;
}

/** The rationale and corrected answer against their limits (server/limits.ts). */
function checkTexts(input: AnnotationInput): void {
  for (const [field, value, limit] of [['rationale', input.rationale, LIMITS.rationale], ['corrected_answer', input.corrected_answer, LIMITS.correctedAnswer]] as const) {
    const problem = checkText(value, limit);
    if (problem) throw new LabelError(problem.code === 'too_long' ? 'err.too_long_limit' : 'err.nul_character', field, { limit });
  }
}

export const valueKey = (criterionId: number, contextIndex: number) => (contextIndex < 0 ? `${criterionId}` : `${criterionId}:${contextIndex}`);

/**
 * Every write keeps the dataset's kept figures current (tracked.ts); save-and-next runs in the group
 * commit's transaction without a savepoint (`group`, see tracked.ts): it refuses what it refuses
 * before its first change.
 */
export function labelService(db: DB, audit: AuditQueries, derived: DerivedCache, group: Pick<GroupCommit, 'outermost' | 'withoutSavepoint' | 'mark'>) {
  const q = labelQueries(db);
  const tracked = trackedWrites(db, derived, group);
  const writable = writableGuard(db);
  const facts = accessFacts(db);
  const cutoff = () => new Date(Date.now() - CLAIM_MINUTES * 60_000).toISOString();

  /** Checks every value against its criterion and the response's contexts; submission also needs every criterion answered. */
  function validate(criteria: readonly Criterion[], nContexts: () => number, values: LabelValues, complete: boolean): { criterion_id: number; context_index: number; value: string }[] {
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

  /** Refuses a write to an archived dataset: on the flag the caller read in this transaction (ArchivedAsRead), else on the database's. */
  function checkWritable(datasetId: number, asRead: ArchivedAsRead | undefined): void {
    if (asRead === undefined || asRead.mark === null || asRead.mark !== group.mark()) return writable(datasetId);
    if (asRead.archived) throw new ArchivedError(datasetId);
  }

  // Runs inside a transaction (see saveTx and submitAndHandOutTx below).
  /**
   * `expectedVersion` is the annotation version the form was read at, 0 when it showed none
   * submitted yet; null (autosaved drafts only) checks nothing. A draft is not a version: the
   * expert's own autosave must not make the open form stale. Returns the annotation as saved and
   * what the save learnt of the response on the way (for the kept values that follow it).
   */
  function save(user: CurrentUser, response: LabelTarget, criteria: readonly Criterion[], input: AnnotationInput, state: 'draft' | 'submitted',
    expectedVersion: number | null, archived?: ArchivedAsRead): { saved: AnnotationRow; known: Touched } {
    checkWritable(response.dataset_id, archived);
    checkTexts(input);
    // Reading the contexts is only needed for per-context values, and costs more than the rest of the row.
    // Contexts beyond the limit (only in data from before the limits) are neither shown nor labelled.
    let nContexts = response.nContexts;
    const values = validate(criteria, () => (nContexts ??= Math.min(q.contextCount.get(response.id)!, LIMITS.contexts)), input.values, state === 'submitted');
    const existing = q.mine.get(response.id, user.id);
    if (existing && expectedVersion !== null && seenVersion(existing) !== expectedVersion && existing.version !== expectedVersion) throw new LabelConflict(existing);
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
    // The labels before the change are only for the audit event, which only submissions record
    // (deleted and read in one statement); a new annotation has none.
    let before: LabelValueRow[] = [];
    if (existing && state === 'submitted') before = q.takeLabels.all(existing.id).sort((a, b) => a.criterion_id - b.criterion_id || a.context_index - b.context_index);
    else if (existing) q.deleteLabels.run(existing.id);
    for (const v of values) q.insertLabel.run(saved.id, v.criterion_id, v.context_index, v.value);
    const known: Touched = {};
    if (nextState === 'submitted' && existing?.state !== 'submitted') {
      const counts = q.bumpResponse.get(response.id)!;
      q.bumpSlotsWithin.run({ ds: response.dataset_id, n_submitted: counts.n_submitted });
      known.submitted = counts.submitted;
    }
    if (state === 'submitted') {
      audit.record({ actorId: user.id, entityType: 'label', entityId: saved.id, datasetId: response.dataset_id,
        action: existing?.state === 'submitted' ? 'update' : 'submit',
        before: existing ? { values: before.map((l) => [l.criterion_id, l.context_index, l.value]), rationale: existing.rationale, corrected_answer: existing.corrected_answer } : undefined,
        after: { response: response.id, values: values.map((l) => [l.criterion_id, l.context_index, l.value]), rationale: input.rationale, corrected_answer: input.corrected_answer } });
    }
    return { saved, known };
  }

  // Where the queue resumes after item `after` (a skip): after a sampled item, at the next one drawn
  // and then every other item; after any other item, at the next id among the others.
  function queuePosition(after: number): { after: number; after_rank: number } {
    if (after === 0) return { after: 0, after_rank: Number.MIN_SAFE_INTEGER };
    const rank = q.queueRank.get(after) ?? 0;
    return rank < 0 ? { after: 0, after_rank: rank } : { after, after_rank: 0 };
  }

  // Runs inside a transaction. The item is reserved for the expert it is shown to (a fresh draft
  // keeps the queue from handing it to others, see CLAIM_MINUTES); the reserving statement returns
  // the expert's annotation of it, which the workspace shows.
  function handOut(datasetId: number, userId: number, overlap: number, after: number, checked = false): HandedOut | null {
    if (!checked) writable(datasetId); // handing out reserves the item (a draft); `checked`: this transaction checked already
    const next = (from: number) => q.next.get({ ds: datasetId, me: userId, overlap, cutoff: cutoff(), ...queuePosition(from) })?.id;
    const id = next(after) ?? (after > 0 ? next(0) : undefined); // wrap around after skipping
    if (id === undefined) return null;
    // The claim says whether its draft has values: a fresh one has none, so they are not read then.
    const { labelled, ...annotation } = q.claim.get({ response: id, ds: datasetId, me: userId }) ?? { ...q.mine.get(id, userId)!, labelled: 1 };
    return { responseId: id, annotation, labels: labelled ? q.labelsOf.all(annotation.id) : [] };
  }

  const saveTx = tracked((args) => args[1].dataset_id,
    (touch: Touch, user: CurrentUser, response: LabelTarget, criteria: readonly Criterion[], input: AnnotationInput, state: 'draft' | 'submitted', expectedVersion: number | null) => {
      const { saved, known } = save(user, response, criteria, input, state, expectedVersion);
      // Kept values read submitted labels only: an autosaved draft of an item never submitted
      // changes none of them (like a hand-out), so they move along without being followed or
      // computed again; an autosave of a submitted annotation changes counted labels.
      if (saved.state === 'submitted') touch(response.id, known);
      return saved;
    });
  // Handing out reserves an item with a draft (or refreshes the expert's own draft): drafts are not
  // counted anywhere kept, so the kept values just move to the new version, touching no response.
  const handOutTx = tracked((args) => args[0], (_touch: Touch, datasetId: number, userId: number, overlap: number, after: number) =>
    handOut(datasetId, userId, overlap, after));
  // Saving and handing out the next item in one transaction: one commit per request instead of two.
  // In a group commit without a savepoint of its own (see labelService): save() refuses (archived
  // dataset, a text too long, a value missing or invalid, a conflict) before its first change.
  const submitAndHandOutTx = tracked((args) => args[1].dataset_id,
    (touch: Touch, user: CurrentUser, response: LabelTarget, criteria: readonly Criterion[], input: AnnotationInput, expectedVersion: number | null, overlap: number,
      archived: ArchivedAsRead | undefined) => {
      const { known } = save(user, response, criteria, input, 'submitted', expectedVersion, archived); // checks that the dataset is writable
      touch(response.id, known);
      return handOut(response.dataset_id, user.id, overlap, 0, true); // a draft: touches nothing kept (see handOutTx)
    }, { savepoint: false });

  return {
    queries: q,
    history: labelHistory(db),

    /** Whether the user may label in the dataset (the rule: access/permissions.ts mayLabel). */
    canLabel(datasetId: number, user: CurrentUser | null): boolean {
      const st = facts.standing(user, datasetId);
      return st !== null && mayLabel(st);
    },

    /** The dataset, if it exists, and whether the user may label in it (as canLabel), read in one query. */
    labellingAccess(datasetId: number, user: CurrentUser | null): { dataset: DatasetRow | undefined; allowed: boolean } {
      const found = facts.datasetWithStanding(user, datasetId);
      return { dataset: found?.dataset, allowed: found?.standing != null && mayLabel(found.standing) };
    },

    /**
     * A response as a label is saved against it, with its dataset and whether the user may label in it
     * (as labellingAccess), in one query; undefined for an unknown response.
     */
    targetAccess(responseId: number, user: CurrentUser | null): { target: LabelTarget; dataset: DatasetRow; allowed: boolean } | undefined {
      const found = facts.responseWithStanding(user, responseId);
      if (!found) return undefined;
      return { target: { id: found.responseId, dataset_id: found.dataset.id }, dataset: found.dataset, allowed: found.standing != null && mayLabel(found.standing) };
    },

    /** Whether the user adjudicates the dataset (the rule: access/permissions.ts mayAdjudicate). */
    canAdjudicate(datasetId: number, user: CurrentUser | null): boolean {
      const st = facts.standing(user, datasetId);
      return st !== null && mayAdjudicate(st);
    },

    /** The item the queue would hand this expert next, without reserving it (for pages a GET shows); null when done. */
    peekNext(datasetId: number, userId: number, overlap: number): number | null {
      return q.next.get({ ds: datasetId, me: userId, overlap, cutoff: cutoff(), ...queuePosition(0) })?.id ?? null;
    },

    /** The next item for this expert (after `after`, wrapping around), reserved for them; null when the queue is done. */
    handOut: (datasetId: number, userId: number, overlap: number, after = 0): HandedOut | null => handOutTx(datasetId, userId, overlap, after),

    mine: (responseId: number, userId: number) => {
      const a = q.mine.get(responseId, userId);
      return a ? { annotation: a, labels: q.labelsOf.all(a.id) } : null;
    },

    saveDraft: (user: CurrentUser, response: LabelTarget, criteria: readonly Criterion[], input: AnnotationInput) =>
      saveTx(user, response, criteria, input, 'draft', null),

    submit: (user: CurrentUser, response: LabelTarget, criteria: readonly Criterion[], input: AnnotationInput, expectedVersion: number | null) =>
      saveTx(user, response, criteria, input, 'submitted', expectedVersion),

    /**
     * Submits and hands out the next item (see handOut) in one transaction: the workspace's "submit and
     * next". `archived`: the dataset's flag as the caller read it (ArchivedAsRead), if it did.
     */
    submitAndHandOut: (user: CurrentUser, response: LabelTarget, criteria: readonly Criterion[], input: AnnotationInput, expectedVersion: number | null, overlap: number,
      archived?: ArchivedAsRead) =>
      submitAndHandOutTx(user, response, criteria, input, expectedVersion, overlap, archived),

    progress: (datasetId: number, userId: number): Progress => progressFrom(q.progressOf.get({ ds: datasetId, me: userId })!),

    /** A response as the workspace shows it, with its dataset's progress and the expert's own (as `progress`), in one query. */
    shown(responseId: number, userId: number): { response: ResponseWithSample; progress: Progress } | undefined {
      const row = q.shown.get({ id: responseId, me: userId });
      if (!row) return undefined;
      const { progress_overlap: overlap, progress_slots_filled: slots_filled, progress_n_responses: n_responses, progress_mine: mine, ...response } = row;
      return { response, progress: progressFrom({ overlap, slots_filled, n_responses, mine }) };
    },

    submittedFor: (responseId: number) => ({ annotations: q.submittedFor.all(responseId), labels: q.labelsForResponse.all(responseId) }),
    ...adjudicationService(db, q, audit, derived, tracked),

    /** Keeps the queue counters right after labels arrive in bulk (imports). */
    recount(datasetId: number): void {
      q.recountResponses.run(datasetId);
      q.recountSlots.run(datasetId);
    },

    /** Who labels and adjudicates, with how much overlap; `expectedVersion` is the dataset version the form was read at. */
    setAssignment(actorId: number, datasetId: number, expectedVersion: number, overlap: number, members: { userId: number; label: boolean; adjudicate: boolean }[]): void {
      db.transaction(() => {
        writable(datasetId);
        if (q.bumpDatasetVersion.run(datasetId, expectedVersion).changes === 0) throw new AssignmentConflict();
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
