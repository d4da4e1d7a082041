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
// - The values are read with one prepared statement per criterion (labels.queries.criterionValues),
//   as raw rows of ids; experts are named (by email) only in the pairwise list.
// - The page keeps the figures' counts (CriterionCounts: integer counts by unit size, per expert and
//   per pair of experts) and follows the label service's writes from the touched responses
//   (followAgreement, derived-cache.ts), so during active labelling a view after a save costs the
//   number of experts and distinct values, not the number of items. Full and followed figures come
//   from the counts through one function (agreementOf) and equal each other bit for bit.
import type { AppContext } from '../app-context.ts';
import type { Criterion } from '../criteria/queries.ts';
import { choices, measurementLevel, numericValue, type CriterionKind } from '../criteria/values.ts';
import type { Follow } from '../db/derived-cache.ts';
import type { SubmittedValue } from '../labels/queries.ts';
import { alphaFromCounts, CODE_SPAN, cohenFromTable, fleissFromCounts, percentAgreementFromCounts, UnitCounts, type Label } from '../stats/index.ts';

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

/** Expert ids below this (2^26) pack a pair of experts smaller · ID_SPAN + larger exactly into a number. */
const ID_SPAN = 1 << 26;

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

/** Adds `by` to the count kept for `key`, dropping counts that fall to zero. */
function bump(counts: Map<number, number>, key: number, by: number): void {
  const now = (counts.get(key) ?? 0) + by;
  if (now === 0) counts.delete(key);
  else counts.set(key, now);
}

/**
 * Everything the agreement figures of one criterion are computed from, as integer counts that a
 * changed response can be taken out of and put back into exactly (see stats/unit-counts.ts): the
 * reliability counts of the units, the pairable units per expert, and per pair of experts the
 * table of the value pairs they gave to the units both labelled. Values are coded (first seen,
 * first code; a code is never reused) and experts are ids; each response's labels are kept as
 * codes so that its old units can be taken out when it changes.
 */
export class CriterionCounts {
  readonly units = new UnitCounts();
  /** Code → value as the statistics see it. */
  readonly values: Label[] = [];
  /** Per expert: the pairable units they labelled. */
  readonly unitsOfAnnotator = new Map<number, number>();
  /** Per pair of experts (smaller id · ID_SPAN + larger): the smaller id's code · CODE_SPAN + the larger's → shared units. */
  readonly pairTables = new Map<number, Map<number, number>>();
  private readonly codeOfValue = new Map<Label, number>();
  private readonly codeOfStored = new Map<string, number>();
  /** Per response: its counted labels as (context index, expert id, value code), ordered by context index. */
  private readonly labelsOf = new Map<number, number[]>();

  constructor(readonly criterion: Criterion) {}

  /** Counts the submitted labels of the criterion (rows of criterionValues, any order). */
  addRows(rows: Iterable<SubmittedValue>): void {
    const labels = new Map<number, number[]>();
    for (const [responseId, contextIndex, annotatorId, value] of rows) {
      let list = labels.get(responseId);
      if (!list) labels.set(responseId, (list = []));
      this.collect(list, contextIndex, annotatorId, value);
    }
    for (const [responseId, list] of labels) this.setResponse(responseId, list);
  }

  /** Counts a response's current submitted labels of the criterion instead of those counted before. */
  replaceResponse(responseId: number, rows: Iterable<SubmittedValue>): void {
    const list: number[] = [];
    for (const [, contextIndex, annotatorId, value] of rows) this.collect(list, contextIndex, annotatorId, value);
    this.setResponse(responseId, list);
  }

  /** Adds one label to a response's list, keeping it ordered by context index (labels of a response arrive mostly in order). */
  private collect(list: number[], contextIndex: number, annotatorId: number, value: string): void {
    const code = this.code(value);
    if (code < 0) return;
    if (annotatorId >= ID_SPAN) throw new RangeError(`agreement: expert id ${annotatorId} out of range`);
    let at = list.length;
    while (at > 0 && list[at - 3]! > contextIndex) at -= 3;
    if (at === list.length) list.push(contextIndex, annotatorId, code);
    else list.splice(at, 0, contextIndex, annotatorId, code);
  }

  /** The code of a stored value, −1 when the statistics cannot read it. */
  private code(stored: string): number {
    let code = this.codeOfStored.get(stored);
    if (code !== undefined) return code;
    const v = statValue(this.criterion.kind, stored);
    if (v === null) code = -1;
    else if ((code = this.codeOfValue.get(v)) === undefined) this.codeOfValue.set(v, (code = this.values.push(v) - 1));
    this.codeOfStored.set(stored, code);
    return code;
  }

  private setResponse(responseId: number, list: number[]): void {
    const old = this.labelsOf.get(responseId);
    if (old) this.countResponse(old, -1);
    if (list.length === 0) {
      this.labelsOf.delete(responseId);
      return;
    }
    this.labelsOf.set(responseId, list);
    this.countResponse(list, 1);
  }

