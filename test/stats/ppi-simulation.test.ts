// Simulation: a judge that errs in a biased way (too lenient), 500 seeded datasets per kind. The
// corrected 95 % interval must cover the true mean (the experts' mean over every item) at least
// 93 % of the time; the judge-only interval, which assumes the judge is right, far less; and the
// corrected interval must be narrower than the experts-only one, since the judge is informative.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../server/stats/bootstrap.ts';
import { classicalMean, ppiMean } from '../../server/stats/ppi.ts';

const DATASETS = 500;
const ITEMS = 2000;
const LABELLED = 200;

interface Outcome { corrected: number; judge: number; gold: number; widthCorrected: number; widthGold: number }

/** Draws `k` of `m` indices uniformly without replacement (partial Fisher–Yates). */
function sampleIndices(m: number, k: number, rng: () => number): Uint8Array {
  const order = Uint32Array.from({ length: m }, (_, i) => i);
  const chosen = new Uint8Array(m);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rng() * (m - i));
    [order[i], order[j]] = [order[j]!, order[i]!];
    chosen[order[i]!] = 1;
  }
  return chosen;
}

function simulate(makeItem: (rng: () => number) => [number, number], seed: number): Outcome {
  const tally: Outcome = { corrected: 0, judge: 0, gold: 0, widthCorrected: 0, widthGold: 0 };
  for (let d = 0; d < DATASETS; d++) {
    const rng = createRng(seed + d);
    const gold = new Float64Array(ITEMS);
    const pred = new Float64Array(ITEMS);
    for (let i = 0; i < ITEMS; i++) [gold[i], pred[i]] = makeItem(rng);
    const truth = gold.reduce((s, v) => s + v, 0) / ITEMS;
    const chosen = sampleIndices(ITEMS, LABELLED, rng);
    const y: number[] = [], yhat: number[] = [], yhatU: number[] = [];
    for (let i = 0; i < ITEMS; i++) {
      if (chosen[i]) { y.push(gold[i]!); yhat.push(pred[i]!); } else yhatU.push(pred[i]!);
    }
    const corrected = ppiMean(y, yhat, yhatU);
    const judge = classicalMean(pred);
    const experts = classicalMean(y);
    const covers = (ci: [number, number] | null) => (ci && ci[0] <= truth && truth <= ci[1] ? 1 : 0);
    tally.corrected += covers(corrected.ci95);
    tally.judge += covers(judge.ci95);
    tally.gold += covers(experts.ci95);
    tally.widthCorrected += corrected.ci95![1] - corrected.ci95![0];
    tally.widthGold += experts.ci95![1] - experts.ci95![0];
  }
  return { corrected: tally.corrected / DATASETS, judge: tally.judge / DATASETS, gold: tally.gold / DATASETS,
    widthCorrected: tally.widthCorrected / DATASETS, widthGold: tally.widthGold / DATASETS };
}

describe('PPI++ under a biased judge (500 seeded datasets of 2,000 items, 200 labelled)', () => {
  it('binary: a lenient judge passes 45 % of what experts fail', () => {
    const out = simulate((rng) => {
      const pass = rng() < 0.7 ? 1 : 0;
      const judged = pass ? (rng() < 0.95 ? 1 : 0) : (rng() < 0.45 ? 1 : 0);
      return [pass, judged];
    }, 1000);
    expect(out.corrected).toBeGreaterThanOrEqual(0.93);
    expect(out.judge).toBeLessThan(0.2);
    expect(out.widthCorrected).toBeLessThan(out.widthGold);
  });

  it('numeric: a judge 0.15 too high on average, more so on weak answers', () => {
    const out = simulate((rng) => {
      const g = rng();
      const noise = (rng() - 0.5) * 0.2;
      return [g, Math.min(1, Math.max(0, g + 0.25 - 0.2 * g + noise))];
    }, 5000);
    expect(out.corrected).toBeGreaterThanOrEqual(0.93);
    expect(out.judge).toBeLessThan(0.2);
    expect(out.widthCorrected).toBeLessThan(out.widthGold * 0.8);
  });
});
