// Which eval set a run is on: the field of the new-run form, and the line on a run's page.
import type { PageContext } from '../layout.tsx';
import { Field } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';

export function EvalSetField({ ctx, releases, value, errors }: { ctx: PageContext; releases: string[]; value?: string | undefined; errors?: FieldErrors | undefined }) {
  const { t } = ctx;
  return (
    <Field name="release" label={t('release.eval_set')} errors={errors}>
      <select id="f-release" name="release">
        <option value="">{t('release.working_copy')}</option>
        {releases.map((tag) => <option value={tag} selected={value === tag}>{t('release.eval_set_release', { tag })}</option>)}
      </select>
    </Field>
  );
}

export function EvalSetLine({ ctx, datasetId, release }: { ctx: PageContext; datasetId: number; release: { tag: string; hash: string } | null }) {
  const { t } = ctx;
  return (
    <p class="sub eval-set">{t('release.eval_set')}: {release
      ? <><a href={`/datasets/${datasetId}/releases/${encodeURIComponent(release.tag)}`}>{t('release.eval_set_release', { tag: release.tag })}</a> <span class="mono" title={release.hash}>{release.hash.slice(0, 12)}…</span></>
      : t('release.working_copy')}</p>
  );
}
