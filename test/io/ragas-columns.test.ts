// Every metric column Ragas 0.2–0.4 writes is read as a score column, with the range its values take
// (test/fixtures/ragas-0.4.3/results-columns.json: the columns of 0.4.3 as measured, the names of
// 0.2.x, the 0.4 collections classes and the multi-turn metrics).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyColumn, planColumns, scoreRange } from '../../server/io/columns.ts';

const measured = JSON.parse(fs.readFileSync(new URL('../fixtures/ragas-0.4.3/results-columns.json', import.meta.url), 'utf8')) as {
  columns: { column: string; range?: [number, number]; values?: [number, number] | string }[];
  older_columns: { column: string }[];
  collections: { names: Record<string, { name: string; mode_param: string | null }> };
  multi_turn_columns_not_for_rag_rows: string[];
};

/** "data_compare_score(mode=rows|columns)" → both columns; "typing.Literal['a', 'b']" modes → name(mode=a), name(mode=b). */
function expand(column: string): string[] {
  const alt = /^(.*\(mode=)([^)]*)\)$/.exec(column);
  return alt ? alt[2]!.split('|').map((m) => `${alt[1]}${m})`) : [column];
}
const collectionColumns = Object.values(measured.collections.names).flatMap(({ name, mode_param }) => [name,
  ...[...(mode_param ?? '').matchAll(/'([a-z]+)'/g)].map((m) => `${name}(mode=${m[1]})`)]);
const everyColumn = [...new Set([
  ...measured.columns.flatMap((c) => expand(c.column)), ...measured.older_columns.map((c) => c.column), ...collectionColumns,
  ...measured.multi_turn_columns_not_for_rag_rows.flatMap(expand),
])].filter((c) => c !== 'clarity'); // SimpleCriteriaScore under a name its user chose: --score-column

describe('Ragas result columns', () => {
  it.each(everyColumn)('%s is a score column', (column) => {
    expect(classifyColumn(column)).toEqual({ kind: 'score', metric: column });
  });

  it('takes a user-named column (a SimpleCriteriaScore, say) only when it is named as a score column', () => {
    expect(classifyColumn('clarity')).toEqual({ kind: 'ignored' });
    expect(classifyColumn('clarity', { metrics: ['clarity'] })).toEqual({ kind: 'score', metric: 'clarity' });
  });

  it('checks each measured column against the range Ragas gives it (cosine metrics: −1 to 1, Ragas does not clip them)', () => {
    const cosine = new Set(['answer_correctness', 'answer_relevancy', 'semantic_similarity', 'answer_similarity']);
    for (const c of measured.columns) {
      for (const column of expand(c.column)) {
        const range = scoreRange(column);
        if (c.values === 'integer') expect(range, column).toBeNull();
        else if (Array.isArray(c.values)) expect(range, column).toEqual({ min: 0, max: 1, values: [0, 1] });
        else if (cosine.has(column)) expect(range, column).toEqual({ min: -1, max: 1 });
        else expect(range, column).toEqual({ min: c.range![0], max: c.range![1] });
      }
    }
  });

  it('does not range-check a column the user named, even if it shares a metric name', () => {
    expect(planColumns(['faithfulness']).columns[0]!.range).toEqual({ min: 0, max: 1 });
    expect(planColumns(['faithfulness'], { metrics: ['faithfulness'] }).columns[0]!.range).toBeUndefined();
  });
});
