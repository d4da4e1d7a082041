// Public API of goldset's pure statistics: correlations and errors, inter-annotator
// agreement, pass/fail alignment of judges with experts, bootstrap CIs and McNemar.

export type { Label } from './basic.ts';
export { averageRanks, mean, quantileSorted } from './basic.ts';

export { kendallTauB, mae, pearson, rmse, spearman } from './correlation.ts';

export type { KrippendorffResult, MeasurementLevel, ReliabilityUnits } from './krippendorff.ts';
export { alphaFromCounts, krippendorffAlpha } from './krippendorff.ts';

export { CODE_SPAN, exactSum, UnitCounts, unitCountsOf } from './unit-counts.ts';

export type { CohenOptions, KappaWeights, PairwiseKappa } from './agreement.ts';
export { cohenFromTable, cohenKappa, countTable, fleissFromCounts, fleissKappa, pairwiseCohen, percentAgreement, percentAgreementFromCounts } from './agreement.ts';

export type { Confusion, EvalGenAlignment, ThresholdChoice } from './binary.ts';
export {
  accuracy,
  bestThreshold,
  confusionAt,
  confusionFromVerdicts,
  evalGenAlignment,
  f1,
  kappaFromConfusion,
  precision,
  recall,
  rocAuc,
} from './binary.ts';

export type { BootstrapOptions, IndexStat, IndexStream, PairedBootstrapResult, Rng } from './bootstrap.ts';
export { allIndices, bootstrapCI, createRng, indexStream, pairedBootstrap } from './bootstrap.ts';
export type { Uniform } from './multinomial.ts';
export { binomial, binomialPmf, largestFirst, multinomial } from './multinomial.ts';

export type { Clusters } from './cluster-bootstrap.ts';
export { clusterBootstrapCI, clusterCount, clustersOf, drawClusters, pairedClusterBootstrap } from './cluster-bootstrap.ts';

export { confusionMetricOn, gatheredOn, maeOn, pearsonOn, rmseOn } from './resample.ts';
export { kendallOn, rocAucOn, spearmanOn } from './resample-rank.ts';

export type { BinaryOfResample, Cells, CellStat } from './resample-cells.ts';
export {
  bestThresholdCells, binaryCells, cellsOf, confusionCells, countCells, errorCells, fullSample, itemRanks, kappaCells, kendallCells, onIndices, pearsonCells, rocAucCells,
  spearmanCells,
} from './resample-cells.ts';

export type { McNemarResult } from './mcnemar.ts';
export { mcnemarExact, mcnemarFromPairs } from './mcnemar.ts';
