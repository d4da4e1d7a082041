import { describe, it, expect } from 'vitest';
import { jsx, renderHtml } from '../../views/jsx-runtime.ts';
import { binaryConfusionMatrix, ConfusionHeatmap, fixedSubset, idUnit, KappaThresholdChart, ScoreByLabelChart, ScoreHistogram } from '../../views/charts.tsx';
import type { ChartPoint } from '../../views/charts.tsx';
import { kappaCurve } from '../../server/calibration/report.ts';

const groups = [{ value: '1', label: 'Pass <b>' }, { value: '0', label: '不通过' }];
const points: ChartPoint[] = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, score: ((i * 37) % 100) / 100, gold: i % 3 ? '1' : '0' }));
const count = (html: string, needle: string) => html.split(needle).length - 1;

/** Safe SVG: one accessible <svg>, no script, no style attributes, no raw markup from labels. */
function expectSafeSvg(html: string, title: string) {
  expect(html.startsWith('<svg')).toBe(true);
  expect(html).toContain('role="img"');
  expect(html).toContain(`aria-label="${title}"`);
  expect(html).toContain(`<title>${title}</title>`);
  expect(html).toContain('viewBox="0 0 640 360"');
  expect(html).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i);
  expect(html).not.toContain('<b>');
}

describe('ScoreByLabelChart', () => {
  const labels = { title: 'Judge score by expert label', xAxis: 'Expert', yAxis: 'Judge score', threshold: 'Threshold' };

  it('draws one jittered dot per item, the same on every render', () => {
    const html = renderHtml(jsx(ScoreByLabelChart, { points, groups, labels, threshold: 0.5 }));
    expectSafeSvg(html, labels.title);
    expect(count(html, 'class="point"')).toBe(40);
    expect(html).toContain('Pass &lt;b>');
    expect(html).toContain('不通过');
    expect(html).toContain('Threshold 0.5');
    expect(renderHtml(jsx(ScoreByLabelChart, { points, groups, labels, threshold: 0.5 }))).toBe(html);
  });

  it('ignores items whose label is not shown, and draws a fixed subset above maxPoints', () => {
    const extra = [...points, { id: 99, score: 0.5, gold: 'other' }];
    const html = renderHtml(jsx(ScoreByLabelChart, { points: extra, groups, labels: { ...labels, subsample: (s: number, t: number) => `${s} of ${t}` }, maxPoints: 15 }));
    expect(count(html, 'class="point"')).toBe(15);
    expect(html).toContain('15 of 40');
  });

  it('escapes a hostile title', () => {
    const html = renderHtml(jsx(ScoreByLabelChart, { points, groups, labels: { ...labels, title: '"><script>alert(1)</script>' } }));
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script');
  });
});

describe('ConfusionHeatmap', () => {
  const labels = { title: 'Confusion', rows: 'Expert', columns: 'Judge' };

  it('draws a 2×2 binary matrix with counts and row shares', () => {
    const matrix = binaryConfusionMatrix({ tp: 6, fp: 2, tn: 8, fn: 4 });
    expect(matrix).toEqual([[6, 4], [2, 8]]);
    const html = renderHtml(jsx(ConfusionHeatmap, { matrix, rowLabels: ['Pass <b>', 'Fail'], colLabels: ['通过', '不通过'], labels }));
    expectSafeSvg(html, 'Confusion');
    expect(count(html, 'class="cell-rect"')).toBe(4);
    expect(html).toContain('>60%<');
    expect(html).toContain('>80%<');
  });

  it('draws k×k cells', () => {
    const html = renderHtml(jsx(ConfusionHeatmap, { matrix: [[1, 2, 0], [0, 3, 1], [2, 0, 0]], rowLabels: ['a', 'b', 'c'], colLabels: ['a', 'b', 'c'], labels }));
    expect(count(html, 'class="cell-rect"')).toBe(9);
  });
});

describe('ScoreHistogram', () => {
  const labels = { title: 'Scores by expert label', xAxis: 'Judge score', yAxis: 'Items' };

  it('draws one bar per bin and label, counting every item once', () => {
    const html = renderHtml(jsx(ScoreHistogram, { points, groups, labels, bins: 12 }));
    expectSafeSvg(html, labels.title);
    expect(count(html, 'class="bar"')).toBe(24);
    const total = [...html.matchAll(/: (\d+)<\/title>/g)].reduce((s, m) => s + Number(m[1]), 0);
    expect(total).toBe(40);
    expect(count(html, 'class="swatch"')).toBe(2);
  });

  it('keeps the number of bins between 10 and 20', () => {
    expect(count(renderHtml(jsx(ScoreHistogram, { points, groups, labels, bins: 4 })), 'class="bar"')).toBe(20);
    expect(count(renderHtml(jsx(ScoreHistogram, { points, groups, labels, bins: 50 })), 'class="bar"')).toBe(40);
  });
});

describe('KappaThresholdChart', () => {
  const labels = { title: 'κ against threshold', xAxis: 'Threshold', yAxis: 'κ', current: 'In use', best: 'Best' };
  const scores = points.map((p) => p.score), pass = points.map((p) => p.gold === '1');

  it('draws the curve with markers at the threshold in use and the best one', () => {
    const html = renderHtml(jsx(KappaThresholdChart, { curve: kappaCurve(scores, pass, 51), threshold: 0.5, best: { threshold: 0.3, kappa: 0.2 }, labels }));
    expectSafeSvg(html, labels.title);
    expect(count(html, 'class="kappa-line"')).toBe(1);
    expect(count(html, 'class="current-threshold"')).toBe(1);
    expect(count(html, 'class="best-threshold"')).toBe(1);
  });

  it('breaks the line where kappa is undefined instead of drawing zero', () => {
    const curve = [0, 0.25, 0.5, 0.75, 1].map((t, i) => ({ threshold: t, kappa: i === 2 ? null : 0.1 * i }));
    const html = renderHtml(jsx(KappaThresholdChart, { curve, threshold: 0.5, best: null, labels }));
    expect(count(html, 'class="kappa-line"')).toBe(2);
    expect(html).not.toContain('class="best-threshold"');
  });
});

describe('fixedSubset', () => {
  it('is the max items whose ids hash lowest, in hash order, whatever order they come in', () => {
    for (const [n, max] of [[5000, 2000], [3001, 3000], [20000, 1], [10, 20]] as const) {
      const items = Array.from({ length: n }, (_, i) => ({ id: (i * 7919) % 1_000_003 + 1 }));
      const want = [...items].sort((a, b) => idUnit(a.id) - idUnit(b.id) || a.id - b.id).slice(0, max);
      expect(fixedSubset(items, max).map((p) => p.id)).toEqual(n <= max ? items.map((p) => p.id) : want.map((p) => p.id));
      expect(fixedSubset([...items].reverse(), max).map((p) => p.id).sort()).toEqual(fixedSubset(items, max).map((p) => p.id).sort());
    }
  });
});
