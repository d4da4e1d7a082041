// The Ragas loop closes: goldset exports responses → Ragas evaluates them and writes results without
// `system` or the experts' labels (pandas CSV, JSONL, one-line JSON array) → importing the results
// into a run finds the labelled responses by their question, answer and contexts, creates nothing,
// and the calibration report counts every labelled item.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers.ts';
import { writeExport } from '../../server/importexport/export.ts';

let app: TestApp;
let expert: number;

beforeAll(async () => {
  app = await startTestApp();
  expert = app.ctx.users.queries.insert({ email: 'li@example.com', name: '', role: 'expert', password_hash: null });
});
afterAll(async () => { await app.close(); });

const counts = (datasetId: number) => app.ctx.db.prepare(`SELECT (SELECT count(*) FROM sample WHERE dataset_id = @ds) AS samples,
  (SELECT count(*) FROM response WHERE dataset_id = @ds) AS responses`).get({ ds: datasetId }) as { samples: number; responses: number };

async function importText(datasetId: number, name: string, text: string, runName?: string, more: { annotatorId?: number; scoreColumns?: string[] } = {}) {
  const file = path.join(app.dir, name);
  fs.writeFileSync(file, text);
  return app.ctx.imports.importFile(null, datasetId, file, { filename: name, ...(runName ? { runName } : {}), ...more });
}

