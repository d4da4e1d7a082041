import { describe, it, expect } from 'vitest';
import { classifyColumn, planColumns } from '../../server/io/columns.ts';
import { normalizeRecord, normalizeRow } from '../../server/io/normalize.ts';
import type { RowError } from '../../server/io/errors.ts';

describe('classifyColumn', () => {
  it('maps old and new Ragas names, case-insensitively, ignoring BOM and spaces', () => {
    expect(classifyColumn('user_input')).toEqual({ kind: 'sample', field: 'question' });
    expect(classifyColumn('\uFEFFQuestion ')).toEqual({ kind: 'sample', field: 'question' });
    expect(classifyColumn('reference')).toEqual({ kind: 'sample', field: 'ground_truth' });
    expect(classifyColumn('ground_truths')).toEqual({ kind: 'sample', field: 'ground_truths' });
    expect(classifyColumn('Response')).toEqual({ kind: 'response', field: 'answer' });
    expect(classifyColumn('contexts')).toEqual({ kind: 'response', field: 'retrieved_contexts' });
    expect(classifyColumn('sample_id')).toEqual({ kind: 'sample', field: 'id' });
  });

  it('recognizes metrics, parameterized metrics, explicit metrics and labels', () => {
    expect(classifyColumn('Faithfulness')).toEqual({ kind: 'score', metric: 'faithfulness' });
    expect(classifyColumn('factual_correctness(mode=f1)')).toEqual({ kind: 'score', metric: 'factual_correctness(mode=f1)' });
    expect(classifyColumn('my_judge')).toEqual({ kind: 'ignored' });
    expect(classifyColumn('my_judge', { metrics: ['My_Judge'] })).toEqual({ kind: 'score', metric: 'my_judge' });
    expect(classifyColumn('human.Correct')).toEqual({ kind: 'label', criterion: 'correct' });
    expect(classifyColumn('human.')).toEqual({ kind: 'ignored' });
  });

  it('drops the pandas index column silently', () => {
    expect(classifyColumn('')).toEqual({ kind: 'index' });
    expect(classifyColumn('Unnamed: 0')).toEqual({ kind: 'index' });
    expect(planColumns(['', 'question']).ignored).toEqual([]);
  });
});

describe('planColumns', () => {
  it('keeps the first of two columns for the same field and reports the rest as ignored', () => {
    const plan = planColumns(['question', 'user_input', 'foo', 'faithfulness', 'FAITHFULNESS']);
    expect(plan.headerOf.get('question')).toBe('question');
    expect(plan.ignored).toEqual(['user_input', 'foo', 'FAITHFULNESS']);
  });
});

describe('normalizeRow / normalizeRecord', () => {
  const ctx = { line: 7, unit: 'row' as const };

  it('builds a sample, a response, scores, labels and extra from CSV cells', () => {
    const headers = ['question', 'answer', 'contexts', 'ground_truth', 'faithfulness', 'human.correct', 'tags', 'latency_ms', 'foo'];
    const cells = [' Q? ', 'A', "['c1', 'c2']", 'GT', '', 'yes', 'a, b，c、a', '12.5', 'bar'];
    const result = normalizeRow(planColumns(headers), cells, ctx);
    expect(result).toEqual({
      ok: true,
      row: {
        sample: { id: null, question: 'Q?', ground_truth: 'GT', reference_contexts: [], tags: ['a', 'b', 'c'], source: null, notes: null, status: null },
        response: { answer: 'A', retrieved_contexts: ['c1', 'c2'], system: null, metadata: { model: null, latency_ms: 12.5, cost: null } },
        scores: { faithfulness: null },
        labels: { correct: 'yes' },
        extra: { foo: 'bar' },
        ignored: ['foo'],
      },
    });
  });

  it('has no response when the file has no answer-side columns', () => {
    const result = normalizeRecord({ question: 'Q', reference_contexts: ['r'] }, ctx);
    expect(result.ok && result.row.response).toBe(null);
    expect(result.ok && result.row.sample.reference_contexts).toEqual(['r']);
  });

  it('takes the first item of the old ground_truths list, as Ragas did', () => {
    const result = normalizeRecord({ question: 'Q', ground_truths: "['first', 'second']" }, ctx);
    expect(result.ok && result.row.sample.ground_truth).toBe('first');
  });

  it('reads score cells that mean "no score" as null and rejects non-numbers', () => {
    const plan = planColumns(['question', 'faithfulness', 'context_recall', 'answer_correctness', 'bleu_score']);
    const ok = normalizeRow(plan, ['Q', 'nan', 'None', '  ', '1e-3'], ctx);
    expect(ok.ok && ok.row.scores).toEqual({ faithfulness: null, context_recall: null, answer_correctness: null, bleu_score: 0.001 });
    const bad = normalizeRow(plan, ['Q', 'high', '', '', ''], ctx);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors[0]).toMatchObject({ code: 'not_a_number', field: 'faithfulness', line: 7, params: { value: 'high' } });
  });

  it('reports every problem of a row with codes, params and an English message', () => {
    const plan = planColumns(['user_input', 'contexts', 'cost']);
    const result = normalizeRow(plan, ['  ', "['a', 'b", '-1'], ctx);
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    const byCode = Object.fromEntries(errors.map((e: RowError) => [e.code, e]));
    expect(byCode['not_a_list']).toMatchObject({
      field: 'contexts',
      line: 7,
      params: { reason: 'unterminated_string', position: 7 },
    });
    expect(byCode['not_a_list']?.message).toBe(
      `row 7: column 'contexts' is not a list: expected ['…'] or ["…"] (unterminated string (no closing quote) at position 7)`,
    );
    expect(byCode['missing_value']).toMatchObject({ field: 'user_input', params: { present: true } });
    expect(byCode['missing_value']?.message).toBe("row 7: column 'user_input' is empty; every row needs a question");
    expect(byCode['invalid_value']).toMatchObject({ field: 'cost', params: { detail: 'must not be negative' } });
  });

  it('names the accepted keys when a JSON record has no question at all', () => {
    const result = normalizeRecord({ response: 'A' }, { line: 3, unit: 'line' });
    expect(!result.ok && result.errors[0]?.message).toBe("line 3: no question: add 'question' or 'user_input'");
  });

  it('rejects JSON values of the wrong type', () => {
    const result = normalizeRecord({ question: 'Q', source: { a: 1 }, retrieved_contexts: ['a', 2] }, { line: 2, unit: 'line' });
    const codes = result.ok ? [] : result.errors.map((e) => [e.code, e.field]);
    expect(codes).toEqual([
      ['not_a_string', 'source'],
      ['not_a_list', 'retrieved_contexts'],
    ]);
  });
});
