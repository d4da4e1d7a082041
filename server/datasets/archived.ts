// Archived datasets are read-only: every service that writes into a dataset asks this guard first,
// so the web forms, imports, the API and the CLI all refuse alike. The app answers the error with
// 409 and the message in the user's language (server/app.ts); only un-archiving is allowed.
import type { DB } from '../db/connection.ts';

export class ArchivedError extends Error {
  constructor(readonly datasetId: number) { super(`dataset ${datasetId} is archived and read-only`); }
}

export type WritableGuard = (datasetId: number) => void;

/** A guard that throws ArchivedError for an archived dataset (and does nothing for an unknown one). */
export function writableGuard(db: DB): WritableGuard {
  const archived = db.prepare<[number], number>('SELECT archived FROM dataset WHERE id = ?').pluck();
  return (datasetId) => {
    if (archived.get(datasetId) === 1) throw new ArchivedError(datasetId);
  };
}
