// Inter-expert agreement per criterion: Krippendorff's α, Fleiss' κ, percent agreement and pairwise
// Cohen's κ, computed by the pure statistics module from every submitted label of the criterion.
//
// Decisions (the page, the CLI and the tests rely on them):
// - A unit (item) is one label slot: (response, context index); context index is -1 for criteria
//   about the whole response, so a per-context criterion has one unit per retrieved context.
// - Only units with at least two submitted labels count. n_items is the number of those units and
//   n_annotators the number of distinct experts who labelled at least one of them; drafts never count.
//   Units with a single label cannot show (dis)agreement; n_units reports every labelled unit.
// - Level of measurement from the criterion's kind (measurementLevel): binary and categorical are
//   nominal and compared as their stored string values; ordinal is ordinal and numeric is interval,
//   both compared as numbers. Category order is the criterion's choices() order (the scale for ordinal).
// - Krippendorff's α covers every counted unit, whatever its number of labels (missing data allowed).
// - Fleiss' κ assumes the same number of ratings per item: it is given only when every counted unit has
//   the same number of labels (≥ 2), and never for numeric criteria (it needs categories); else null.
//   For ordinal criteria it treats the scale points as unordered categories.
// - percent_agreement is the stats module's definition: per counted unit, the share of agreeing label
//   pairs, averaged over units (each unit weighs the same). For numeric criteria "agree" means exactly
//   equal scores, so it is a strict figure there.
// - Pairwise Cohen's κ for every pair of experts among the n_annotators (ordered by email, a < b), over
//   the units both labelled (n; pairs with n = 0 are listed with kappa null). Unweighted for binary and
//   categorical, quadratic-weighted for ordinal with the full scale as categories. Numeric criteria get
//   kappa null: Cohen's κ is defined for categories, not continuous scores (use α at interval level).
// - Every figure is null, never NaN, when it cannot be computed (no counted unit, no variation at all,
//   or not applicable).
// - The values are read with one prepared statement per criterion (labels.queries.criterionValues).
import type { AppContext } from '../app-context.ts';
import type { Criterion } from '../criteria/queries.ts';
import { choices, measurementLevel, numericValue, type CriterionKind } from '../criteria/values.ts';
import { countTable, fleissKappa, krippendorffAlpha, pairwiseCohen, percentAgreement, type Label } from '../stats/index.ts';

export type AgreementLevel = ReturnType<typeof measurementLevel>;

export interface PairwiseCohenKappa {
  /** Email of the first expert (the smaller one in code-point order). */
  a: string;
  b: string;
  /** Units both experts labelled. */
  n: number;
  kappa: number | null;
}

/** Why Fleiss' κ is null (or null when it was computed, even if the result itself is null for lack of variation). */
export type FleissNote = 'numeric' | 'unequal_counts' | 'no_items' | null;

export interface Agreement {
  /** Units (label slots) with at least two submitted labels: the items every figure is based on. */
  n_items: number;
  /** Distinct experts who labelled at least one of those units. */
  n_annotators: number;
  level: AgreementLevel;
  krippendorff_alpha: number | null;
  fleiss_kappa: number | null;
  percent_agreement: number | null;
  pairwise_cohen_kappa: PairwiseCohenKappa[];
  // Extra figures for the page.
  /** Units with at least one submitted label (n_items plus the single-labelled ones). */
  n_units: number;
  /** Labels in the counted units (n in Krippendorff's notation). */
  n_pairable_values: number;
  /** The number of labels every counted unit has, or null when it differs between units. */
  labels_per_item: number | null;
  fleiss_note: FleissNote;
  /** Weighting of the pairwise κ; null for numeric criteria, which get no κ. */
  kappa_weights: 'none' | 'quadratic' | null;
}

/** The keys other programs read from `goldset agreement --json`, in print order. */
export const AGREEMENT_JSON_KEYS = [
  'n_items', 'n_annotators', 'level', 'krippendorff_alpha', 'fleiss_kappa', 'percent_agreement', 'pairwise_cohen_kappa',
] as const;

export interface CriterionValueRow { response_id: number; context_index: number; annotator_id: number; email: string; value: string }

/** Context indices per response in a unit key (response id × UNIT_SPAN + context index + 1, exact below 2^53). */
const UNIT_SPAN = 1 << 20;

const finite = (x: number | null | undefined): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/** A stored value as the statistics see it: a string for nominal kinds, a number otherwise (null if unreadable). */
function statValue(kind: CriterionKind, value: string): Label | null {
  if (kind === 'binary' || kind === 'categorical') return value;
  return numericValue(kind, value);
}

/** The category order: the criterion's choices, then (defensively) any other value seen, sorted. */
function categoriesOf(c: Criterion, seen: Iterable<Label>): Label[] {
  const base: Label[] = choices(c).map((o) => (c.kind === 'ordinal' ? Number(o.value) : o.value));
  const known = new Set<Label>(base);
  const extra = [...new Set(seen)].filter((v) => !known.has(v));
  extra.sort((x, y) => (typeof x === 'number' && typeof y === 'number' ? x - y : String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0));
  return [...base, ...extra];
}

