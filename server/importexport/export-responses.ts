// Ragas-format export of responses with the experts' gold labels: one record per response, Ragas's
// columns plus `human.<criterion>` (per-context criteria: a list with one value per retrieved context),
// and the scores of chosen runs under the column Ragas names each metric (null where there is none).
// Two queries per batch of 500 responses (three with runs), never one per response.
import type { DB } from '../db/connection.ts';
import type { Criterion } from '../criteria/queries.ts';
import { numericValue } from '../criteria/values.ts';
import { goldValue } from '../labels/gold.ts';

export interface ResponseExportRow {
  user_input: string;
  retrieved_contexts: string[];
  response: string;
  reference: string;
  reference_contexts: string[];
  system: string;
  [column: string]: string | number | null | (string | number | null)[];
}

/** A run whose scores become a column of the export. */
export interface ScoreColumn { column: string; runId: number }

const BATCH = 500;

function typed(c: Criterion, value: string | null): string | number | null {
  if (value === null) return null;
  return c.kind === 'categorical' ? value : numericValue(c.kind, value);
}

export function* responseExportRows(db: DB, datasetId: number, criteria: Criterion[], status: 'approved' | undefined,
  scoreColumns: readonly ScoreColumn[] = []): Generator<ResponseExportRow[]> {
  const page = db.prepare<{ ds: number; after: number; status: string | null; limit: number },
    { id: number; question: string; ground_truth: string; reference_contexts: string; answer: string; retrieved_contexts: string; system: string }>(`
    SELECT r.id, s.question, s.ground_truth, s.reference_contexts, r.answer, r.retrieved_contexts, r.system
    FROM response r JOIN sample s ON s.id = r.sample_id
    WHERE r.dataset_id = @ds AND r.id > @after AND (@status IS NULL OR s.status = @status) ORDER BY r.id LIMIT @limit`);
  const labels = db.prepare<{ from: number; to: number; ds: number }, { response_id: number; criterion_id: number; context_index: number; value: string }>(`
    SELECT a.response_id, l.criterion_id, l.context_index, l.value FROM label l JOIN annotation a ON a.id = l.annotation_id
    WHERE a.dataset_id = @ds AND a.state = 'submitted' AND a.response_id BETWEEN @from AND @to`);
  const adjudications = db.prepare<{ from: number; to: number }, { response_id: number; criterion_id: number; context_index: number; value: string }>(`
    SELECT response_id, criterion_id, context_index, value FROM adjudication WHERE response_id BETWEEN @from AND @to`);
  const scores = db.prepare<{ runs: string; from: number; to: number }, { run_id: number; response_id: number; value: number }>(`
    SELECT run_id, response_id, value FROM score WHERE run_id IN (SELECT value FROM json_each(@runs)) AND response_id BETWEEN @from AND @to AND status = 'ok'`);
  const runIds = JSON.stringify(scoreColumns.map((c) => c.runId));
  let after = 0;
  for (;;) {
    const rows = page.all({ ds: datasetId, after, status: status ?? null, limit: BATCH });
    if (!rows.length) return;
    const range = { from: rows[0]!.id, to: rows[rows.length - 1]!.id };
    const values = new Map<string, string[]>();
    for (const l of labels.all({ ...range, ds: datasetId })) {
      const key = `${l.response_id}:${l.criterion_id}:${l.context_index}`;
      values.set(key, [...(values.get(key) ?? []), l.value]);
    }
    const adjudicated = new Map(adjudications.all(range).map((j) => [`${j.response_id}:${j.criterion_id}:${j.context_index}`, j.value]));
    const scored = new Map(scoreColumns.length ? scores.all({ runs: runIds, ...range }).map((x) => [`${x.run_id}:${x.response_id}`, x.value]) : []);
    const gold = (c: Criterion, rid: number, i: number) => {
      const key = `${rid}:${c.id}:${i}`;
      return typed(c, goldValue(c.kind, values.get(key) ?? [], adjudicated.get(key) ?? null));
    };
    yield rows.map((r) => {
      const contexts = JSON.parse(r.retrieved_contexts) as string[];
      const out: ResponseExportRow = {
        user_input: r.question, retrieved_contexts: contexts, response: r.answer, reference: r.ground_truth,
        reference_contexts: JSON.parse(r.reference_contexts) as string[], system: r.system,
      };
      for (const c of criteria) {
        out[`human.${c.name}`] = c.target === 'context' ? contexts.map((_, i) => gold(c, r.id, i)) : gold(c, r.id, -1);
      }
      for (const c of scoreColumns) out[c.column] = scored.get(`${c.runId}:${r.id}`) ?? null;
      return out;
    });
    after = range.to;
  }
}