/** Python's str() of a list of str, as pandas writes list cells to CSV. */
function pyList(items: string[]): string {
  return `[${items.map((s) => (s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`)).join(', ')}]`;
}
const csvCell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
/** pandas to_json: non-ASCII as \uXXXX. */
const asciiJson = (v: unknown) => JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

describe('round trip through Ragas results without system', () => {
  it('attaches every layout of results to the labelled responses; the report counts every labelled item and nothing is created', async () => {
    const datasetId = app.ctx.datasets.create(null, { name: 'Loop', description: '', language: 'zh', domain: '' }).id;
    const rows = Array.from({ length: 30 }, (_, i) => ({
      user_input: `问题 ${i}：张伟是哪个部门的？`, response: i % 3 ? `张伟是教研部的（${i}）` : `张伟是人事部的（${i}）`, reference: '张伟是教研部的成员',
      retrieved_contexts: ['张伟 教研部工程师', `段落 ${i}，含"引号"和 'apostrophe'`], system: i % 2 ? 'rag-v1' : 'rag-v2', 'human.correct': i % 3 ? 'yes' : 'no',
    }));
    expect((await importText(datasetId, 'labels.jsonl', rows.map((r) => JSON.stringify(r)).join('\n'), undefined, { annotatorId: expert })).ok).toBe(true);
    const before = counts(datasetId);

    // What goldset exports for Ragas, and what Ragas keeps of it in its results (system and human.* dropped).
    let exported = '';
    writeExport({ db: app.ctx.db, samples: app.ctx.samples.queries, criteria: app.ctx.criteria.forDataset(datasetId) },
      { datasetId, status: 'all', responses: true }, 'ragas-jsonl', (c) => { exported += c; });
    const results = exported.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).map((r, i) => ({
      user_input: r.user_input as string, retrieved_contexts: r.retrieved_contexts as string[], reference_contexts: r.reference_contexts as string[],
      response: r.response as string, reference: r.reference as string, faithfulness: i % 3 ? 0.9 : 0.1, 'factual_correctness(mode=f1)': i === 4 ? null : 0.5,
    }));
    expect(results).toHaveLength(30);
    const header = ['user_input', 'retrieved_contexts', 'reference_contexts', 'response', 'reference', 'faithfulness', 'factual_correctness(mode=f1)'];
    const csv = `${header.join(',')}\n${results.map((r) => [r.user_input, pyList(r.retrieved_contexts), pyList(r.reference_contexts), r.response, r.reference,
      String(r.faithfulness), r['factual_correctness(mode=f1)'] === null ? '' : String(r['factual_correctness(mode=f1)'])].map(csvCell).join(',')).join('\n')}\n`;
    const layouts: [string, string][] = [
      ['results.csv', csv],
      ['results.jsonl', results.map((r) => asciiJson(r)).join('\n')],
      ['results.json', asciiJson(results)], // to_json(orient="records"): one line
    ];
    const criterion = app.ctx.criteria.forDataset(datasetId)[0]!;
    for (const [name, text] of layouts) {
      const result = await importText(datasetId, name, text, `ragas ${name}`);
      expect(result.ok, JSON.stringify(result).slice(0, 400)).toBe(true);
      if (!result.ok) continue;
      expect(result).toMatchObject({ created: 0, responsesCreated: 0, matchedWithoutSystem: 30, sharedAcrossSystems: 0, labels: 0 });
      expect(counts(datasetId)).toEqual(before);
      const run = app.ctx.runner.queries.byName(datasetId, `ragas ${name}`, 'faithfulness')!;
      const { report } = app.ctx.calibration.report({ criterion, run, part: 'all', holdoutSeed: 1, resamples: 20 });
      expect(report.n, name).toBe(30);
      expect(result.scoreRuns.find((r) => r.metric === 'factual_correctness(mode=f1)')).toMatchObject({ scored: 29, missing: 1 });
    }
  });

  it('reads the results pandas wrote in a real Ragas 0.4.3 run of goldset\'s export (CSV and one-line JSON array)', async () => {
    const measured = JSON.parse(fs.readFileSync(new URL('../fixtures/ragas-0.4.3/results-columns.json', import.meta.url), 'utf8')).sample_from_fake_llm_run;
    const datasetId = app.ctx.datasets.create(null, { name: 'Measured', description: '', language: 'zh', domain: '' }).id;
    const source = [
      { user_input: '张伟是哪个部门的？', retrieved_contexts: ['张伟 教研部工程师'], reference_contexts: ['张伟 教研部工程师'], response: '教研部', reference: '教研部', system: 'a', 'human.correct': 'yes' },
      { user_input: 'How many days of leave?', retrieved_contexts: ['Policy: ten days', 'other'], response: 'Ten days.', reference: 'Ten days', system: 'a', 'human.correct': 'yes' },
      { user_input: 'How many days of leave?', retrieved_contexts: ['Policy: ten days'], response: 'Twelve days.', reference: 'Ten days', system: 'b', 'human.correct': 'no' },
    ];
    expect((await importText(datasetId, 'src.jsonl', source.map((r) => JSON.stringify(r)).join('\n'), undefined, { annotatorId: expert })).ok).toBe(true);
    const before = counts(datasetId);
    for (const [name, text] of [['measured.csv', measured['to_csv(index=False)']], ['measured.json', measured["to_json(orient='records')"]]] as const) {
      const result = await importText(datasetId, name, text, name);
      expect(result.ok, JSON.stringify(result).slice(0, 400)).toBe(true);
      if (!result.ok) continue;
      expect(result.matchedWithoutSystem).toBe(3);
      expect(result.scoreRuns.map((r) => [r.metric, r.scored])).toEqual([
        ['answer_correctness', 3], ['faithfulness', 3], ['context_precision', 3], ['context_recall', 3], ['answer_relevancy', 3]]);
    }
    expect(counts(datasetId)).toEqual(before);
  });

  it('gives the row to every system that gave the identical answer, and refuses rows whose scores would have to be told apart', async () => {
    const datasetId = app.ctx.datasets.create(null, { name: 'Twins', description: '', language: 'en', domain: '' }).id;
    const base = { user_input: 'Who approves leave?', response: 'The manager.', retrieved_contexts: ['Leave is approved by the manager.'] };
    await importText(datasetId, 'two.jsonl', [JSON.stringify({ ...base, system: 'v1' }), JSON.stringify({ ...base, system: 'v2' })].join('\n'));
    const same = await importText(datasetId, 'same.jsonl', [JSON.stringify({ ...base, faithfulness: 1 }), JSON.stringify({ ...base, faithfulness: 1 })].join('\n'), 'r1');
    expect(same).toMatchObject({ ok: true, matchedWithoutSystem: 2, sharedAcrossSystems: 2, responsesCreated: 0, scoreRuns: [{ metric: 'faithfulness', scored: 2 }] });
    const differ = await importText(datasetId, 'differ.jsonl', [JSON.stringify({ ...base, faithfulness: 1 }), JSON.stringify({ ...base, faithfulness: 0 })].join('\n'), 'r2');
    expect(differ).toMatchObject({ ok: false, ambiguousRows: [[1, 2]] });
    expect(app.ctx.runner.queries.byName(datasetId, 'r2', 'faithfulness')).toBeUndefined();
  });
});

describe('score columns and their ranges', () => {
  it('refuses a value outside the metric\'s range with its row, accepts Ragas\'s own rounding, and keeps NaN as no score', async () => {
    const datasetId = app.ctx.datasets.create(null, { name: 'Ranges', description: '', language: 'en', domain: '' }).id;
    const ok = await importText(datasetId, 'ok.csv', 'user_input,response,bleu_score,context_precision,answer_relevancy,exact_match\n'
      + 'a,x,1.0000000000000004,0.9999999999,-0.05,1.0\nb,y,nan,,0.5,0\n', 'ok');
    expect(ok.ok, JSON.stringify(ok).slice(0, 300)).toBe(true);
    const bad = await importText(datasetId, 'bad.csv', 'user_input,response,faithfulness,exact_match\na,x,1.7,1\nb,y,0.5,0.5\n', 'bad');
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.map((e) => e.message)).toEqual([
      "row 2: column 'faithfulness' is 1.7, outside the metric's range (0–1)",
      "row 3: column 'exact_match' is 0.5, outside the metric's range (0, 1)",
    ]);
  });

  it('reads any other numeric column named as a score column, and refuses one the file does not have', async () => {
    const datasetId = app.ctx.datasets.create(null, { name: 'Named', description: '', language: 'en', domain: '' }).id;
    const text = 'user_input,response,clarity\na,x,4\nb,y,2\n';
    const named = await importText(datasetId, 'c.csv', text, 'mine', { scoreColumns: ['Clarity'] });
    expect(named).toMatchObject({ ok: true, scoreRuns: [{ metric: 'clarity', scored: 2 }] });
    const missing = await importText(datasetId, 'c.csv', text, 'mine2', { scoreColumns: ['tone'] });
    expect(missing).toMatchObject({ ok: false, missingScoreColumns: ['tone'] });
  });
});
