// Label writes that keep the dataset's kept figures current (derived-cache.ts: track, follow).
import type { DB } from '../db/connection.ts';
import type { DerivedCache, Touched } from '../db/derived-cache.ts';
import type { GroupCommit } from '../db/group-commit.ts';

/** Names a response a write changes, with what the write knows of it (see derived-cache.ts Touched, open-disagreements.ts). */
export type Touch = (responseId: number, known?: Touched) => void;

/**
 * `tracked(datasetOf, write)` runs `write` in a transaction that keeps the dataset's kept figures
 * current: `write` names every response it writes to, and once the transaction has committed every
 * kept value that can follow it (e.g. open-disagreements.ts) is updated without a recount of the dataset.
 *
 * `group` (group-commit.ts): `outermost` tells whether the transaction in progress is the group
 * commit's alone (writes in it follow the kept values at once, since a failed group commit drops
 * them all); `{ savepoint: false }` runs the write in it without a savepoint (`withoutSavepoint`: for
 * a write that refuses what it refuses before its first change). With no group open, every write
 * is a transaction of its own.
 */
export function trackedWrites(db: DB, derived: DerivedCache, group: Pick<GroupCommit, 'outermost' | 'withoutSavepoint'>) {
  return function tracked<A extends unknown[], R>(datasetOf: (args: NoInfer<A>) => number, write: (touch: Touch, ...args: A) => R,
    { savepoint = true } = {}): (...args: A) => R {
    const run = (...args: A): [R, () => void] => {
      // Inside someone else's transaction the write may still be rolled back after it returns: keep nothing then.
      const w = derived.track(datasetOf(args), outer);
      const result = write(w.touch, ...args);
      return [result, w.done()];
    };
    const inTransaction = savepoint ? db.transaction(run) : (...args: A) => group.withoutSavepoint(() => run(...args));
    let outer = false;
    return (...args: A): R => {
      outer = db.inTransaction && !group.outermost();
      const [result, committed] = inTransaction(...args);
      committed();
      return result;
    };
  };
}

export type Tracked = ReturnType<typeof trackedWrites>;
