// Where the judge is biased: on the completed sample, the residual (gold − prediction) regressed on
// answer length (per 100 characters), the number of retrieved contexts and, when the estimate covers
// several systems, the system (each against the most frequent one). One OLS with every factor, the
// t-test of each coefficient (statsmodels' definitions, stats/ols.ts), Holm-adjusted across the
// factors. These say where to look, not what to conclude. Pure.
import { holm, ols } from '../stats/ols.ts';

export interface BiasItem { residual: number; answer_chars: number; n_contexts: number; system: string }

export type BiasFactor = 'answer_length' | 'contexts' | `system=${string}`;

export interface BiasRow {
  factor: BiasFactor;
  /** The coefficient on the residual gold − prediction: negative means the judge is more lenient than the experts. */
  effect: number | null;
  p_value: number | null;
  p_adjusted: number | null;
  /** For system factors: the system it is compared with. */
  reference?: string;
}

export interface BiasReport {
  n: number;
  rows: BiasRow[];
  /** Factors flagged at α = 0.05 after Holm's adjustment. */
  flagged: BiasFactor[];
  /** Fewer items than the factors need: nothing is tested. */
  too_few: boolean;
}

export const BIAS_ALPHA = 0.05;
const MIN_ITEMS = 10;

export function biasDiagnostics(items: readonly BiasItem[], bySystem: boolean): BiasReport {
  const n = items.length;
  const counts = new Map<string, number>();
  for (const it of items) counts.set(it.system, (counts.get(it.system) ?? 0) + 1);
  // Reference: the most frequent system (ties by name), so each effect is "this system vs the usual one".
  const systems = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([s]) => s);
  const others = bySystem ? systems.slice(1).sort() : [];
  const factors: BiasFactor[] = ['answer_length', 'contexts', ...others.map((s) => `system=${s}` as const)];
  const empty = (): BiasRow[] => factors.map((factor) => ({ factor, effect: null, p_value: null, p_adjusted: null, ...(factor.startsWith('system=') ? { reference: systems[0]! } : {}) }));
  if (n < Math.max(MIN_ITEMS, factors.length + 2)) return { n, rows: empty(), flagged: [], too_few: true };
  const columns: Float64Array[] = [
    new Float64Array(n).fill(1),
    Float64Array.from(items, (it) => it.answer_chars / 100),
    Float64Array.from(items, (it) => it.n_contexts),
    ...others.map((s) => Float64Array.from(items, (it) => (it.system === s ? 1 : 0))),
  ];
  const fit = ols(columns, Float64Array.from(items, (it) => it.residual));
  const p = factors.map((_, i) => fit.p[i + 1] ?? null);
  const adjusted = holm(p);
  const rows: BiasRow[] = factors.map((factor, i) => ({
    factor, effect: fit.coef[i + 1] ?? null, p_value: p[i]!, p_adjusted: adjusted[i]!,
    ...(factor.startsWith('system=') ? { reference: systems[0]! } : {}),
  }));
  return { n, rows, flagged: rows.filter((r) => r.p_adjusted !== null && r.p_adjusted < BIAS_ALPHA).map((r) => r.factor), too_few: false };
}
