// Open expert disagreements of a dataset: label slots (response, criterion, context) of a
// non-numeric, unarchived criterion whose submitted values differ and that have no gold value yet.
// Nearly every page shows their number (what waits for an adjudicator) and the review of an item
// links to the next one, so during active labelling they would be recounted over the whole dataset
// after every save. Instead the kept figures are updated from the changed item: a write of the
// label service touches the slots of the responses it writes to and nothing else, so the count
// of each touched response is read again (one query each; none when the write counted fewer than two
// submitted annotations of it, as a first label of an item does) inside the same transaction, and the
// kept value moves from the version before the write to the version after it
// (derived-cache.ts: follow, track). Any other change (an import, sqlite3, another process, a criterion
// archived) leaves a version gap the kept value does not cover, and the next read recomputes it all.
import type { DB } from '../db/connection.ts';
import type { DerivedCache, Touched } from '../db/derived-cache.ts';

const KEY = 'disagreements:open';

/** What the pages read: how many slots are open, and the responses with at least one, in id order. */
export interface OpenDisagreements {
  readonly count: number;
  /** Response ids with an open disagreement, ascending. */
  ids(): readonly number[];
  /**
   * Where open slots offset … offset + limit − 1 (in response, criterion, context order) lie: the
   * responses from `first` to `last` hold them, and `skip` slots of `first` come before them; null
   * when there are none.
   */
  window(offset: number, limit: number): { first: number; last: number; skip: number } | null;
}

// The kept value: open slots per response, the total, and the sorted ids (rebuilt when asked after
// a change). The cache freezes a kept object one level deep, so what changes lives one level down.
class Kept implements OpenDisagreements {
  private readonly state: { count: number; sorted: number[] | null } = { count: 0, sorted: null };
  constructor(private readonly perResponse: Map<number, number>) {
    for (const n of perResponse.values()) this.state.count += n;
  }
  get count(): number {
    return this.state.count;
  }
  ids(): readonly number[] {
    this.state.sorted ??= [...this.perResponse.keys()].sort((a, b) => a - b);
    return this.state.sorted;
  }
  window(offset: number, limit: number): { first: number; last: number; skip: number } | null {
    const ids = this.ids();
    let before = 0;
    let k = 0;
    while (k < ids.length && before + this.perResponse.get(ids[k]!)! <= offset) before += this.perResponse.get(ids[k++]!)!;
    if (k === ids.length || limit <= 0) return null;
    const first = ids[k]!;
    const skip = offset - before;
    let covered = this.perResponse.get(first)! - skip;
    while (covered < limit && k + 1 < ids.length) covered += this.perResponse.get(ids[++k]!)!;
    return { first, last: ids[k]!, skip };
  }
  set(responseId: number, n: number): void {
    const before = this.perResponse.get(responseId) ?? 0;
    if (before === n) return;
    this.state.count += n - before;
    if (n === 0) this.perResponse.delete(responseId);
    else this.perResponse.set(responseId, n);
    if ((before === 0) !== (n === 0)) this.state.sorted = null;
  }
}

// The slot rule, once: what makes a group of one response's submitted labels an open disagreement.
const OPEN_SLOTS = `FROM label l JOIN annotation a ON a.id = l.annotation_id JOIN criterion c ON c.id = l.criterion_id
  WHERE %WHERE% AND a.state = 'submitted' AND c.kind <> 'numeric' AND c.archived = 0
  GROUP BY a.response_id, l.criterion_id, l.context_index
  HAVING count(DISTINCT l.value) > 1 AND NOT EXISTS (SELECT 1 FROM adjudication j WHERE j.response_id = a.response_id
    AND j.criterion_id = l.criterion_id AND j.context_index = l.context_index)`;

/** One response's open slots: run for every response a tracked write touches (its plan is checked in test/http/query-counts.test.ts). */
export const OPEN_SLOTS_OF_RESPONSE = `SELECT count(*) FROM (SELECT 1 ${OPEN_SLOTS.replace('%WHERE%', 'a.response_id = ?')})`;

export function keptOpenDisagreements(db: DB, derived: DerivedCache) {
  const s = {
    all: db.prepare<[number], { response_id: number; n: number }>(`SELECT response_id, count(*) AS n FROM (
      SELECT a.response_id ${OPEN_SLOTS.replace('%WHERE%', 'a.dataset_id = ?')}) GROUP BY response_id`),
    ofResponse: db.prepare<[number], number>(OPEN_SLOTS_OF_RESPONSE).pluck(),
  };

  function compute(datasetId: number): Kept {
    return new Kept(new Map(s.all.all(datasetId).map((r) => [r.response_id, r.n])));
  }

  /**
   * Follows a tracked write: each touched response's open slots counted again (one query each), but
   * for a response the write says has fewer than two submitted annotations: an annotation holds one
   * value per slot, so its slots cannot hold two different submitted values (a first label of an item).
   */
  function follow(kept: Kept, touched: readonly number[], known: ReadonlyMap<number, Touched>): () => Kept {
    const counts = touched.map((id) => [id, (known.get(id)?.submitted ?? 2) < 2 ? 0 : s.ofResponse.get(id) ?? 0] as const);
    return () => {
      for (const [id, n] of counts) kept.set(id, n);
      return kept;
    };
  }

  return {
    /** The dataset's open disagreements (kept; updated in place by the label service's tracked writes). */
    of(datasetId: number): OpenDisagreements {
      return derived.get(datasetId, KEY, () => compute(datasetId), follow);
    },
  };
}

