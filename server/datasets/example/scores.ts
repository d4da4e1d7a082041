// The example's judge run as Ragas 0.4.3 writes it: EvaluationResult.to_pandas().to_csv() of
// answer_correctness, faithfulness and context_precision, lists as Python list literals (what pandas
// writes for a list cell), with the system column kept beside Ragas's own columns.
//
// Each score is one Ragas could have produced on the item, from its own arithmetic:
//   context_precision   Σ precision@k·v_k / (Σ v_k + 1e-10): 0.9999999999 for the relevant context first,
//                       0.49999999995 second, 0 when it was not retrieved
//   faithfulness        supported statements / statements of the answer
//   answer_correctness  0.75·F1(TP, FP, FN) + 0.25·cosine(answer, ground truth)
// and a few judge errors (a wrong answer scored as supported and correct, a right one marked down)
// for the calibration report and the audit queue to show.
import { stringify } from 'csv-stringify/sync';
import type { ExampleResponse } from '../example.ts';

/** Python's repr() of a list of strings, as pandas writes a list cell. */
export function pyList(items: string[]): string {
  const one = (s: string) => {
    const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
    const body = s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  };
  return `[${items.map(one).join(', ')}]`;
}

/** Responses (in file order) the judge gets wrong: fooled by a wrong answer, or too strict with a right one. */
const FOOLED = new Set([9, 21, 32]);
const TOO_STRICT = new Set([14, 26]);

// Statement counts (TP, FP, FN) and cosines, cycled through the items so the scores vary as real ones do.
const RIGHT: [number, number, number][] = [[3, 0, 0], [2, 0, 1], [3, 1, 0], [2, 0, 0], [3, 0, 1], [4, 1, 0]];
const WRONG: [number, number, number][] = [[0, 2, 2], [1, 2, 2], [0, 1, 3], [1, 3, 2]];
const COS_RIGHT = [0.9712, 0.9538, 0.9371, 0.9644, 0.9483];
const COS_WRONG = [0.8612, 0.8827, 0.8419, 0.8973];

const f1 = ([tp, fp, fn]: [number, number, number]) => (tp === 0 ? 0 : tp / (tp + 0.5 * (fp + fn)));

export function ragasResults(responses: ExampleResponse[]): string {
  const rows = responses.map((r, k) => {
    const rank = r.contexts.indexOf(r.item.ctx);
    const contextPrecision = rank === 0 ? 0.9999999999 : rank === 1 ? 0.49999999995 : 0;
    const judgedRight = FOOLED.has(k) ? true : TOO_STRICT.has(k) ? false : r.correct;
    const counts = judgedRight ? RIGHT[k % RIGHT.length]! : WRONG[k % WRONG.length]!;
    const cos = judgedRight ? COS_RIGHT[k % COS_RIGHT.length]! : COS_WRONG[k % COS_WRONG.length]!;
    const answerCorrectness = 0.75 * f1(counts) + 0.25 * cos;
    // Statements of the answer supported by the retrieved contexts: all of a right answer's when its context was found.
    const statements = 2 + (k % 3);
    const supported = judgedRight ? (rank >= 0 ? statements : 1) : FOOLED.has(k) ? statements : 0;
    return [r.item.q, pyList(r.contexts), r.answer, r.item.gt, answerCorrectness, supported / statements, contextPrecision, r.system];
  });
  return stringify([['user_input', 'retrieved_contexts', 'response', 'reference', 'answer_correctness', 'faithfulness', 'context_precision', 'system'], ...rows]);
}
