// Which criterion–metric pairs make sense to calibrate: a metric judges one thing (the answer against
// the ground truth, the answer against the contexts, the answer against the question, or the
// retrieved contexts), a criterion names what experts judged. A pair is suggested when the names
// point to the same thing or the pair was calibrated before, and called unusual when the metric
// judges something the criterion's name does not (e.g. `correct` against context_precision).
import type { Criterion } from '../criteria/queries.ts';
import type { RunRow } from '../judge/run-queries.ts';

export type Judges = 'correctness' | 'faithfulness' | 'relevancy' | 'contexts' | 'other';

const METRIC_JUDGES: Record<string, Judges> = {
  answer_correctness: 'correctness', exact_match: 'correctness', string_presence: 'correctness', levenshtein_similarity: 'correctness',
  bleu: 'correctness', rouge_l: 'correctness', 'factual_correctness(mode=f1)': 'correctness', semantic_similarity: 'correctness',
  faithfulness: 'faithfulness',
  answer_relevancy: 'relevancy',
  context_precision: 'contexts', context_precision_without_reference: 'contexts', context_recall: 'contexts',
  non_llm_context_precision: 'contexts', non_llm_context_recall: 'contexts', llm_context_precision_with_reference: 'contexts',
};

// Words in criterion names (English and Chinese) for what they judge.
const NAME_HINTS: [Judges, RegExp][] = [
  ['correctness', /correct|accura|right|wrong|true|complete|factual|正确|准确|对错|完整|事实/i],
  ['faithfulness', /faithful|ground|halluc|support|cite|忠实|幻觉|依据|有据|支持/i],
  ['relevancy', /relevan|on.?topic|answer.?the|helpful|相关|切题|有用/i],
];

export function metricJudges(metricKey: string): Judges {
  return METRIC_JUDGES[metricKey] ?? 'other';
}

export function criterionJudges(c: Pick<Criterion, 'name' | 'guidelines'>): Judges | null {
  for (const [what, re] of NAME_HINTS) if (re.test(c.name)) return what;
  for (const [what, re] of NAME_HINTS) if (re.test(c.guidelines)) return what;
  return null;
}

export type PairReason = 'calibrated_before' | 'names_match' | 'same_scale';
export type PairWarning = 'judges_contexts' | 'judges_other_thing';

export interface PairSuggestion { criterion: Criterion; run: RunRow; score: number; reasons: PairReason[]; warning: PairWarning | null }

/** Whether a pair looks wrong, and why: a context metric against an answer-level criterion, or names that point elsewhere. */
export function pairWarning(criterion: Criterion, metricKey: string): PairWarning | null {
  const metric = metricJudges(metricKey);
  if (metric === 'contexts' && criterion.target === 'response') return 'judges_contexts';
  const named = criterionJudges(criterion);
  return named !== null && metric !== 'other' && named !== metric ? 'judges_other_thing' : null;
}

/**
 * Response-level criteria × the newest run of each metric, best first: calibrated before, names that
 * agree, a binary or 0–1 criterion (the judge's scores are 0–1); unusual pairs last.
 */
export function suggestPairs(criteria: Criterion[], runs: RunRow[], previous: ReadonlySet<string>): PairSuggestion[] {
  const newest = new Map<string, RunRow>();
  for (const r of runs) if (!newest.has(r.metric_key) && r.status !== 'failed') newest.set(r.metric_key, r);
  const out: PairSuggestion[] = [];
  for (const criterion of criteria.filter((c) => c.target === 'response')) {
    for (const run of newest.values()) {
      const reasons: PairReason[] = [];
      if (previous.has(`${criterion.id}:${run.metric_key}`)) reasons.push('calibrated_before');
      const named = criterionJudges(criterion);
      if (named !== null && named === metricJudges(run.metric_key)) reasons.push('names_match');
      if (criterion.kind === 'binary' || criterion.kind === 'numeric') reasons.push('same_scale');
      const warning = pairWarning(criterion, run.metric_key);
      // A pair chosen and recorded before outweighs what the names suggest; a context metric against an answer criterion never fits.
      const score = (reasons.includes('calibrated_before') ? 8 : 0) + (reasons.includes('names_match') ? 2 : 0) + (reasons.includes('same_scale') ? 1 : 0)
        - (warning === 'judges_contexts' ? 20 : warning ? 3 : 0);
      out.push({ criterion, run, score, reasons, warning });
    }
  }
  // Ties: the newer run first.
  return out.sort((a, b) => b.score - a.score || b.run.id - a.run.id);
}
