// The append-only audit log: who changed what, when, from what to what.
import type { DB } from '../db/connection.ts';

export const AUDIT_TYPES = ['sample', 'dataset', 'user', 'import', 'api_token', 'response', 'criterion', 'label', 'adjudication',
  'judge_setting', 'prompt', 'metric', 'run', 'release', 'labelling_sheet'] as const;
export type EntityType = (typeof AUDIT_TYPES)[number];

export interface AuditInput {
  actorId: number | null;
  entityType: EntityType;
  entityId: number | null;
  datasetId?: number | null;
  action: string;
  before?: unknown;
  after?: unknown;
}

export interface AuditRow {
  id: number;
  at: string;
  actor_id: number | null;
  actor_email: string | null;
  entity_type: EntityType;
  entity_id: number | null;
  dataset_id: number | null;
  /** The language of the event's dataset: the item texts an event holds (a sample's question…) are in it. */
  dataset_language: 'zh' | 'en' | null;
  action: string;
  before: string | null;
  after: string | null;
}

const SELECT = `SELECT a.id, a.at, a.actor_id, u.email AS actor_email, a.entity_type, a.entity_id, a.dataset_id,
  d.language AS dataset_language, a.action, a.before, a.after
  FROM audit_event a LEFT JOIN user u ON u.id = a.actor_id LEFT JOIN dataset d ON d.id = a.dataset_id`;

export function auditQueries(db: DB) {
  const insert = db.prepare(`INSERT INTO audit_event (actor_id, entity_type, entity_id, dataset_id, action, before, after)
    VALUES (@actorId, @entityType, @entityId, @datasetId, @action, @before, @after)`);
  const forEntity = db.prepare<[string, number], AuditRow>(`${SELECT} WHERE a.entity_type = ? AND a.entity_id = ? ORDER BY a.id DESC LIMIT 200`);
  const page = db.prepare<{ before: number; limit: number; type: string | null }, AuditRow>(
    `${SELECT} WHERE a.id < @before AND (@type IS NULL OR a.entity_type = @type) ORDER BY a.id DESC LIMIT @limit`);

  return {
    record(e: AuditInput): void {
      insert.run({
        actorId: e.actorId, entityType: e.entityType, entityId: e.entityId, datasetId: e.datasetId ?? null, action: e.action,
        before: e.before === undefined ? null : JSON.stringify(e.before),
        after: e.after === undefined ? null : JSON.stringify(e.after),
      });
    },
    forEntity: (type: EntityType, id: number) => forEntity.all(type, id),
    page: (opts: { before?: number; limit?: number; type?: EntityType | null }) =>
      page.all({ before: opts.before ?? Number.MAX_SAFE_INTEGER, limit: opts.limit ?? 100, type: opts.type ?? null }),
  };
}

export type AuditQueries = ReturnType<typeof auditQueries>;
