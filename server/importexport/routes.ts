// HTTP for importing files into a dataset and downloading Ragas-compatible exports.
import fs from 'node:fs/promises';
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { requireRole, requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import { detectFormat } from '../io/read.ts';
import { CONTENT_TYPES, EXPORT_FORMATS, EXTENSIONS, datasetRecords, spreadsheetRefusal, writeExport, writeRecordsXlsx } from './export.ts';
import { applyLabellingSheet, readSheetMeta } from '../labelsheet/upload.ts';
import { importRefusal } from './messages.ts';
import { ExportRunError, scoreColumnsOf } from './export-scores.ts';
import type { ScoreColumn } from './export-responses.ts';
import { ExportPage, ImportPage } from '../../views/pages/importexport.tsx';
import { LIMITS } from '../limits.ts';

/** The one route that accepts multipart bodies; app.ts runs the upload parser for it before CSRF. */
export const UPLOAD_PATH = '/datasets/:id/import';

const ImportForm = z.object({
  format: z.enum(['csv', 'jsonl', 'json', 'xlsx']).or(z.literal('')).default(''),
  sheet: z.string().trim().max(31).optional().catch(undefined),
  labels_as: z.enum(['draft', 'submitted']).catch('draft'),
  annotator: z.coerce.number().int().positive().optional().catch(undefined),
  // Its length is checked by the import (server/limits.ts), which says so instead of dropping the name.
  run: z.string().trim().optional().catch(undefined),
  /** Further score columns, separated by commas or new lines. */
  score_columns: z.string().max(LIMITS.scoreColumnList).optional().catch(undefined),
});
const ExportQuery = z.object({
  format: z.enum(EXPORT_FORMATS).catch('spreadsheet-csv'),
  status: z.enum(['approved', 'all']).catch('approved'),
  responses: z.literal('1').optional().catch(undefined),
  /** Runs whose scores become columns (with responses). */
  run: z.union([z.string(), z.array(z.string())]).optional().transform((v) => [v ?? []].flat().filter((r) => r !== '').slice(0, 50)).catch([]),
  utf8: z.literal('1').optional().catch(undefined),
});

export function importExportRoutes(app: AppContext): Router {
  const r = Router();
  const expert = requireRole('expert', app.log);
  const { datasets, imports, samples } = app;

  r.get('/datasets/:id/import', expert, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    sendDocument(res, ImportPage({ ctx: pageContext(req), dataset, users: app.users.queries.all() }));
  });

  r.post(UPLOAD_PATH, expert, async (req, res) => {
    const file = req.file;
    try {
      const dataset = datasets.get(idParam(req.params.id) ?? 0);
      if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
      if (dataset.archived) return sendError(req, res, 409, req.t('err.dataset_archived'));
      const ctx = pageContext(req);
      if (!file) return sendDocument(res, ImportPage({ ctx, dataset, users: app.users.queries.all(), formErrors: { file: req.t('err.file_required') } }), 422);
      const form = ImportForm.safeParse(req.body ?? {});
      const format = (form.success && form.data.format) || detectFormat(file.originalname);
      if (!format) return sendDocument(res, ImportPage({ ctx, dataset, users: app.users.queries.all(), formErrors: { file: req.t('err.unknown_format') } }), 422);
      // Labels in the file are the uploader's own unless an admin names another expert.
      const chosen = form.success ? form.data.annotator : undefined;
      const named = chosen && req.user!.role === 'admin' ? app.users.queries.byId(chosen) : undefined;
      // Only someone who can label (an active expert or admin) can be named the author of labels.
      const annotatorId = named && named.role !== 'viewer' && !named.disabled ? named.id : req.user!.id;
      // A labelling sheet goldset made comes back as the expert's labels, not as rows to import.
      if (format === 'xlsx' && await readSheetMeta(file.path)) {
        const annotator = app.users.queries.byId(annotatorId)!;
        const state = form.success ? form.data.labels_as : 'draft';
        const result = await applyLabellingSheet(app, file.path, { datasetId: dataset.id, annotator, state, actorId: req.user!.id });
        if (!result.ok) {
          app.log.info('labelling_sheet.refused', { dataset: dataset.id, errors: result.total, user: req.user!.id });
          const errors = result.errors.map((e) => req.t(e.key, e.params));
          return sendDocument(res, ImportPage({ ctx, dataset, users: app.users.queries.all(), outcome: { errors, moreErrors: result.total - errors.length, sheetFailed: true } }), 422);
        }
        app.log.info('labelling_sheet.uploaded', { dataset: dataset.id, annotator: annotator.id, saved: result.saved, state, user: req.user!.id });
        return sendDocument(res, ImportPage({ ctx, dataset, users: app.users.queries.all(), outcome: { sheet: result } }));
      }
      const scoreColumns = (form.success ? form.data.score_columns ?? '' : '').split(/[,\n]/).map((c) => c.trim()).filter((c) => c !== '');
      const result = await imports.importFile(req.user!.id, dataset.id, file.path, {
        format, filename: file.originalname, annotatorId, sheet: (form.success && form.data.sheet) || undefined,
        runName: (form.success && form.data.run) || undefined, scoreColumns,
      });
      if (!result.ok) {
        app.log.info('import.refused', { dataset: dataset.id, errors: result.totalErrors, user: req.user!.id });
        const errors = importRefusal(result, req.locale).messages;
        return sendDocument(res, ImportPage({ ctx, dataset, users: app.users.queries.all(), outcome: { errors, moreErrors: result.totalErrors - errors.length } }), 422);
      }
      app.log.info('import.done', { dataset: dataset.id, rows: result.rows, created: result.created, user: req.user!.id });
      sendDocument(res, ImportPage({ ctx, dataset, users: app.users.queries.all(), outcome: { summary: result } }));
    } finally {
      if (file) await fs.rm(file.path, { force: true });
    }
  });

  /** Whether the user may export every expert's labels and gold values (access/permissions.ts). */
  const mayExportLabels = (req: Request, datasetId: number) => app.access.mayReadAllLabels(req.user, datasetId);

  r.get('/datasets/:id/export', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const runNames = [...new Set(app.runner.queries.forDataset(dataset.id).filter((r) => r.status === 'done').map((r) => r.name))];
    sendDocument(res, ExportPage({ ctx: pageContext(req), dataset, withLabels: mayExportLabels(req, dataset.id), runNames }));
  });

  r.get('/datasets/:id/export/download', requireUser, async (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const q = ExportQuery.parse(req.query);
    const responses = q.responses === '1';
    // Exports with responses carry the gold values, goldset JSONL every expert's labels: only for
    // whoever may read all of them, never for an expert who may still label items blind.
    if ((responses || q.format === 'goldset-jsonl') && !mayExportLabels(req, dataset.id)) {
      app.log.warn('authz.refused', { path: req.path, user: req.user!.id, reason: 'labels are blind to this labeller' });
      return sendError(req, res, 403, req.t('export.labels_blind'));
    }
    let scoreColumns: ScoreColumn[] = [];
    try {
      if (responses) scoreColumns = scoreColumnsOf({ runs: app.runner.queries, registry: app.registry }, dataset.id, q.run);
    } catch (err) {
      if (err instanceof ExportRunError) return sendError(req, res, 422, req.t(err.key, err.params));
      throw err;
    }
    const filename = q.format === 'goldset-jsonl' ? `goldset-${dataset.id}.${EXTENSIONS[q.format]}`
      : `goldset-${dataset.id}-${q.status}${responses ? '-responses' : ''}.${EXTENSIONS[q.format]}`;
    const src = { db: app.db, samples: samples.queries, criteria: app.criteria.forDataset(dataset.id) };
    const opts = { datasetId: dataset.id, status: q.status, responses, scoreColumns, utf8: q.utf8 === '1' };
    if (q.format === 'xlsx') {
      const refusal = spreadsheetRefusal(app.db, opts, req.t);
      if (refusal) return sendError(req, res, 422, refusal);
      res.type(CONTENT_TYPES.xlsx).attachment(filename);
      try {
        await writeRecordsXlsx(datasetRecords(src, opts), res, { mtime: new Date(), sheet: dataset.name });
      } catch (err) {
        // Past the headers a failure can only cut the download short (the client sees an incomplete file, not a valid one).
        app.log.warn('export.failed', { dataset: dataset.id, message: (err as Error).message });
        res.destroy();
      }
      return;
    }
    res.type(CONTENT_TYPES[q.format]).attachment(filename);
    writeExport(src, opts, q.format, (chunk) => res.write(chunk));
    res.end();
  });

  return r;
}
