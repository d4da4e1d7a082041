// Pictures of the per-context calibration, in the style of charts.tsx (server-rendered SVG, Okabe–Ito
// colours, text in currentColor, every word passed in translated): the experts' and the judge's
// relevance rate by rank side by side, agreement by rank, and the item-level scatter of the experts'
// context precision against the judge's score.
import { colour, Frame, H, Legend, linear, M, ticks, tickText, W, XAxisTitle, XTicks, YAxis } from './charts.tsx';
import { fixedSubset, idUnit, PALETTE } from './charts.tsx';

export interface RankBar { rank: number; label: string; n: number; gold: number | null; judge: number | null; kappa: number | null; accuracy: number | null }

export interface RankChartLabels { title: string; description?: string; xAxis: string; yAxis: string; gold: string; judge: string }

/** Relevance rate per rank: the experts' bar beside the judge's, with the rank's n under it. */
export function RelevanceByRankChart({ rows, labels }: { rows: readonly RankBar[]; labels: RankChartLabels }) {
  const y = linear(0, 1, H - M.bottom, M.top);
  const band = (W - M.left - M.right) / Math.max(1, rows.length);
  const bar = band * 0.32;
  const series = [{ key: 'gold' as const, label: labels.gold }, { key: 'judge' as const, label: labels.judge }];
  return (
    <Frame labels={labels} kind="relevance-by-rank">
      <Legend items={series.map((s, i) => ({ label: s.label, colour: colour(i) }))} />
      <YAxis y={y} values={ticks(0, 1)} title={labels.yAxis} />
      <g class="bars">
        {rows.map((r, k) => series.map((s, i) => {
          const v = r[s.key];
          if (v === null) return null;
          const x = M.left + band * k + band * 0.16 + bar * i;
          return (
            <rect key={`${k}-${s.key}`} class={`bar bar-${s.key}`} x={x} y={y(v)} width={bar} height={Math.max(0, H - M.bottom - y(v))} fill={colour(i)}>
              <title>{`${r.label} · ${s.label}: ${Math.round(v * 100)}% (n = ${r.n})`}</title>
            </rect>
          );
        }))}
      </g>
      <g class="axis axis-x" fill="currentColor" font-size="12">
        <line x1={M.left} x2={W - M.right} y1={H - M.bottom} y2={H - M.bottom} stroke="currentColor" stroke-opacity="0.5" />
        {rows.map((r, k) => (
          <text key={r.rank} x={M.left + band * (k + 0.5)} y={H - M.bottom + 16} text-anchor="middle">{`${r.label} (n=${r.n})`}</text>
        ))}
      </g>
      <XAxisTitle title={labels.xAxis} />
    </Frame>
  );
}

export interface AgreementChartLabels { title: string; description?: string; xAxis: string; yAxis: string; kappa: string; accuracy: string }

/** κ and accuracy per rank as lines with points; an undefined κ leaves a gap, never a 0. */
export function AgreementByRankChart({ rows, labels }: { rows: readonly RankBar[]; labels: AgreementChartLabels }) {
  const kappas = rows.flatMap((r) => (r.kappa === null ? [] : [r.kappa]));
  const lo = Math.min(0, ...kappas);
  const y = linear(lo, 1, H - M.bottom, M.top);
  const band = (W - M.left - M.right) / Math.max(1, rows.length);
  const cx = (k: number) => M.left + band * (k + 0.5);
  const series = [{ key: 'kappa' as const, label: labels.kappa, colour: PALETTE[0] }, { key: 'accuracy' as const, label: labels.accuracy, colour: PALETTE[5] }];
  return (
    <Frame labels={labels} kind="agreement-by-rank">
      <Legend items={series.map((s) => ({ label: s.label, colour: s.colour, shape: 'line' as const }))} />
      <YAxis y={y} values={ticks(lo, 1)} title={labels.yAxis} />
      {series.map((s) => {
        const runs: string[][] = [[]];
        rows.forEach((r, k) => {
          const v = r[s.key];
          if (v === null) runs.push([]);
          else runs[runs.length - 1]!.push(`${cx(k).toFixed(1)},${y(v).toFixed(1)}`);
        });
        return (
          <g key={s.key} class={`series series-${s.key}`}>
            {runs.filter((p) => p.length > 1).map((p, i) => <polyline key={i} points={p.join(' ')} fill="none" stroke={s.colour} stroke-width="2" />)}
            {rows.map((r, k) => (r[s.key] === null ? null : (
              <circle key={k} cx={cx(k)} cy={y(r[s.key]!)} r={4} fill={s.colour}><title>{`${r.label} · ${s.label}: ${tickText(r[s.key]!)} (n = ${r.n})`}</title></circle>
            )))}
          </g>
        );
      })}
      <g class="axis axis-x" fill="currentColor" font-size="12">
        <line x1={M.left} x2={W - M.right} y1={H - M.bottom} y2={H - M.bottom} stroke="currentColor" stroke-opacity="0.5" />
        {rows.map((r, k) => <text key={r.rank} x={cx(k)} y={H - M.bottom + 16} text-anchor="middle">{r.label}</text>)}
      </g>
      <XAxisTitle title={labels.xAxis} />
    </Frame>
  );
}

export interface ItemScatterLabels { title: string; description?: string; xAxis: string; yAxis: string; diagonal: string; subsample?: (shown: number, total: number) => string }

/**
 * One dot per response: the experts' context precision (x) against the judge's score (y), on 0..1
 * with the diagonal where they agree. Points on the same spot are common (a few contexts give few
 * values), so each is nudged by a hash of its id; above maxPoints a fixed subset is drawn.
 */
export function ItemScatterChart({ points, labels, maxPoints = 2000 }: { points: readonly { id: number; gold: number; judge: number }[]; labels: ItemScatterLabels; maxPoints?: number }) {
  const x = linear(0, 1, M.left, W - M.right);
  const y = linear(0, 1, H - M.bottom, M.top);
  const shown = fixedSubset(points, maxPoints);
  const jitter = (id: number, salt: number) => (idUnit(id * 2 + salt) - 0.5) * 8;
  return (
    <Frame labels={labels} kind="item-scatter">
      <Legend items={[{ label: labels.diagonal, colour: PALETTE[5], shape: 'dashed' }]} />
      <YAxis y={y} values={ticks(0, 1)} title={labels.yAxis} />
      <line class="diagonal" x1={x(0)} y1={y(0)} x2={x(1)} y2={y(1)} stroke={PALETTE[5]} stroke-width="1.5" stroke-dasharray="6 4" />
      <g class="points">
        {shown.map((p) => (
          <circle key={p.id} class="point" cx={x(p.gold) + jitter(p.id, 0)} cy={y(p.judge) + jitter(p.id, 1)} r={3} fill={PALETTE[0]} fill-opacity="0.55">
            <title>{`#${p.id}: ${tickText(p.gold)} → ${tickText(p.judge)}`}</title>
          </circle>
        ))}
      </g>
      {shown.length < points.length && labels.subsample ? (
        <text class="caption" x={M.left} y={30} font-size="11" fill="currentColor">{labels.subsample(shown.length, points.length)}</text>
      ) : null}
      <XTicks x={x} values={ticks(0, 1)} />
      <XAxisTitle title={labels.xAxis} />
    </Frame>
  );
}
