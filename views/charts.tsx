// Calibration charts rendered as SVG on the server: judge score per expert label, confusion
// heatmap, score histograms by expert label, and κ against threshold. Every visible word comes
// in through `labels` already translated, so the charts read the same in English and Chinese.
// CSP allows no style attributes: only SVG presentation attributes (fill, stroke, …) and classes.
// Colours are the Okabe–Ito palette (safe for the common colour-vision deficiencies); text and
// axes use currentColor so they follow the page's text colour.

import type { Children } from './jsx-runtime.ts';
import { quantileSorted } from '../server/stats/index.ts';
import type { Confusion } from '../server/stats/index.ts';

export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'] as const;

/** One item's judge score and its expert (gold) value. */
export interface ChartPoint {
  id: number;
  score: number;
  gold: string;
}

/** An expert label value and its display name, in the order the chart shows them. */
export interface ChartGroup {
  value: string;
  label: string;
}

interface BaseLabels {
  /** Also the accessible name (aria-label and <title>). */
  title: string;
  /** Longer text for screen readers (<desc>), e.g. what the chart shows in one sentence. */
  description?: string;
}

const W = 640;
const H = 360;
const M = { left: 56, right: 16, top: 36, bottom: 48 };

function colour(i: number): string {
  return PALETTE[i % PALETTE.length]!;
}

/** Short, locale-neutral number for ticks and cells. */
function fmt(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/** About `count` evenly spaced round ticks covering [lo, hi]. */
function ticks(lo: number, hi: number, count = 5, integer = false): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step0 = [1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? raw;
  const step = integer ? Math.max(1, Math.round(step0)) : step0;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + 1e-9; v += step) out.push(Math.round(v / step) * step);
  return out;
}

