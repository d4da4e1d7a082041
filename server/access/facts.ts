// The facts the rules of server/access/permissions.ts decide on, read from the database: a user's
// standing in a dataset (one query, alone or with the dataset's row) and which items they have
// submitted their own label of.
import type { DB } from '../db/connection.ts';
import type { CurrentUser } from '../http/context.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { PERMISSIONS, type Standing } from './permissions.ts';

/** The facts of a standing as one row holds them (STANDING), beside the dataset's `archived`. */
interface StandingColumns { standing_listed: number; standing_label: number; standing_adjudicate: number }

// A user's standing in dataset `d`, once: read alone, with the dataset's row, or with a response's.
const STANDING_COLUMNS = `EXISTS (SELECT 1 FROM dataset_member l WHERE l.dataset_id = d.id AND l.can_label = 1) AS standing_listed,
  coalesce(m.can_label, 0) AS standing_label, coalesce(m.can_adjudicate, 0) AS standing_adjudicate`;
const MEMBER = 'LEFT JOIN dataset_member m ON m.dataset_id = d.id AND m.user_id = @me';
const STANDING = `${STANDING_COLUMNS} FROM dataset d ${MEMBER} WHERE d.id = @ds`;

function standingOf(user: CurrentUser, row: StandingColumns & { archived: number }): Standing {
  return { role: user.role, labellersListed: row.standing_listed === 1, listedLabeller: row.standing_label === 1, listedAdjudicator: row.standing_adjudicate === 1,
    archived: row.archived === 1 };
}

export function accessFacts(db: DB) {
  const s = {
    standing: db.prepare<{ ds: number; me: number }, StandingColumns & { archived: number }>(`SELECT d.archived, ${STANDING}`),
    withDataset: db.prepare<{ ds: number; me: number }, DatasetRow & StandingColumns>(`SELECT d.*, ${STANDING}`),
    // Only the response's first columns: they sit on its row's own page, the texts mostly on overflow pages.
    withResponse: db.prepare<{ rid: number; me: number }, DatasetRow & StandingColumns & { response_id: number }>(`
      SELECT r.id AS response_id, d.*, ${STANDING_COLUMNS} FROM response r JOIN dataset d ON d.id = r.dataset_id ${MEMBER} WHERE r.id = @rid`),
    submittedOwn: db.prepare<[number, number]>(`SELECT 1 FROM annotation WHERE response_id = ? AND annotator_id = ? AND state = 'submitted'`).pluck(),
    submittedItems: db.prepare<[number, number], number>(`SELECT response_id FROM annotation
      WHERE dataset_id = ? AND annotator_id = ? AND state = 'submitted'`).pluck(),
  };

  /** The user's standing in the dataset; null for nobody signed in or an unknown dataset. */
  function standing(user: CurrentUser | null, datasetId: number): Standing | null {
    if (!user) return null;
    const row = s.standing.get({ ds: datasetId, me: user.id });
    return row ? standingOf(user, row) : null;
  }

  return {
    standing,

    /**
     * The dataset's row (as datasets.get reads it) with the user's standing in it (as `standing`), in one
     * query: what every labelling request reads first. Undefined for an unknown dataset.
     */
    datasetWithStanding(user: CurrentUser | null, datasetId: number): { dataset: DatasetRow; standing: Standing | null } | undefined {
      const row = s.withDataset.get({ ds: datasetId, me: user?.id ?? 0 }); // nobody signed in: no member row, no standing
      if (!row) return undefined;
      const { standing_listed, standing_label, standing_adjudicate, ...dataset } = row;
      return { dataset, standing: user ? standingOf(user, row) : null };
    },

    /**
     * As datasetWithStanding, for the dataset of a response, in one query with it: what saving a label
     * reads first. Undefined for an unknown response.
     */
    responseWithStanding(user: CurrentUser | null, responseId: number): { responseId: number; dataset: DatasetRow; standing: Standing | null } | undefined {
      const row = s.withResponse.get({ rid: responseId, me: user?.id ?? 0 });
      if (!row) return undefined;
      const { response_id, standing_listed, standing_label, standing_adjudicate, ...dataset } = row;
      return { responseId: response_id, dataset, standing: user ? standingOf(user, row) : null };
    },

    /** Whether the user may read others' labels and the gold value of one item. */
    mayReadItemLabels(user: CurrentUser | null, datasetId: number, responseId: number): boolean {
      const st = standing(user, datasetId);
      return st !== null && PERMISSIONS.labels.readItem(st, { submittedOwn: s.submittedOwn.get(responseId, user!.id) === 1 });
    },

    /** Whether the user may read everyone's labels and gold values in the dataset at once (exports with gold). */
    mayReadAllLabels(user: CurrentUser | null, datasetId: number): boolean {
      const st = standing(user, datasetId);
      return st !== null && PERMISSIONS.labels.readAll(st);
    },

    /**
     * The items of a dataset whose labels and gold the user may read: null when all of them
     * (PERMISSIONS.labels.readAll), else those they submitted their own label of, in one query.
     */
    readableItems(user: CurrentUser | null, datasetId: number): ReadonlySet<number> | null {
      const st = standing(user, datasetId);
      if (st === null) return new Set();
      if (PERMISSIONS.labels.readAll(st)) return null;
      return new Set(s.submittedItems.all(datasetId, user!.id));
    },
  };
}

export type AccessFacts = ReturnType<typeof accessFacts>;
