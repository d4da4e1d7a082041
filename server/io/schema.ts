/**
 * The typed shape of one imported row, as a zod schema so the same contract validates rows
 * produced by the readers and rows that reach the app by other paths (e.g. an edited preview
 * posted back from the browser).
 *
 * A row always carries a sample (the question is the key used to match answers and scores to
 * existing samples); `response` is present only when the file has answer-side columns.
 * Text is kept verbatim except the question, which is trimmed because it is used for matching.
 */
import { z } from 'zod';

export const SampleSchema = z.object({
  /** `id` / `sample_id` column: lets a re-import update samples instead of matching on text. */
  id: z.string().nullable(),
  question: z.string().trim().min(1),
  ground_truth: z.string().nullable(),
  reference_contexts: z.array(z.string()),
  tags: z.array(z.string()),
  source: z.string().nullable(),
  notes: z.string().nullable(),
  /** Raw status text; the app decides which statuses it knows. */
  status: z.string().nullable(),
});

export const ResponseSchema = z.object({
  answer: z.string(),
  retrieved_contexts: z.array(z.string()),
  system: z.string().nullable(),
  metadata: z.object({
    model: z.string().nullable(),
    // The message becomes RowError params.detail, shown to users when a cell is negative.
    latency_ms: z.number().nonnegative('must not be negative').nullable(),
    cost: z.number().nonnegative('must not be negative').nullable(),
  }),
});

export const ImportRowSchema = z.object({
  sample: SampleSchema,
  response: ResponseSchema.nullable(),
  /** Metric id → score; null = the column exists but this row has no score (empty / NaN). */
  scores: z.record(z.string(), z.number().nullable()),
  /**
   * Criterion (from `human.<criterion>`, lower-cased) → raw value as written, or for a list cell
   * (a per-context criterion) one raw value per retrieved context, null where a rank is unlabelled.
   */
  labels: z.record(z.string(), z.union([z.string(), z.array(z.string().nullable())])),
  /** Values of ignored columns, keyed by the header as written in the file. */
  extra: z.record(z.string(), z.unknown()),
  /** Headers of ignored columns, for "ignored columns: x, y" in the UI. */
  ignored: z.array(z.string()),
});

export type ImportSample = z.output<typeof SampleSchema>;
export type ImportResponse = z.output<typeof ResponseSchema>;
export type ImportRow = z.output<typeof ImportRowSchema>;
