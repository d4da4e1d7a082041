// Ids that arrive in a form or a URL under /datasets/:id (or a run's or response's pages) are only
// ever looked up through here: a criterion, run, response or sample is found only when it belongs
// to the dataset the request is about, so an id from another dataset is "not found", never used.
import type { AppContext } from '../app-context.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { RunRow } from '../judge/run-queries.ts';
import type { ResponseWithSample } from '../responses/queries.ts';
import type { SampleRow } from '../samples/queries.ts';

/** A positive integer id from a form field, query parameter or path segment; null otherwise. */
export function idOf(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : value;
  const n = typeof text === 'string' && /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export interface InDataset {
  criterion(id: unknown): Criterion | undefined;
  run(id: unknown): RunRow | undefined;
  response(id: unknown): ResponseWithSample | undefined;
  sample(id: unknown): SampleRow | undefined;
}

export function inDataset(app: Pick<AppContext, 'criteria' | 'runner' | 'responses' | 'samples'>, datasetId: number): InDataset {
  const own = <T extends { dataset_id: number }>(row: T | undefined): T | undefined => (row && row.dataset_id === datasetId ? row : undefined);
  const load = <T extends { dataset_id: number }>(get: (id: number) => T | undefined) => (id: unknown) => {
    const n = idOf(id);
    return n === null ? undefined : own(get(n));
  };
  return {
    criterion: load((id) => app.criteria.get(id)),
    run: load((id) => app.runner.queries.byId(id)),
    response: load((id) => app.responses.byId(id)),
    sample: load((id) => app.samples.get(id)),
  };
}
