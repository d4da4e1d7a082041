/**
 * Public API of goldset's import-parsing layer (pure: no database, no HTTP).
 *
 * Typical use:
 *   for await (const item of readImportFile(upload.path, { filename: upload.originalname })) {
 *     if ('row' in item) stage(item.row); else report(item.errors);
 *   }
 * Errors carry `code` + `params` for translation and an English `message` as fallback.
 */
export { detectFormat, readImport, readImportBatches, readImportFile, DEFAULT_MAX_JSON_VALUE_CHARS } from './read.ts';
export type { ImportFormat, ImportItem, ImportSource, ReadImportOptions } from './read.ts';

export { normalizeRecord, normalizeRow, createRecordNormalizer } from './normalize.ts';
export type { NormalizeResult, RowContext } from './normalize.ts';

export { ImportRowSchema, SampleSchema, ResponseSchema } from './schema.ts';
export type { ImportRow, ImportSample, ImportResponse } from './schema.ts';

export { ACCEPTED_HEADERS, KNOWN_METRICS, classifyColumn, hasQuestionColumn, normalizeHeader, planColumns } from './columns.ts';
export type { ColumnOptions, ColumnPlan, ColumnTarget, PlannedColumn, ResponseField, SampleField } from './columns.ts';

export { ParseError, parseListCell, parseListCellLenient } from './pylist.ts';

export { describeError, jsonKind, rowError } from './errors.ts';
export type { JsonKind, LineUnit, ListSyntaxReason, RowError, RowErrorCode, RowErrorDetail } from './errors.ts';