  /** Counts (sign 1) or uncounts (−1) the units of a response: its labels grouped by context index. */
  private countResponse(list: readonly number[], sign: 1 | -1): void {
    for (let i = 0; i < list.length; ) {
      const contextIndex = list[i]!;
      const annotators: number[] = [];
      const codes: number[] = [];
      for (; i < list.length && list[i] === contextIndex; i += 3) {
        annotators.push(list[i + 1]!);
        codes.push(list[i + 2]!);
      }
      this.countUnit(annotators, codes, sign);
    }
  }

  private countUnit(annotators: readonly number[], codes: readonly number[], sign: 1 | -1): void {
    this.units.add(codes, sign);
    if (codes.length < 2) return; // a single label shows no (dis)agreement: in n_units only
    for (const a of annotators) bump(this.unitsOfAnnotator, a, sign);
    for (let i = 0; i < annotators.length; i++) {
      for (let j = i + 1; j < annotators.length; j++) {
        const [lo, hi] = annotators[i]! < annotators[j]! ? [i, j] : [j, i];
        const key = annotators[lo]! * ID_SPAN + annotators[hi]!;
        let table = this.pairTables.get(key);
        if (!table) this.pairTables.set(key, (table = new Map()));
        bump(table, codes[lo]! * CODE_SPAN + codes[hi]!, sign);
        if (table.size === 0) this.pairTables.delete(key);
      }
    }
  }
}

/**
 * The agreement figures from a criterion's counts: the one computation behind the full one
 * (computeAgreement) and the kept figures that follow label changes, so both give the same
 * figures bit for bit. `emailOf` names the experts (the pairwise list is ordered by email).
 */
export function agreementOf(counts: CriterionCounts, emailOf: (annotatorId: number) => string): Agreement {
  const c = counts.criterion;
  const level = measurementLevel(c.kind);
  const numeric = c.kind === 'numeric';
  const valueOf = (code: number): Label => counts.values[code]!;
  const nItems = counts.units.pairableUnits();
  const labelsPerItem = counts.units.commonSize();
  const alpha = nItems ? alphaFromCounts(counts.units, valueOf, level) : null;
  const seen: Label[] = [];
  counts.units.marginal.forEach((n, code) => { if (n > 0) seen.push(valueOf(code)); });
  const categories = numeric ? [] : categoriesOf(c, seen);

  let fleiss: number | null = null;
  let fleissNote: FleissNote = null;
  if (numeric) fleissNote = 'numeric';
  else if (nItems === 0) fleissNote = 'no_items';
  else if (labelsPerItem === null) fleissNote = 'unequal_counts';
  else fleiss = finite(fleissFromCounts(nItems, labelsPerItem, counts.units.sumSquares, counts.units.marginal));

  const weights = c.kind === 'ordinal' ? 'quadratic' as const : numeric ? null : 'none' as const;
  return {
    n_items: nItems,
    n_annotators: counts.unitsOfAnnotator.size,
    level,
    krippendorff_alpha: finite(alpha?.alpha),
    fleiss_kappa: fleiss,
    percent_agreement: finite(percentAgreementFromCounts(counts.units)),
    pairwise_cohen_kappa: pairwise(counts, emailOf, weights, categories),
    n_units: counts.units.units(),
    n_pairable_values: alpha?.n_pairable_values ?? 0,
    labels_per_item: labelsPerItem,
    fleiss_note: fleissNote,
    kappa_weights: weights,
  };
}

/**
 * Every pair of the experts with a pairable unit (ordered by email, a < b) with the units both
 * labelled and Cohen's κ over them (null for numeric criteria, `weights` null), the table read off
 * the kept pair counts with the categories' positions as rows and columns.
 */
function pairwise(counts: CriterionCounts, emailOf: (annotatorId: number) => string, weights: 'none' | 'quadratic' | null, categories: readonly Label[]): PairwiseCohenKappa[] {
  const experts = [...counts.unitsOfAnnotator.keys()].map((id) => ({ id, email: emailOf(id) }));
  experts.sort((x, y) => (x.email < y.email ? -1 : x.email > y.email ? 1 : 0));
  const position = new Map<Label, number>(categories.map((v, i) => [v, i]));
  const k = categories.length;
  const out: PairwiseCohenKappa[] = [];
  for (let i = 0; i < experts.length; i++) {
    for (let j = i + 1; j < experts.length; j++) {
      const [a, b] = [experts[i]!, experts[j]!];
      const cells = counts.pairTables.get(Math.min(a.id, b.id) * ID_SPAN + Math.max(a.id, b.id));
      let n = 0;
      const table = weights === null ? null : new Float64Array(k * k);
      for (const [cell, count] of cells ?? []) {
        n += count;
        if (!table) continue;
        // The smaller id's code comes first in the cell: rows are a's categories.
        const [lo, hi] = [position.get(counts.values[Math.floor(cell / CODE_SPAN)]!)!, position.get(counts.values[cell % CODE_SPAN]!)!];
        const [row, col] = a.id < b.id ? [lo, hi] : [hi, lo];
        table[row * k + col]! += count;
      }
      out.push({ a: a.email, b: b.email, n, kappa: table ? finite(cohenFromTable(table, k, weights!)) : null });
    }
  }
  return out;
}

