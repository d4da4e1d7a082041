// The import page (upload with progress, all-or-nothing result) and the export page.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field } from '../components.tsx';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { ImportSummary } from '../../server/importexport/import-service.ts';
import type { UserRow } from '../../server/users/queries.ts';
import { LIMITS } from '../../server/limits.ts';
import { MAX_SHEET_NAME } from '../../server/xlsx/text.ts';

export interface ImportOutcome {
  summary?: ImportSummary;
  /** A labelling sheet's labels were saved. */
  sheet?: { saved: number; unchanged: number; empty: number; state: 'draft' | 'submitted' };
  errors?: string[];
  moreErrors?: number;
  /** The errors are a labelling sheet's: nothing was saved. */
  sheetFailed?: boolean;
}

export function ImportPage({ ctx, dataset, users, outcome, formErrors }: { ctx: PageContext; dataset: DatasetRow; users: UserRow[]; outcome?: ImportOutcome; formErrors?: FieldErrors }) {
  const { t } = ctx;
  const s = outcome?.summary;
  return (
    <Layout ctx={ctx} title={`${t('import.title')} · ${dataset.name}`}>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {t('import.title')}</nav>
      <h1>{t('import.title')}</h1>
      {s && (
        <div class="card highlight" role="status" id="import-result">
          <p><strong>{t('import.done', { rows: s.rows, created: s.created, matched: s.matched })}</strong></p>
          {s.differs.length > 0 && <p>{t('import.differs', { n: s.differs.length, lines: s.differs.slice(0, 20).join(', ') + (s.differs.length > 20 ? '…' : '') })}</p>}
          {(s.responsesCreated > 0 || s.responsesMatched > 0) && <p>{t('import.responses', { created: s.responsesCreated, matched: s.responsesMatched })}</p>}
          {s.matchedWithoutSystem > 0 && <p>{t('ragas.import_matched_without_system', { n: s.matchedWithoutSystem })}
            {s.sharedAcrossSystems > 0 && <> {t('ragas.import_shared_across_systems', { n: s.sharedAcrossSystems })}</>}</p>}
          {s.labels > 0 && <p>{t('import.labels', { n: s.labels })}</p>}
          {s.criteriaCreated.length > 0 && <p>{t('import.criteria_created', { names: s.criteriaCreated.join(', ') })}</p>}
          {s.labelsWithoutAnswer > 0 && <p>{t('import.labels_without_answer', { n: s.labelsWithoutAnswer })}</p>}
          {s.scoreRuns.map((r) => <p><a href={`/runs/${r.run_id}`}>{t('import.score_run', { run: r.run, metric: r.metric, scored: r.scored, missing: r.missing })}</a></p>)}
          {s.scoreColumns.length > 0 && s.scoreRuns.length === 0 && <p class="sub">{t('import.score_columns', { columns: s.scoreColumns.join(', ') })}</p>}
          {s.ignoredColumns.length > 0 && <p class="sub">{t('import.ignored_columns', { columns: s.ignoredColumns.join(', ') })}</p>}
          <p><a class="btn small" href={`/datasets/${dataset.id}`}>{dataset.name} →</a></p>
        </div>
      )}
      {outcome?.sheet && (
        <div class="card highlight" role="status" id="import-result">
          <p><strong>{t('sheet.done', { saved: outcome.sheet.saved, state: t(`sheet.state_${outcome.sheet.state}`), unchanged: outcome.sheet.unchanged, empty: outcome.sheet.empty })}</strong></p>
          <p><a class="btn small" href={`/datasets/${dataset.id}/label`}>{t('label.title')} →</a></p>
        </div>
      )}
      {outcome?.errors && (
        <div class="alert" role="alert" id="import-errors" data-refusal="true">
          <p><strong>{outcome.sheetFailed ? t('sheet.failed') : t('import.failed')}</strong></p>
          <ul>{outcome.errors.map((e) => <li>{e}</li>)}</ul>
          {outcome.moreErrors ? <p>{t('import.more_errors', { n: outcome.moreErrors })}</p> : null}
        </div>
      )}
      <section class="card">
        <p>{t('import.lead')}</p>
        <p class="hint">{t('import.all_or_nothing')}</p>
        {/* The upload's progress is written by public/app.js into this message, where it says {pct}. */}
        <form method="post" action={`/datasets/${dataset.id}/import`} enctype="multipart/form-data" data-upload
          data-uploading={t('import.uploading', { pct: '{pct}' })} data-processing={t('import.processing')} data-failed={t('import.upload_failed')}>
          <Csrf token={ctx.csrfToken} />
          <div class="row">
            <Field name="file" label={t('import.file')} errors={formErrors}>
              <input id="f-file" type="file" name="file" required accept=".csv,.jsonl,.ndjson,.json,.xlsx" />
            </Field>
            <Field name="format" label={t('import.format')} errors={formErrors}>
              <select id="f-format" name="format">
                <option value="">{t('import.format_auto')}</option>
                <option value="csv">CSV</option>
                <option value="jsonl">JSONL</option>
                <option value="json">JSON</option>
                <option value="xlsx">XLSX</option>
              </select>
            </Field>
            <Field name="sheet" label={t('import.sheet')} errors={formErrors} hint={t('import.sheet_hint')}>
              <input id="f-sheet" name="sheet" maxLength={MAX_SHEET_NAME} />
            </Field>
          </div>
          <fieldset>
            <legend>{t('sheet.submit_label')}</legend>
            <div class="field checkbox"><input type="radio" id="f-labels-draft" name="labels_as" value="draft" checked /><label for="f-labels-draft">{t('sheet.as_drafts')}</label></div>
            <div class="field checkbox"><input type="radio" id="f-labels-submitted" name="labels_as" value="submitted" /><label for="f-labels-submitted">{t('sheet.as_submitted')}</label></div>
          </fieldset>
          <div class="row">
            <Field name="run" label={t('import.run_name')} errors={formErrors} hint={t('import.run_name_hint')}>
              <input id="f-run" name="run" maxLength={LIMITS.runName} />
            </Field>
            <Field name="score_columns" label={t('ragas.import_score_columns')} errors={formErrors} hint={t('ragas.import_score_columns_hint')}>
              <input id="f-score_columns" name="score_columns" maxLength={LIMITS.scoreColumnList} placeholder="clarity, my_judge" />
            </Field>
          </div>
          {ctx.user?.role === 'admin' && (
            <Field name="annotator" label={t('import.annotator')} errors={formErrors} hint={t('import.annotator_hint')}>
              <select id="f-annotator" name="annotator">
                {users.filter((u) => u.role !== 'viewer' && !u.disabled).map((u) => <option value={u.id} selected={u.id === ctx.user?.id}>{u.email}</option>)}
              </select>
            </Field>
          )}
          <progress class="upload-progress" max={100} value={0} hidden />
          <p class="upload-status sub" aria-live="polite"></p>
          <button type="submit" class="btn primary">{t('import.submit')}</button>
        </form>
      </section>
    </Layout>
  );
}

