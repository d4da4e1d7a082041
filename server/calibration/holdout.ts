// The fixed, seeded split of a dataset's labelled items into a calibration part (where prompts
// are tuned and few-shot examples are picked) and a held-out part (where they are judged).
//
// Each item's part is a function of (dataset seed, item id) alone: a 32-bit MurmurHash3 of the
// two gives u in [0, 1), and the item is held out when u < share. Why not an exact split per
// stratum (sort each stratum by hash, hold out the first round(share · m))? Because the parts
// must never change when items are added, and that is only possible if the part depends on the
// item alone: with an exact quota, the next labelled item raises a stratum's quota sooner or
// later and, unless it is that item itself, pulls a calibration item (one the prompt author has
// already looked at) into the held-out part. Labels arrive in any order of item id, so even an
// allocation in id order would not be stable. The stratum is not hashed either: a corrected gold
// label (adjudication) must not move its item.
//
// The price: the split is stratified in expectation only. In a stratum of m items the held-out
// count is Binomial(m, share) — e.g. 30 ± 4.6 of 100 at share 0.3, and a class of 5 items has no
// held-out item with probability 0.7⁵ ≈ 17 %. holdoutBalance() reports the realised counts per
// stratum so the page can show them.

export type HoldoutPart = 'calibration' | 'held_out';

export interface HoldoutItem {
  id: number;
  /** e.g. the gold value; used for the balance report, never for the assignment. */
  stratum: string;
}

export const DEFAULT_HELD_OUT_SHARE = 0.3;

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixWord(h: number, k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** A uniform number in [0, 1) fixed by (seed, id): MurmurHash3_x86_32 of the words seed, id low, id high. */
export function holdoutUnit(seed: number, id: number): number {
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(id)) throw new RangeError('holdout: seed and id must be safe integers');
  let h = 0x5f3759df;
  h = mixWord(h, seed >>> 0);
  h = mixWord(h, id >>> 0);
  h = mixWord(h, Math.floor(id / 2 ** 32) >>> 0);
  h ^= 12;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** The part of one item; the same answer whatever other items exist. */
export function holdoutPart(seed: number, id: number, heldOutShare = DEFAULT_HELD_OUT_SHARE): HoldoutPart {
  if (!(heldOutShare >= 0 && heldOutShare <= 1)) throw new RangeError('holdout: heldOutShare must be in [0, 1]');
  return holdoutUnit(seed, id) < heldOutShare ? 'held_out' : 'calibration';
}

/** Item id → part, deterministic for a seed and stable as items are added, removed or relabelled. */
export function splitHoldout(items: readonly HoldoutItem[], seed: number, heldOutShare = DEFAULT_HELD_OUT_SHARE): Map<number, HoldoutPart> {
  const out = new Map<number, HoldoutPart>();
  for (const it of items) out.set(it.id, holdoutPart(seed, it.id, heldOutShare));
  return out;
}

export interface StratumBalance {
  stratum: string;
  calibration: number;
  held_out: number;
}

/** Realised counts per stratum (strata sorted by name), to show how close the split came to the share. */
export function holdoutBalance(items: readonly HoldoutItem[], split: ReadonlyMap<number, HoldoutPart>): StratumBalance[] {
  const by = new Map<string, StratumBalance>();
  for (const it of items) {
    const part = split.get(it.id);
    if (!part) continue;
    let b = by.get(it.stratum);
    if (!b) by.set(it.stratum, (b = { stratum: it.stratum, calibration: 0, held_out: 0 }));
    b[part]++;
  }
  return [...by.values()].sort((a, b) => (a.stratum < b.stratum ? -1 : a.stratum > b.stratum ? 1 : 0));
}
