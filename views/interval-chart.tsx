// The true score's picture: for each group of responses (all systems, or one system) three
// estimates of the mean on one horizontal axis — judge only, experts only, corrected — each a dot
// with its 95 % interval. SVG rendered on the server like views/charts.tsx: presentation
// attributes only (the CSP allows no style attributes), Okabe–Ito colours, every word passed in
// translated, text in currentColor.
import { PALETTE } from './charts.tsx';

export interface IntervalMark { estimate: number | null; ci95: [number, number] | null; n: number }

export interface IntervalGroup { label: string; judge: IntervalMark; gold: IntervalMark; corrected: IntervalMark }

export interface IntervalLabels { title: string; description: string; judge: string; gold: string; corrected: string; none: string }

const W = 640;
const LEFT = 150;
const RIGHT = 24;
const TOP = 40;
const ROW = 22;
const GAP = 14;
const AXIS = 36;

const SERIES = [
  { key: 'judge', colour: PALETTE[1], dash: '5 3' },
  { key: 'gold', colour: PALETTE[0], dash: undefined },
  { key: 'corrected', colour: PALETTE[2], dash: undefined },
] as const;

function ticksOf(lo: number, hi: number): number[] {
  const span = hi - lo;
  const step = [0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5].find((s) => span / s <= 6) ?? span / 5;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + 1e-9; v += step) out.push(Math.round(v / step) * step);
  return out;
}

const fmt = (v: number) => String(Math.round(v * 1000) / 1000);

/** `domain` is the criterion's scale (0..1, or the ordinal scale); marks outside it widen it. */
export function IntervalsChart({ groups, domain, labels }: { groups: readonly IntervalGroup[]; domain: [number, number]; labels: IntervalLabels }) {
  let [lo, hi] = domain;
  for (const g of groups) for (const s of SERIES) {
    const m = g[s.key];
    if (m.ci95) { lo = Math.min(lo, m.ci95[0]); hi = Math.max(hi, m.ci95[1]); }
  }
  const H = TOP + groups.length * (3 * ROW + GAP) + AXIS;
  const x = (v: number) => LEFT + ((v - lo) / (hi - lo || 1)) * (W - LEFT - RIGHT);
  const bottom = H - AXIS + 4;
  let legendX = LEFT;
  return (
    <svg class="chart chart-intervals" viewBox={`0 0 ${W} ${H}`} width="100%" preserveAspectRatio="xMidYMid meet" role="img" aria-label={labels.title} xmlns="http://www.w3.org/2000/svg">
      <title>{labels.title}</title>
      <desc>{labels.description}</desc>
      <g class="legend" font-size="12" fill="currentColor">
        {SERIES.map((s) => {
          const x0 = legendX;
          const text = labels[s.key];
          legendX += 44 + [...text].reduce((w, ch) => w + (ch.charCodeAt(0) > 0x2e80 ? 12 : 7), 0);
          return (
            <g key={s.key}>
              <line x1={x0} x2={x0 + 18} y1={14} y2={14} stroke={s.colour} stroke-width="2" stroke-dasharray={s.dash} />
              <circle cx={x0 + 9} cy={14} r={4} fill={s.colour} />
              <text x={x0 + 24} y={14} dominant-baseline="middle">{text}</text>
            </g>
          );
        })}
      </g>
      <g class="axis" fill="currentColor" font-size="11">
        {ticksOf(lo, hi).map((v) => (
          <g key={v}>
            <line x1={x(v)} x2={x(v)} y1={TOP - 6} y2={bottom} stroke="currentColor" stroke-opacity="0.15" />
            <text x={x(v)} y={bottom + 16} text-anchor="middle">{fmt(v)}</text>
          </g>
        ))}
        <line x1={LEFT} x2={W - RIGHT} y1={bottom} y2={bottom} stroke="currentColor" stroke-opacity="0.5" />
      </g>
      {groups.map((g, gi) => {
        const top = TOP + gi * (3 * ROW + GAP);
        return (
          <g key={gi} class="group">
            <text x={8} y={top + 1.5 * ROW} dominant-baseline="middle" font-size="12" font-weight="bold" fill="currentColor">{g.label}</text>
            {SERIES.map((s, si) => {
              const m = g[s.key];
              const cy = top + si * ROW + ROW / 2;
              const name = labels[s.key];
              if (m.estimate === null) {
                return <text key={s.key} x={LEFT} y={cy} dominant-baseline="middle" font-size="11" fill="currentColor" fill-opacity="0.7">{`${name}: ${labels.none}`}</text>;
              }
              const tip = `${name}: ${fmt(m.estimate)}${m.ci95 ? ` [${fmt(m.ci95[0])}, ${fmt(m.ci95[1])}]` : ''} · n = ${m.n}`;
              return (
                <g key={s.key} class={`mark mark-${s.key}`}>
                  <title>{tip}</title>
                  {m.ci95 ? <>
                    <line x1={x(m.ci95[0])} x2={x(m.ci95[1])} y1={cy} y2={cy} stroke={s.colour} stroke-width="3" stroke-dasharray={s.dash} stroke-linecap="round" />
                    <line x1={x(m.ci95[0])} x2={x(m.ci95[0])} y1={cy - 5} y2={cy + 5} stroke={s.colour} stroke-width="2" />
                    <line x1={x(m.ci95[1])} x2={x(m.ci95[1])} y1={cy - 5} y2={cy + 5} stroke={s.colour} stroke-width="2" />
                  </> : null}
                  <circle cx={x(m.estimate)} cy={cy} r={5} fill={s.colour} stroke="#ffffff" stroke-width="1.5" />
                </g>
              );
            })}
          </g>
        );
      })}
    </svg>
  );
}