export function ExportPage({ ctx, dataset, withLabels, runNames }: { ctx: PageContext; dataset: DatasetRow; withLabels: boolean; runNames: string[] }) {
  const { t } = ctx;
  // Spreadsheet-safe CSV is the default: the file people open. The formats for programs keep the exact text.
  const format = (id: string, value: string, label: string, hint: string | null, extra: { checked?: boolean; disabled?: boolean } = {}) => (
    <div class="field checkbox">
      <input type="radio" id={id} name="format" value={value} checked={extra.checked} disabled={extra.disabled} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label for={id}>{label}</label>
      {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
    </div>
  );
  return (
    <Layout ctx={ctx} title={`${t('export.title')} · ${dataset.name}`}>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {t('export.title')}</nav>
      <h1>{t('export.title')}</h1>
      <section class="card">
        <p>{t('export.lead')}</p>
        <form method="get" action={`/datasets/${dataset.id}/export/download`}>
          <fieldset>
            <legend>{t('export.format')}</legend>
            {format('fmt-sheet', 'spreadsheet-csv', t('export.spreadsheet_csv'), t('export.spreadsheet_csv_hint'), { checked: true })}
            {format('fmt-jsonl', 'ragas-jsonl', t('export.ragas_jsonl'), null)}
            {format('fmt-csv', 'ragas-csv', t('export.ragas_csv'), t('export.ragas_csv_hint'))}
            {format('fmt-xlsx', 'xlsx', t('export.xlsx'), null)}
            {format('fmt-goldset', 'goldset-jsonl', t('export.goldset_jsonl'), withLabels ? null : t('export.labels_blind'), { disabled: !withLabels })}
          </fieldset>
          <div class="field checkbox">
            <input type="checkbox" id="f-responses" name="responses" value="1" disabled={!withLabels} aria-describedby={withLabels ? undefined : 'f-responses-hint'} />
            <label for="f-responses">{t('export.with_responses')}</label>
            {!withLabels && <p class="hint" id="f-responses-hint">{t('export.labels_blind')}</p>}
          </div>
          {runNames.length > 0 && (
            <fieldset>
              <legend>{t('ragas.export_runs')}</legend>
              <p class="hint">{t('ragas.export_runs_hint')}</p>
              {runNames.map((name, i) => (
                <div class="field checkbox"><input type="checkbox" id={`f-run-${i}`} name="run" value={name} /><label for={`f-run-${i}`}>{name}</label></div>
              ))}
            </fieldset>
          )}
          <div class="field checkbox"><input type="checkbox" id="f-utf8" name="utf8" value="1" /><label for="f-utf8">{t('ragas.export_utf8')}</label></div>
          <fieldset>
            <legend>{t('export.status')}</legend>
            <div class="field checkbox"><input type="radio" id="st-approved" name="status" value="approved" checked /><label for="st-approved">{t('export.status_approved')}</label></div>
            <div class="field checkbox"><input type="radio" id="st-all" name="status" value="all" /><label for="st-all">{t('export.status_all')}</label></div>
          </fieldset>
          <button type="submit" class="btn primary">{t('export.submit')}</button>
        </form>
      </section>
    </Layout>
  );
}