/** Deterministic value in [0, 1) from an item id, for jitter and for choosing a subset of points. */
export function idUnit(id: number): number {
  let h = Math.imul((id | 0) ^ 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h ^ Math.floor(id / 2 ** 32), 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/**
 * At most `max` of the items, the same ones whatever order they come in: those whose id hashes lowest
 * (idUnit, then id), in that order. The max-th lowest hash is selected from a copy of the hashes (no sort
 * of 100,000), so only the few items at or under it are sorted (the comparator hashes ids: 100,000 items
 * sorted by it would cost most of a page's time).
 */
export function fixedSubset<T extends { id: number }>(items: readonly T[], max: number): readonly T[] {
  if (items.length <= max) return items;
  const units = Float64Array.from(items, (p) => idUnit(p.id));
  const cut = kthSmallest(Float64Array.from(units), max - 1);
  return items.filter((_, i) => units[i]! <= cut).sort((a, b) => idUnit(a.id) - idUnit(b.id) || a.id - b.id).slice(0, max);
}

/** The k-th smallest value (0-based) of `a`, which it reorders: Hoare's selection, linear on average. */
function kthSmallest(a: Float64Array, k: number): number {
  let lo = 0, hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1]!;
    let i = lo, j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}

function Frame({ labels, kind, children }: { labels: BaseLabels; kind: string; children: Children }) {
  return (
    <svg class={`chart chart-${kind}`} viewBox={`0 0 ${W} ${H}`} width="100%" preserveAspectRatio="xMidYMid meet" role="img" aria-label={labels.title} xmlns="http://www.w3.org/2000/svg">
      <title>{labels.title}</title>
      {labels.description ? <desc>{labels.description}</desc> : null}
      {children}
    </svg>
  );
}

interface Linear {
  (v: number): number;
}

function linear(d0: number, d1: number, r0: number, r1: number): Linear {
  const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

function YAxis({ y, values, title, integer }: { y: Linear; values: number[]; title: string; integer?: boolean }) {
  return (
    <g class="axis axis-y" fill="currentColor" font-size="11">
      {values.map((v) => (
        <g key={v}>
          <line x1={M.left} x2={W - M.right} y1={y(v)} y2={y(v)} stroke="currentColor" stroke-opacity="0.15" />
          <text x={M.left - 6} y={y(v)} text-anchor="end" dominant-baseline="middle">{integer ? String(v) : fmt(v)}</text>
        </g>
      ))}
      <text x={14} y={(M.top + H - M.bottom) / 2} text-anchor="middle" transform={`rotate(-90 14 ${(M.top + H - M.bottom) / 2})`} font-size="12">{title}</text>
    </g>
  );
}

function XAxisTitle({ title }: { title: string }) {
  return <text class="axis-title" x={(M.left + W - M.right) / 2} y={H - 8} text-anchor="middle" font-size="12" fill="currentColor">{title}</text>;
}

function XTicks({ x, values }: { x: Linear; values: number[] }) {
  return (
    <g class="axis axis-x" fill="currentColor" font-size="11">
      <line x1={M.left} x2={W - M.right} y1={H - M.bottom} y2={H - M.bottom} stroke="currentColor" stroke-opacity="0.5" />
      {values.map((v) => (
        <text key={v} x={x(v)} y={H - M.bottom + 16} text-anchor="middle">{fmt(v)}</text>
      ))}
    </g>
  );
}

function Legend({ items }: { items: { label: string; colour: string; shape?: 'square' | 'line' | 'dashed' | 'dot' }[] }) {
  let x = M.left;
  return (
    <g class="legend" font-size="12" fill="currentColor">
      {items.map((it) => {
        const x0 = x;
        // Widths of CJK text are about one em per character; Latin about 0.6 em.
        x += 40 + [...it.label].reduce((w, ch) => w + (ch.charCodeAt(0) > 0x2e80 ? 12 : 7), 0);
        return (
          <g key={it.label}>
            {it.shape === 'line' || it.shape === 'dashed' ? (
              <line x1={x0} x2={x0 + 16} y1={14} y2={14} stroke={it.colour} stroke-width="2" stroke-dasharray={it.shape === 'dashed' ? '5 3' : undefined} />
            ) : it.shape === 'dot' ? (
              <circle cx={x0 + 8} cy={14} r={5} fill={it.colour} />
            ) : (
              <rect class="swatch" x={x0 + 2} y={8} width={12} height={12} fill={it.colour} />
            )}
            <text x={x0 + 20} y={14} dominant-baseline="middle">{it.label}</text>
          </g>
        );
      })}
    </g>
  );
}

function domainOf(values: readonly number[], given?: readonly [number, number]): [number, number] {
  if (given) return [given[0], given[1]];
  let lo = 0, hi = 1;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

export interface ScoreByLabelLabels extends BaseLabels {
  /** The expert label axis. */
  xAxis: string;
  /** The judge score axis. */
  yAxis: string;
  /** Name of the threshold line, when a threshold is drawn. */
  threshold?: string;
  /** Caption when only a subset of points is drawn, e.g. (shown, total) => `${shown} of ${total} items shown`. */
  subsample?: (shown: number, total: number) => string;
}

/**
 * Judge score (y) per expert label (x): every item a dot, jittered sideways by a hash of its id
 * (the same picture on every render), over a box from the lower to the upper quartile with the
 * median marked and whiskers to the lowest and highest score. Above maxPoints items a fixed
 * subset (lowest id hashes) is drawn; the boxes always use every item.
 */
export function ScoreByLabelChart(props: { points: readonly ChartPoint[]; groups: readonly ChartGroup[]; labels: ScoreByLabelLabels; threshold?: number | null; domain?: readonly [number, number]; maxPoints?: number }) {
  const { groups, labels } = props;
  const maxPoints = props.maxPoints ?? 2000;
  const index = new Map(groups.map((g, i) => [g.value, i]));
  const inGroups = props.points.filter((p) => index.has(p.gold) && Number.isFinite(p.score));
  const [lo, hi] = domainOf(inGroups.map((p) => p.score), props.domain);
  const y = linear(lo, hi, H - M.bottom, M.top);
  const band = (W - M.left - M.right) / Math.max(1, groups.length);
  const centre = (i: number) => M.left + band * (i + 0.5);
  const shown = fixedSubset(inGroups, maxPoints);
  const scoresBy = groups.map(() => [] as number[]);
  for (const p of inGroups) scoresBy[index.get(p.gold)!]!.push(p.score);
  const t = props.threshold;
  return (
    <Frame labels={labels} kind="score-by-label">
      <YAxis y={y} values={ticks(lo, hi)} title={labels.yAxis} />
      <g class="axis axis-x" fill="currentColor" font-size="12">
        <line x1={M.left} x2={W - M.right} y1={H - M.bottom} y2={H - M.bottom} stroke="currentColor" stroke-opacity="0.5" />
        {groups.map((g, i) => (
          <text key={g.value} x={centre(i)} y={H - M.bottom + 16} text-anchor="middle">{g.label}</text>
        ))}
      </g>
      <XAxisTitle title={labels.xAxis} />
      <g class="boxes">
        {scoresBy.map((scores, i) => {
          if (scores.length === 0) return null;
          const sorted = Float64Array.from(scores).sort();
          const [q1, med, q3] = [0.25, 0.5, 0.75].map((p) => quantileSorted(sorted, p)!);
          const half = band * 0.3;
          const cx = centre(i);
          return (
            <g key={i} stroke="currentColor" stroke-opacity="0.7" fill="none">
              <line x1={cx} x2={cx} y1={y(sorted[0]!)} y2={y(q1!)} />
              <line x1={cx} x2={cx} y1={y(q3!)} y2={y(sorted[sorted.length - 1]!)} />
              <rect x={cx - half} y={y(q3!)} width={2 * half} height={Math.max(0.5, y(q1!) - y(q3!))} />
              <line x1={cx - half} x2={cx + half} y1={y(med!)} y2={y(med!)} stroke-width="2" />
            </g>
          );
        })}
      </g>
      <g class="points">
        {shown.map((p) => {
          const i = index.get(p.gold)!;
          return <circle key={p.id} class="point" cx={centre(i) + (idUnit(p.id) - 0.5) * band * 0.6} cy={y(p.score)} r={2.5} fill={colour(i)} fill-opacity="0.55" />;
        })}
      </g>
      {t !== undefined && t !== null && t >= lo && t <= hi ? (
        <g class="threshold">
          <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} stroke={PALETTE[5]} stroke-width="1.5" stroke-dasharray="6 4" />
          {labels.threshold ? <text x={W - M.right} y={y(t) - 4} text-anchor="end" font-size="11" fill="currentColor">{`${labels.threshold} ${fmt(t)}`}</text> : null}
        </g>
      ) : null}
      {shown.length < inGroups.length && labels.subsample ? (
        <text class="caption" x={M.left} y={18} font-size="11" fill="currentColor">{labels.subsample(shown.length, inGroups.length)}</text>
      ) : null}
    </Frame>
  );
}

export interface ConfusionLabels extends BaseLabels {
  /** What the rows are, e.g. "Expert". */
  rows: string;
  /** What the columns are, e.g. "Judge". */
  columns: string;
}

/** Rows expert pass/fail × columns judge pass/fail, the order ConfusionHeatmap expects for binary criteria. */
export function binaryConfusionMatrix(c: Confusion): number[][] {
  return [[c.tp, c.fn], [c.fp, c.tn]];
}

/** ColorBrewer "Blues" from light to dark; readable for all common colour-vision deficiencies. */
const BLUES = ['#f7fbff', '#deebf7', '#c6dbef', '#9ecae1', '#6baed6', '#4292c6', '#2171b5', '#08519c', '#08306b'];

/**
 * k×k confusion matrix (rows: expert, columns: judge). Each cell shows its count and its share of
 * the row; the shade follows that share, so a rare expert label's row is as readable as a common one.
 */
export function ConfusionHeatmap(props: { matrix: readonly (readonly number[])[]; rowLabels: readonly string[]; colLabels: readonly string[]; labels: ConfusionLabels }) {
  const { matrix, rowLabels, colLabels, labels } = props;
  const rows = matrix.length;
  const cols = Math.max(1, ...matrix.map((r) => r.length));
  const left = 150, top = 64, right = 16, bottom = 16;
  const cw = (W - left - right) / cols;
  const ch = (H - top - bottom) / Math.max(1, rows);
  return (
    <Frame labels={labels} kind="confusion">
      <text x={left + (W - left - right) / 2} y={18} text-anchor="middle" font-size="12" fill="currentColor">{labels.columns}</text>
      <text x={12} y={top - 10} font-size="12" fill="currentColor">{labels.rows}</text>
      {colLabels.map((l, j) => (
        <text key={j} x={left + cw * (j + 0.5)} y={top - 10} text-anchor="middle" font-size="12" fill="currentColor">{l}</text>
      ))}
      {matrix.map((row, i) => {
        const total = row.reduce((s, v) => s + v, 0);
        return (
          <g key={i}>
            <text x={left - 8} y={top + ch * (i + 0.5)} text-anchor="end" dominant-baseline="middle" font-size="12" fill="currentColor">{rowLabels[i] ?? ''}</text>
            {row.map((v, j) => {
              const share = total > 0 ? v / total : 0;
              const shade = BLUES[Math.min(BLUES.length - 1, Math.round(share * (BLUES.length - 1)))]!;
              const ink = share > 0.55 ? '#ffffff' : '#000000';
              const cx = left + cw * (j + 0.5);
              const cy = top + ch * (i + 0.5);
              return (
                <g key={j} class="cell">
                  <title>{`${labels.rows} ${rowLabels[i] ?? ''} · ${labels.columns} ${colLabels[j] ?? ''}: ${v}`}</title>
                  <rect class="cell-rect" x={left + cw * j} y={top + ch * i} width={cw} height={ch} fill={shade} stroke="#ffffff" stroke-width="2" />
                  <text x={cx} y={cy - 6} text-anchor="middle" font-size="16" font-weight="bold" fill={ink}>{String(v)}</text>
                  <text x={cx} y={cy + 14} text-anchor="middle" font-size="11" fill={ink}>{total > 0 ? `${Math.round(share * 100)}%` : '–'}</text>
                </g>
              );
            })}
          </g>
        );
      })}
    </Frame>
  );
}

export interface HistogramLabels extends BaseLabels {
  xAxis: string;
  yAxis: string;
}

/**
 * Histograms of judge scores, one per expert label, side by side in each bin (10–20 bins over
 * the score domain; a score equal to the upper end falls in the last bin). With `relative`, bar
 * heights are shares of their label's items, so a rare label is as visible as a common one.
 */
export function ScoreHistogram(props: { points: readonly ChartPoint[]; groups: readonly ChartGroup[]; labels: HistogramLabels; bins?: number; domain?: readonly [number, number]; relative?: boolean }) {
  const { groups, labels } = props;
  const bins = Math.min(20, Math.max(10, Math.round(props.bins ?? 10)));
  const index = new Map(groups.map((g, i) => [g.value, i]));
  const pts = props.points.filter((p) => index.has(p.gold) && Number.isFinite(p.score));
  const [lo, hi] = domainOf(pts.map((p) => p.score), props.domain);
  const counts = groups.map(() => new Array<number>(bins).fill(0));
  const totals = groups.map(() => 0);
  for (const p of pts) {
    if (p.score < lo || p.score > hi) continue;
    const b = Math.min(bins - 1, Math.floor(((p.score - lo) / (hi - lo || 1)) * bins));
    const gi = index.get(p.gold)!;
    counts[gi]![b]! += 1;
    totals[gi]! += 1;
  }
  const value = (gi: number, b: number) => (props.relative ? (totals[gi] ? counts[gi]![b]! / totals[gi]! : 0) : counts[gi]![b]!);
  let top = 0;
  groups.forEach((_, gi) => {
    for (let b = 0; b < bins; b++) top = Math.max(top, value(gi, b));
  });
  const yMax = top > 0 ? top : 1;
  const yTicks = ticks(0, yMax, 4, !props.relative);
  const y = linear(0, Math.max(yMax, yTicks[yTicks.length - 1]!), H - M.bottom, M.top);
  const x = linear(lo, hi, M.left, W - M.right);
  const binW = (W - M.left - M.right) / bins;
  const barW = (binW * 0.9) / Math.max(1, groups.length);
  return (
    <Frame labels={labels} kind="histogram">
      <Legend items={groups.map((g, i) => ({ label: g.label, colour: colour(i) }))} />
      <YAxis y={y} values={yTicks} title={labels.yAxis} integer={!props.relative} />
      <g class="bars">
        {groups.map((g, gi) =>
          counts[gi]!.map((c, b) => {
            const v = value(gi, b);
            const from = lo + ((hi - lo) * b) / bins;
            const to = lo + ((hi - lo) * (b + 1)) / bins;
            return (
              <rect key={`${gi}-${b}`} class="bar" x={M.left + binW * b + binW * 0.05 + barW * gi} y={y(v)} width={barW} height={Math.max(0, H - M.bottom - y(v))} fill={colour(gi)}>
                <title>{`${g.label} · ${fmt(from)}–${fmt(to)}: ${c}`}</title>
              </rect>
            );
          }),
        )}
      </g>
      <XTicks x={x} values={ticks(lo, hi)} />
      <XAxisTitle title={labels.xAxis} />
    </Frame>
  );
}

export interface KappaThresholdLabels extends BaseLabels {
  xAxis: string;
  yAxis: string;
  /** Legend name of the threshold in use. */
  current: string;
  /** Legend name of the κ-maximising threshold. */
  best: string;
}

/** Cohen's κ against the pass threshold (from kappaCurve), marking the threshold in use and the best one. */
export function KappaThresholdChart(props: { curve: readonly { threshold: number; kappa: number | null }[]; threshold: number; best: { threshold: number; kappa: number } | null; labels: KappaThresholdLabels }) {
  const { curve, threshold, best, labels } = props;
  const xs = curve.map((p) => p.threshold);
  const lo = Math.min(0, ...xs, threshold);
  const hi = Math.max(1, ...xs, threshold);
  const kappas = curve.flatMap((p) => (p.kappa === null ? [] : [p.kappa]));
  const kLo = Math.min(0, ...kappas);
  const x = linear(lo, hi, M.left, W - M.right);
  const y = linear(kLo, 1, H - M.bottom, M.top);
  // Undefined κ breaks the line rather than being drawn as 0.
  const segments: string[] = [];
  let current: string[] = [];
  for (const p of curve) {
    if (p.kappa === null) {
      if (current.length) segments.push(current.join(' '));
      current = [];
    } else current.push(`${x(p.threshold).toFixed(1)},${y(p.kappa).toFixed(1)}`);
  }
  if (current.length) segments.push(current.join(' '));
  return (
    <Frame labels={labels} kind="kappa-threshold">
      <Legend items={[{ label: labels.yAxis, colour: PALETTE[0], shape: 'line' }, { label: labels.current, colour: PALETTE[5], shape: 'dashed' }, ...(best ? [{ label: labels.best, colour: PALETTE[2], shape: 'dot' as const }] : [])]} />
      <YAxis y={y} values={ticks(kLo, 1)} title={labels.yAxis} />
      <g class="curve">
        {segments.map((pts, i) => (
          <polyline key={i} class="kappa-line" points={pts} fill="none" stroke={PALETTE[0]} stroke-width="2" />
        ))}
      </g>
      <line class="current-threshold" x1={x(threshold)} x2={x(threshold)} y1={M.top} y2={H - M.bottom} stroke={PALETTE[5]} stroke-width="1.5" stroke-dasharray="6 4">
        <title>{`${labels.current}: ${fmt(threshold)}`}</title>
      </line>
      {best ? (
        <circle class="best-threshold" cx={x(best.threshold)} cy={y(best.kappa)} r={5} fill={PALETTE[2]} stroke="#ffffff" stroke-width="1.5">
          <title>{`${labels.best}: ${fmt(best.threshold)} (κ = ${fmt(best.kappa)})`}</title>
        </circle>
      ) : null}
      <XTicks x={x} values={ticks(lo, hi)} />
      <XAxisTitle title={labels.xAxis} />
    </Frame>
  );
}

// The building blocks, for charts kept in their own files (charts-context.tsx).
export { colour, domainOf, Frame, H, Legend, linear, M, ticks, W, XAxisTitle, XTicks, YAxis, fmt as tickText };