/** Agreement of one criterion from its submitted values (pure: the rows come from criterionValues; `emailOf` names the experts). */
export function computeAgreement(c: Criterion, rows: Iterable<SubmittedValue>, emailOf: (annotatorId: number) => string): Agreement {
  const counts = new CriterionCounts(c);
  counts.addRows(rows);
  return agreementOf(counts, emailOf);
}

type Ctx = Pick<AppContext, 'criteria' | 'labels' | 'users'>;

/** The derived cache's key for a dataset's kept agreement. */
export const AGREEMENT_KEY = 'agreement';

/** Experts' emails by id, each looked up once (a page names a handful of experts). */
function emailsOf(ctx: Ctx): (annotatorId: number) => string {
  const known = new Map<number, string>();
  return (id) => {
    let email = known.get(id);
    if (email === undefined) known.set(id, (email = ctx.users.queries.byId(id)?.email ?? `#${id}`));
    return email;
  };
}

/** Agreement of one criterion (by id or already loaded); one query reads all its submitted values. */
export function agreementFor(ctx: Ctx, criterion: number | Criterion): Agreement {
  const c = typeof criterion === 'number' ? ctx.criteria.get(criterion) : criterion;
  if (!c) throw new RangeError(`no criterion #${String(criterion)}`);
  return computeAgreement(c, ctx.labels.queries.criterionValues.all(c.id), emailsOf(ctx));
}

export interface CriterionAgreement { criterion: Criterion; agreement: Agreement }

/**
 * The agreement of every criterion of a dataset, kept by the page (derived cache key 'agreement')
 * and following the label service's writes (followAgreement): the figures are computed again from
 * the counts when asked after a change, which costs the number of experts and distinct values,
 * not the number of items. The cache freezes a kept object one level deep, so what changes lives
 * one level down.
 */
export class KeptAgreement {
  private readonly state: { rows: CriterionAgreement[] | null } = { rows: null };
  constructor(private readonly perCriterion: readonly CriterionCounts[], private readonly emailOf: (annotatorId: number) => string) {}

  /** Criteria in page order (archived ones last) with their figures. */
  rows(): readonly CriterionAgreement[] {
    this.state.rows ??= this.perCriterion.map((counts) => ({ criterion: counts.criterion, agreement: agreementOf(counts, this.emailOf) }));
    return this.state.rows;
  }

  /** Counts the responses' current submitted labels (responseValues rows, every criterion) instead of those counted before. */
  replace(responses: readonly (readonly [responseId: number, rows: readonly (readonly [number, ...SubmittedValue])[]])[]): void {
    for (const [responseId, rows] of responses) {
      for (const counts of this.perCriterion) {
        counts.replaceResponse(responseId, rows.filter((r) => r[0] === counts.criterion.id).map(([, ...value]) => value));
      }
    }
    this.state.rows = null;
  }
}

/** Agreement of every criterion of a dataset (archived ones last), counted from all its submitted labels (one query per criterion). */
export function agreementForDataset(ctx: Ctx, datasetId: number): KeptAgreement {
  const emailOf = emailsOf(ctx);
  return new KeptAgreement(ctx.criteria.queries.allForDataset(datasetId).map((c) => {
    const counts = new CriterionCounts(c);
    counts.addRows(ctx.labels.queries.criterionValues.all(c.id));
    return counts;
  }), emailOf);
}

/**
 * Follows a tracked label write (derived-cache.ts: follow): reads each touched response's submitted
 * labels inside the write's transaction (one query each) and counts them instead of the old ones
 * once it has committed.
 */
export function followAgreement(ctx: Ctx): Follow<KeptAgreement> {
  return (kept, touched) => {
    const read = touched.map((id) => [id, ctx.labels.queries.responseValues.all(id)] as const);
    return () => {
      kept.replace(read);
      return kept;
    };
  };
}

/** The dataset's agreement, kept until its data changes and following the label service's writes. */
export function keptAgreement(ctx: Ctx & Pick<AppContext, 'derived'>, datasetId: number): Readonly<KeptAgreement> {
  return ctx.derived.get(datasetId, AGREEMENT_KEY, () => agreementForDataset(ctx, datasetId), followAgreement(ctx));
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
