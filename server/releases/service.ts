// Releases: freezing a dataset's approved samples (optionally with responses and gold labels) under
// a tag, reading a release back, deleting one (admins, audited), and what runs on a release score.
import crypto from 'node:crypto';
import type { DB } from '../db/connection.ts';
import type { AuditQueries } from '../audit/queries.ts';
import type { MessageKey } from '../i18n/index.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { releaseHasher } from './canonical.ts';
import { contentQueries, currentRecords, type RecordContent, type ResponseContent, type SampleContent } from './content.ts';
import { releaseQueries, type ReleaseRow, type StoredRecord } from './queries.ts';
import { LIMITS } from '../limits.ts';

export class ReleaseError extends Error {
  constructor(readonly key: MessageKey, readonly field = '_form', readonly params: Record<string, string | number> = {}) { super(key); }
}

/** Tags name releases in URLs and CI scripts: letters, digits, dot, dash and underscore, e.g. 2026-12-hr-v3. */
export const TAG_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${LIMITS.releaseTag - 1}}$`);
const PAGE = 1000;

/** Which eval set a run, report or gate is about: a release, or the dataset as it is. */
export interface EvalSet { tag: string; hash: string }

/** The release a run was limited to, from its selection (see judge/run-queries.ts), or null: the working copy. */
export function evalSetOf(selection: string | { release?: EvalSet & { id: number } }): (EvalSet & { id: number }) | null {
  const sel = typeof selection === 'string' ? (JSON.parse(selection) as { release?: EvalSet & { id: number } }) : selection;
  return sel.release ?? null;
}

/** "release TAG (sha256 1234abcd…)" or "unreleased working copy": what the CLI prints about a run's eval set. */
export function describeEvalSet(set: EvalSet | null): string {
  return set ? `release ${set.tag} (sha256 ${set.hash.slice(0, 12)}…)` : 'unreleased working copy';
}

export interface ScoringContent { question: string; ground_truth: string; reference_contexts: string[]; answer: string; retrieved_contexts: string[] }

export function releaseService(db: DB, audit: AuditQueries) {
  const q = releaseQueries(db);
  const content = contentQueries(db);

  function* records(release: ReleaseRow): Generator<StoredRecord> {
    let after = -1;
    for (;;) {
      const page = q.records.all({ release: release.id, after, limit: PAGE });
      if (!page.length) return;
      yield* page;
      after = page[page.length - 1]!.position;
    }
  }

  return {
    queries: q,
    list: (datasetId: number) => q.forDataset.all(datasetId),
    byTag: (datasetId: number, tag: string) => q.byTag.get(datasetId, tag),
    byId: (id: number) => q.byId.get(id),
    records,
    /** The records a release made now would hold (for "compare with now"). */
    current: (datasetId: number, withResponses: boolean) => currentRecords(content, datasetId, withResponses),

    /** Freezes the dataset's approved samples (and their responses with gold labels) in one transaction. */
    create(actor: { id: number; email: string } | null, dataset: DatasetRow, input: { tag: string; note: string; responses: boolean }): ReleaseRow {
      const tag = input.tag.trim();
      if (!TAG_PATTERN.test(tag)) throw new ReleaseError('release.err_tag', 'tag');
      if (input.note.length > LIMITS.releaseNote) throw new ReleaseError('err.too_long_limit', 'note', { limit: LIMITS.releaseNote });
      const stage = `temp."release_stage_${crypto.randomUUID().replace(/-/g, '')}"`;
      try {
        return db.transaction(() => {
          if (q.byTag.get(dataset.id, tag)) throw new ReleaseError('release.err_tag_taken', 'tag', { tag });
          db.exec(`CREATE TEMP TABLE ${stage} (position INTEGER PRIMARY KEY, kind TEXT, sample_id INTEGER, response_id INTEGER, item_key TEXT, body TEXT)`);
          const stageRow = db.prepare(`INSERT INTO ${stage} VALUES (?, ?, ?, ?, ?, ?)`);
          const hash = releaseHasher();
          let position = 0, samples = 0, responses = 0, longest = 0;
          for (const r of currentRecords(content, dataset.id, input.responses)) {
            stageRow.run(position++, r.kind, r.sampleId, r.responseId, r.key, r.body);
            hash.add(r.body);
            if (r.kind === 'sample') samples++;
            else if (r.kind === 'response') responses++;
            if (r.longest > longest) longest = r.longest;
          }
          if (samples === 0) throw new ReleaseError('release.err_empty');
          const id = Number(q.insert.run({ dataset_id: dataset.id, tag, hash: hash.hex(), with_responses: input.responses ? 1 : 0, n_samples: samples,
            n_responses: responses, n_records: position, longest_text: longest, note: input.note.trim(), dataset_name: dataset.name, language: dataset.language,
            author_email: actor?.email ?? null, created_by: actor?.id ?? null }).lastInsertRowid);
          db.prepare(`INSERT INTO release_record (release_id, position, kind, sample_id, response_id, item_key, body)
            SELECT ?, position, kind, sample_id, response_id, item_key, body FROM ${stage} ORDER BY position`).run(id);
          const release = q.byId.get(id)!;
          audit.record({ actorId: actor?.id ?? null, entityType: 'release', entityId: id, datasetId: dataset.id, action: 'create',
            after: { tag, hash: release.hash, samples, responses, note: release.note } });
          return release;
        })();
      } finally {
        db.exec(`DROP TABLE IF EXISTS ${stage}`);
      }
    },

    /** Deletes a whole release (the caller has checked that the actor is an admin); audited with what it held. */
    remove(actorId: number, release: ReleaseRow): void {
      db.transaction(() => {
        q.markDeletion.run(release.id);
        q.deleteRecords.run(release.id);
        q.deleteRelease.run(release.id);
        q.unmarkDeletion.run(release.id);
        audit.record({ actorId, entityType: 'release', entityId: release.id, datasetId: release.dataset_id, action: 'delete',
          before: { tag: release.tag, hash: release.hash, samples: release.n_samples, responses: release.n_responses, note: release.note,
            author: release.author_email, created_at: release.created_at } });
      })();
    },

    /**
     * The responses a run on this release scores: the release's own (those still in the dataset),
     * or, for a release without responses, the dataset's responses to the release's samples.
     */
    responseIdsForRun(release: ReleaseRow): number[] {
      if (!release.with_responses) return q.responsesOfSamples.all(release.id, release.dataset_id) as number[];
      const existing = db.prepare<[string], number>('SELECT id FROM response WHERE id IN (SELECT value FROM json_each(?))').pluck();
      return existing.all(JSON.stringify(q.responseIds.all(release.id))) as number[];
    },

    /**
     * What the judge reads for one response of a run on this release: the question, ground truth and
     * references as released; the answer and contexts as released too (the dataset's own for a
     * release without responses). Null when the release does not hold the item.
     */
    scoringContent(release: ReleaseRow, responseId: number, current: { sample_id: number; answer: string; retrieved_contexts: string[] } | null): ScoringContent | null {
      const own = release.with_responses ? q.recordOfResponse.get(release.id, responseId) : undefined;
      if (release.with_responses && !own) return null;
      const sampleId = own?.sample_id ?? current?.sample_id;
      const sample = sampleId === undefined || sampleId === null ? undefined : q.recordOfSample.get(release.id, sampleId);
      if (!sample) return null;
      const s = JSON.parse(sample.body) as SampleContent;
      const r = own ? (JSON.parse(own.body) as ResponseContent) : current;
      if (!r) return null;
      return { question: s.question, ground_truth: s.ground_truth, reference_contexts: s.reference_contexts, answer: r.answer, retrieved_contexts: r.retrieved_contexts };
    },
  };
}

export type ReleaseService = ReturnType<typeof releaseService>;
export type { ReleaseRow, RecordContent };