/** Agreement of one criterion from its submitted values (pure: the rows come from criterionValues). */
export function computeAgreement(c: Criterion, rows: readonly CriterionValueRow[]): Agreement {
  const level = measurementLevel(c.kind);
  // Units keyed by a number (response id and context index packed), not a string per row: at
  // 100,000 responses building 200,000 key strings cost as much as the statistics.
  const units = new Map<number, { email: string; value: Label }[]>();
  for (const r of rows) {
    const v = statValue(c.kind, r.value);
    if (v === null) continue;
    if (r.context_index + 1 >= UNIT_SPAN) throw new RangeError(`agreement: context index ${r.context_index} out of range`);
    const key = r.response_id * UNIT_SPAN + r.context_index + 1;
    let unit = units.get(key);
    if (!unit) units.set(key, (unit = []));
    unit.push({ email: r.email, value: v });
  }
  const counted = [...units.entries()].filter(([, u]) => u.length >= 2);
  const values = counted.map(([, u]) => u.map((x) => x.value));
  const sizes = new Set(values.map((u) => u.length));
  const labelsPerItem = sizes.size === 1 ? [...sizes][0]! : null;
  const numeric = c.kind === 'numeric';

  const alpha = counted.length ? krippendorffAlpha(values, level) : null;
  const categories = numeric ? [] : categoriesOf(c, values.flat());

  let fleiss: number | null = null;
  let fleissNote: FleissNote = null;
  if (numeric) fleissNote = 'numeric';
  else if (counted.length === 0) fleissNote = 'no_items';
  else if (labelsPerItem === null) fleissNote = 'unequal_counts';
  else fleiss = finite(fleissKappa(countTable(values, categories).table));

  const byAnnotator = new Map<string, Map<number, Label>>();
  for (const email of [...new Set(counted.flatMap(([, u]) => u.map((x) => x.email)))].sort()) byAnnotator.set(email, new Map());
  for (const [key, u] of counted) for (const x of u) byAnnotator.get(x.email)!.set(key, x.value);

  const weights = c.kind === 'ordinal' ? 'quadratic' as const : numeric ? null : 'none' as const;
  const pairwise: PairwiseCohenKappa[] = weights === null
    ? pairCounts(byAnnotator)
    : pairwiseCohen(byAnnotator, { weights, categories }).map((p) => ({ a: p.a, b: p.b, n: p.n, kappa: finite(p.kappa) }));

  return {
    n_items: counted.length,
    n_annotators: byAnnotator.size,
    level,
    krippendorff_alpha: finite(alpha?.alpha),
    fleiss_kappa: fleiss,
    percent_agreement: finite(percentAgreement(values)),
    pairwise_cohen_kappa: pairwise,
    n_units: units.size,
    n_pairable_values: alpha?.n_pairable_values ?? 0,
    labels_per_item: labelsPerItem,
    fleiss_note: fleissNote,
    kappa_weights: weights,
  };
}

/** Every pair with its number of shared units, without κ (numeric criteria). */
function pairCounts(byAnnotator: ReadonlyMap<string, ReadonlyMap<number, Label>>): PairwiseCohenKappa[] {
  const list = [...byAnnotator.entries()];
  const out: PairwiseCohenKappa[] = [];
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      let n = 0;
      for (const key of list[i]![1].keys()) if (list[j]![1].has(key)) n++;
      out.push({ a: list[i]![0], b: list[j]![0], n, kappa: null });
    }
  }
  return out;
}

type Ctx = Pick<AppContext, 'criteria' | 'labels'>;

/** Agreement of one criterion (by id or already loaded); one query reads all its submitted values. */
export function agreementFor(ctx: Ctx, criterion: number | Criterion): Agreement {
  const c = typeof criterion === 'number' ? ctx.criteria.get(criterion) : criterion;
  if (!c) throw new RangeError(`no criterion #${String(criterion)}`);
  return computeAgreement(c, ctx.labels.queries.criterionValues.all(c.id));
}

/** Agreement of every criterion of a dataset (archived ones last), for the page. */
export function agreementForDataset(ctx: Ctx, datasetId: number): { criterion: Criterion; agreement: Agreement }[] {
  return ctx.criteria.queries.allForDataset(datasetId).map((c) => ({ criterion: c, agreement: agreementFor(ctx, c) }));
}

export type AlphaReading = 'reliable' | 'tentative' | 'unreliable';

/**
 * Krippendorff's conventional thresholds (Content Analysis, 2nd ed., 2004, p. 241): rely on data with
 * α ≥ .800; draw only tentative conclusions from .667 ≤ α < .800; below .667 the data are not reliable.
 */
export function alphaReading(alpha: number | null): AlphaReading | null {
  if (alpha === null) return null;
  alpha = Math.round(alpha * 1000) / 1000; // the reading matches the figure shown to three decimals
  return alpha >= 0.8 ? 'reliable' : alpha >= 0.667 ? 'tentative' : 'unreliable';
}

export type KappaReading = 'poor' | 'slight' | 'fair' | 'moderate' | 'substantial' | 'almost_perfect';

/** Landis & Koch (1977) bands for κ: < 0 poor, ≤ .20 slight, ≤ .40 fair, ≤ .60 moderate, ≤ .80 substantial, above almost perfect. */
export function kappaReading(kappa: number | null): KappaReading | null {
  if (kappa === null) return null;
  kappa = Math.round(kappa * 100) / 100; // the bands are given to two decimals (0.40 is still fair)
  if (kappa < 0) return 'poor';
  if (kappa <= 0.2) return 'slight';
  if (kappa <= 0.4) return 'fair';
  if (kappa <= 0.6) return 'moderate';
  if (kappa <= 0.8) return 'substantial';
  return 'almost_perfect';
}
