// Rules for samples: validation, revisions on every edit, review workflow, optimistic concurrency.
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { MessageKey } from '../i18n/index.ts';
import { questionKey, sampleQueries, type SampleRow, type SampleStatus } from './queries.ts';

export class SampleError extends Error {
  constructor(readonly key: MessageKey, readonly field = '_form', readonly params: Record<string, string | number> = {}) { super(key); }
}

/** Someone else saved the sample since this form was loaded; `current` is what they saved. */
export class ConflictError extends Error {
  constructor(readonly current: SampleRow) { super('conflict'); }
}

export interface SampleInput {
  question: string;
  ground_truth: string;
  reference_contexts: string[];
  tags: string[];
  source: string;
  notes: string;
}

export type Transition = 'submit' | 'approve' | 'reopen';

export interface Snapshot extends SampleInput { status: SampleStatus }

export function snapshotOf(row: SampleRow): Snapshot {
  return {
    question: row.question, ground_truth: row.ground_truth,
    reference_contexts: JSON.parse(row.reference_contexts) as string[], tags: JSON.parse(row.tags) as string[],
    source: row.source, notes: row.notes, status: row.status,
  };
}

const CONTENT_FIELDS = ['question', 'ground_truth', 'reference_contexts', 'tags', 'source', 'notes'] as const;

function sameContent(a: SampleInput, b: SampleInput): boolean {
  return CONTENT_FIELDS.every((f) => JSON.stringify(a[f]) === JSON.stringify(b[f]));
}

export function sampleService(db: DB, audit: AuditQueries) {
  const q = sampleQueries(db);

  function write(row: SampleRow, actorId: number | null, next: Snapshot, approval: { by: number | null; at: string | null }, action: string, comment = ''): SampleRow {
    const changed = q.update({
      id: row.id, version: row.version, questionKey: questionKey(next.question), question: next.question,
      groundTruth: next.ground_truth, referenceContexts: JSON.stringify(next.reference_contexts), tags: JSON.stringify(next.tags),
      source: next.source, notes: next.notes, status: next.status, approvedBy: approval.by, approvedAt: approval.at,
    });
    if (changed === 0) throw new ConflictError(q.byId(row.id)!);
    const before = snapshotOf(row);
    q.insertRevision({ sampleId: row.id, version: row.version, snapshot: JSON.stringify(before), editedBy: actorId, editedAt: new Date().toISOString() });
    if (JSON.stringify(before.tags) !== JSON.stringify(next.tags)) q.setTags(row.id, next.tags);
    audit.record({ actorId, entityType: 'sample', entityId: row.id, datasetId: row.dataset_id, action, before, after: comment ? { ...next, comment } : next });
    return q.byId(row.id)!;
  }

  function assertUniqueQuestion(datasetId: number, question: string, selfId?: number): void {
    const existing = q.idByQuestion(datasetId, question);
    if (existing !== undefined && existing !== selfId) throw new SampleError('err.question_exists', 'question', { id: existing });
  }

  return {
    queries: q,
    get: (id: number) => q.byId(id),

    create(actorId: number | null, datasetId: number, input: SampleInput): SampleRow {
      return db.transaction(() => {
        assertUniqueQuestion(datasetId, input.question);
        const id = q.insert({
          datasetId, questionKey: questionKey(input.question), question: input.question, groundTruth: input.ground_truth,
          referenceContexts: JSON.stringify(input.reference_contexts), tags: JSON.stringify(input.tags),
          source: input.source, notes: input.notes, authorId: actorId,
        });
        q.setTags(id, input.tags);
        const created = q.byId(id)!;
        audit.record({ actorId, entityType: 'sample', entityId: id, datasetId, action: 'create', after: snapshotOf(created) });
        return created;
      })();
    },

    /** An edit of an approved sample sends it back to review: approval covers the content that was approved. */
    update(actorId: number, id: number, expectedVersion: number, input: SampleInput): SampleRow {
      return db.transaction(() => {
        const row = q.byId(id);
        if (!row) throw new SampleError('err.not_found');
        if (row.version !== expectedVersion) throw new ConflictError(row);
        const current = snapshotOf(row);
        if (sameContent(current, input)) return row;
        assertUniqueQuestion(row.dataset_id, input.question, id);
        const status: SampleStatus = row.status === 'approved' ? 'in_review' : row.status;
        return write(row, actorId, { ...input, status }, { by: null, at: null }, 'update');
      })();
    },

    /** A review step; `comment` says why (sending a sample back to draft tells its author what to change). */
    transition(actorId: number | null, id: number, expectedVersion: number, action: Transition, comment = ''): SampleRow {
      return db.transaction(() => {
        const row = q.byId(id);
        if (!row) throw new SampleError('err.not_found');
        if (row.version !== expectedVersion) throw new ConflictError(row);
        const snap = snapshotOf(row);
        if (action === 'submit') {
          if (row.status !== 'draft') throw new SampleError('err.bad_transition');
          return write(row, actorId, { ...snap, status: 'in_review' }, { by: null, at: null }, 'submit');
        }
        if (action === 'approve') {
          if (row.status !== 'in_review') throw new SampleError('err.bad_transition');
          if (row.author_id === actorId) throw new SampleError('err.approve_own');
          if (!row.ground_truth.trim()) throw new SampleError('err.approve_no_ground_truth');
          return write(row, actorId, { ...snap, status: 'approved' }, { by: actorId, at: new Date().toISOString() }, 'approve');
        }
        if (row.status === 'draft') throw new SampleError('err.bad_transition');
        return write(row, actorId, { ...snap, status: 'draft' }, { by: null, at: null }, 'reopen', comment);
      })();
    },

    history(id: number) {
      return q.revisions(id).map((r) => ({ ...r, snapshot: JSON.parse(r.snapshot) as Snapshot }));
    },
  };
}

export type SampleService = ReturnType<typeof sampleService>;
