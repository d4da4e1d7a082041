// The Ragas part of a metric on the Metrics page: its prompts as files for Ragas's load_prompts (one
// zip, any prompt version), and the calibrations recorded for it with the prompt versions and judge
// model each was measured with, so it is plain which prompts a calibration is about.
import type { PageContext } from '../layout.tsx';
import { Csrf } from '../components.tsx';

/** A built-in metric's settings: the current values, the version they were read at, and each setting's allowed values. */
export interface MetricSettingsView { values: Record<string, string>; version: number; spec: Readonly<Record<string, readonly string[]>> }

export function MetricSettingsForm({ ctx, datasetId, metric, v, canWrite, error }: {
  ctx: PageContext; datasetId: number; metric: string; v: MetricSettingsView; canWrite: boolean; error?: string | undefined;
}) {
  const { t } = ctx;
  return (
    <form method="post" action={`/datasets/${datasetId}/metrics/${encodeURIComponent(metric)}/settings`} class="metric-settings">
      <Csrf token={ctx.csrfToken} />
      <input type="hidden" name="version" value={v.version} />
      <h2>{t('ragas.settings')}</h2>
      {error && <div class="alert" role="alert">{error}</div>}
      {Object.entries(v.spec).map(([name, values]) => (
        <div class="field">
          <label for={`s-${metric}-${name}`}>{t(`ragas.setting_${name}` as 'ragas.setting_noncommittal')}</label>
          <select id={`s-${metric}-${name}`} name={name} disabled={!canWrite}>
            {values.map((value) => <option value={value} selected={v.values[name] === value}>{t(`ragas.setting_${name}_${value}` as 'ragas.setting_noncommittal_all')}</option>)}
          </select>
        </div>
      ))}
      <p class="hint">{t('ragas.settings_hint')}</p>
      {canWrite && <button class="btn small" type="submit">{t('ragas.settings_save')}</button>}
    </form>
  );
}

export interface CalibrationRow {
  created_at: string; criterion: string; run: string; part: string; strength_name: string; strength: number | null;
  /** Each step's prompt version (null: the built-in default); and the judge that scored the run. */
  prompts: PromptVersions; model: string;
  /** The calibration's prompt versions are the metric's current ones. */
  current: boolean;
}

export type PromptVersions = { step: string; version: number | null }[];

/** "statements v2 · nli default", in the reader's language. */
function versions(t: PageContext['t'], prompts: PromptVersions): string {
  return prompts.map((p) => `${p.step} ${p.version === null ? t('runs.default_prompt') : `v${p.version}`}`).join(' · ');
}

export interface RagasExportView {
  metric: string;
  /** Ragas's metric names the files are written under, and the language in their names. */
  ragas_names: string[]; language: 'english' | 'chinese';
  /** Highest version saved of any step (the version picker offers 1…this). */
  max_version: number;
  current_prompts: PromptVersions;
  calibrations: CalibrationRow[];
}

export function RagasExport({ ctx, datasetId, v }: { ctx: PageContext; datasetId: number; v: RagasExportView }) {
  const { t } = ctx;
  const id = `x-${v.metric}`;
  return (
    <div class="ragas-export">
      <h2>{t('ragas.export_title')}</h2>
      <p class="hint">{t('ragas.export_lead', { names: v.ragas_names.join(', '), language: v.language })}</p>
      <form method="get" action={`/datasets/${datasetId}/metrics/${encodeURIComponent(v.metric)}/export`} class="row">
        <div class="field">
          <label for={`${id}-v`}>{t('ragas.export_version')}</label>
          <select id={`${id}-v`} name="version">
            <option value="">{t('ragas.export_current', { prompts: versions(t, v.current_prompts) })}</option>
            <option value="0">{t('ragas.export_defaults')}</option>
            {Array.from({ length: v.max_version }, (_, i) => <option value={i + 1}>{t('metrics.version_n', { n: i + 1 })}</option>)}
          </select>
        </div>
        <button class="btn small" type="submit">{t('ragas.export_download')}</button>
      </form>
      <h3>{t('ragas.calibrations')}</h3>
      {v.calibrations.length === 0 ? <p class="sub">{t('ragas.no_calibrations')}</p> : (
        <table class="table compact">
          <thead><tr>
            <th scope="col">{t('audit.when')}</th><th scope="col">{t('calib.criterion')}</th><th scope="col">{t('ragas.cal_run')}</th>
            <th scope="col">{t('ragas.cal_prompts')}</th><th scope="col">{t('ragas.cal_model')}</th><th scope="col" class="num">{t('ragas.cal_strength')}</th>
            <th scope="col">{t('ragas.cal_current')}</th>
          </tr></thead>
          <tbody>{v.calibrations.map((c) => (
            <tr>
              <td class="sub">{c.created_at.slice(0, 16).replace('T', ' ')}</td><td>{c.criterion}</td><td>{c.run} <span class="sub">({t(`calib.part_${c.part}` as 'calib.part_all')})</span></td>
              <td class="mono">{versions(t, c.prompts) || '—'}</td><td class="mono">{c.model || t('ragas.cal_imported')}</td>
              <td class="num">{c.strength_name} {c.strength === null ? '—' : c.strength.toFixed(3)}</td>
              <td>{c.current ? <span class="badge ok">{t('ragas.cal_current_yes')}</span> : <span class="badge">{t('ragas.cal_current_no')}</span>}</td>
            </tr>
          ))}</tbody>
        </table>
      )}
    </div>
  );
}
