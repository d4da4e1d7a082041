// Criteria of a dataset (what experts judge) and who labels it with how much overlap.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, FormError } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { Criterion } from '../../server/criteria/queries.ts';
import type { UserRow } from '../../server/users/queries.ts';
import { can } from '../../server/http/security.ts';
import { LIMITS } from '../../server/limits.ts';

export interface CriterionFormValues { name?: string; kind?: string; target?: string; options?: string; scale_min?: string; scale_max?: string; guidelines?: string }

export function optionsText(c: Criterion): string {
  return c.options.map((o) => (o.value === o.label ? o.value : `${o.value} | ${o.label}`)).join('\n');
}

/**
 * A change to an existing criterion that was refused: why, shown in that criterion's own form, and
 * what was typed (kept in the form when the change was invalid; after a conflict the form shows what
 * the other person saved, and the reason quotes what was typed).
 */
export interface RefusedCriterionEdit {
  criterionId: number;
  error: string;
  typed?: { options?: string | undefined; guidelines: string; archived: boolean } | undefined;
}

export function CriteriaPage({ ctx, dataset, criteria, values = {}, errors, refused }: {
  ctx: PageContext; dataset: DatasetRow; criteria: Criterion[]; values?: CriterionFormValues; errors?: FieldErrors; refused?: RefusedCriterionEdit;
}) {
  const { t } = ctx;
  const canWrite = can(ctx.user?.role, 'expert');
  return (
    <Layout ctx={ctx} title={`${t('criteria.title')} · ${dataset.name}`}>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {t('criteria.title')}</nav>
      <h1>{t('criteria.title')}</h1>
      <p class="lead">{t('criteria.lead')}</p>
      {criteria.length === 0 && <p class="empty-row">{t('criteria.none')}</p>}
      {criteria.map((c) => {
        const mine = refused?.criterionId === c.id ? refused : undefined;
        const typed = mine?.typed;
        const options = typed?.options ?? optionsText(c);
        return (
        <section class={c.archived ? 'card muted' : 'card'} key={c.id}>
          <h2>{c.name} <span class="badge">{t(`kind.${c.kind}`)}</span> <span class="badge">{t(`target.${c.target}`)}</span>
            {c.kind === 'ordinal' && <span class="badge">{c.scale_min}–{c.scale_max}</span>}{c.archived ? <span class="badge">{t('datasets.archived')}</span> : null}</h2>
          {canWrite ? (
            <form method="post" action={`/criteria/${c.id}`}>
              <Csrf token={ctx.csrfToken} />
              <input type="hidden" name="version" value={c.version} />
              {mine && <div class="alert" role="alert">{mine.error}</div>}
              {(c.kind === 'categorical' || c.kind === 'binary') && (
                <div class="field">
                  <label for={`opt-${c.id}`}>{t('field.options')}</label>
                  <textarea id={`opt-${c.id}`} name="options" rows={Math.max(2, options.split('\n').length)}>{options}</textarea>
                  <p class="hint">{t(c.kind === 'binary' ? 'hint.binary_options' : 'hint.options')}</p>
                </div>
              )}
              <div class="field">
                <label for={`gl-${c.id}`}>{t('field.guidelines')}</label>
                <textarea id={`gl-${c.id}`} name="guidelines" rows={3}>{typed?.guidelines ?? c.guidelines}</textarea>
              </div>
              <div class="field checkbox"><input id={`arch-${c.id}`} type="checkbox" name="archived" value="1" checked={typed ? typed.archived : c.archived === 1} /><label for={`arch-${c.id}`}>{t('criteria.archive')}</label></div>
              <button class="btn small" type="submit">{t('action.save')}</button>
            </form>
          ) : (
            <>
              <p>{c.options.map((o) => o.label).join(' · ')}</p>
              <p class="guidelines">{c.guidelines}</p>
            </>
          )}
        </section>
        );
      })}
      {canWrite && (
        <section class="card" aria-labelledby="new-criterion">
          <h2 id="new-criterion">{t('criteria.new')}</h2>
          <form method="post" action={`/datasets/${dataset.id}/criteria`} novalidate>
            <Csrf token={ctx.csrfToken} />
            <FormError errors={errors} />
            <div class="row">
              <Field name="name" label={t('field.criterion_name')} errors={errors} hint={t('hint.criterion_name')}>
                <input id="f-name" name="name" required maxLength={LIMITS.criterionName} value={values.name ?? ''} pattern="[A-Za-z0-9_\-]+" />
              </Field>
              <Field name="kind" label={t('field.kind')} errors={errors}>
                <select id="f-kind" name="kind" data-kind-select>
                  {(['binary', 'categorical', 'ordinal', 'numeric'] as const).map((k) => <option value={k} selected={values.kind === k}>{t(`kind.${k}`)}</option>)}
                </select>
              </Field>
              <Field name="target" label={t('field.target')} errors={errors} hint={t('hint.target')}>
                <select id="f-target" name="target">
                  <option value="response" selected={values.target !== 'context'}>{t('target.response')}</option>
                  <option value="context" selected={values.target === 'context'}>{t('target.context')}</option>
                </select>
              </Field>
            </div>
            {/* Each type's own fields, grouped: without JS every group shows under its heading; app.js shows the selected type's only. */}
            <fieldset class="kind-fields" data-kinds="binary categorical">
              <legend>{t('fh.kind_fields_options')}</legend>
              <Field name="options" label={t('field.options')} errors={errors} hint={`${t('hint.options')} ${t('hint.binary_options')}`}>
                <textarea id="f-options" name="options" rows={Math.max(t('hint.options_example').split('\n').length, (values.options ?? '').split('\n').length)} placeholder={t('hint.options_example')}>{values.options ?? ''}</textarea>
              </Field>
            </fieldset>
            <fieldset class="kind-fields" data-kinds="ordinal">
              <legend>{t('fh.kind_fields_scale')}</legend>
              <div class="row">
                <Field name="scale_min" label={t('field.scale_min')} errors={errors}>
                  <input id="f-scale_min" name="scale_min" type="number" value={values.scale_min ?? '1'} />
                </Field>
                <Field name="scale_max" label={t('field.scale_max')} errors={errors} hint={t('hint.scale', { limit: LIMITS.scaleSteps })}>
                  <input id="f-scale_max" name="scale_max" type="number" value={values.scale_max ?? '5'} />
                </Field>
              </div>
            </fieldset>
            <Field name="guidelines" label={t('field.guidelines')} errors={errors}>
              <textarea id="f-guidelines" name="guidelines" rows={3}>{values.guidelines ?? ''}</textarea>
            </Field>
            <button class="btn primary" type="submit">{t('criteria.create')}</button>
          </form>
        </section>
      )}
    </Layout>
  );
}

export function AssignmentPage({ ctx, dataset, users, members, errors }: {
  ctx: PageContext; dataset: DatasetRow; users: UserRow[]; members: { user_id: number; can_label: number; can_adjudicate: number }[]; errors?: FieldErrors;
}) {
  const { t } = ctx;
  const member = (id: number) => members.find((m) => m.user_id === id);
  return (
    <Layout ctx={ctx} title={`${t('assign.title')} · ${dataset.name}`}>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {t('assign.title')}</nav>
      <h1>{t('assign.title')}</h1>
      <form method="post" action={`/datasets/${dataset.id}/assignment`} class="card" novalidate>
        <Csrf token={ctx.csrfToken} />
        <input type="hidden" name="version" value={dataset.version} />
        <FormError errors={errors} />
        <Field name="overlap" label={t('field.overlap')} errors={errors} hint={t('hint.overlap')}>
          <input id="f-overlap" name="overlap" type="number" min={1} max={5} value={dataset.overlap} />
        </Field>
        <p class="hint">{t('assign.lead')}</p>
        <table class="table">
          <thead><tr><th scope="col">{t('field.email')}</th><th scope="col">{t('field.role')}</th><th scope="col">{t('assign.labels')}</th><th scope="col">{t('assign.adjudicates')}</th></tr></thead>
          <tbody>
            {users.filter((u) => u.role !== 'viewer' && !u.disabled).map((u) => (
              <tr key={u.id}>
                <td>{u.email}</td>
                <td>{t(`role.${u.role}`)}</td>
                <td><input type="checkbox" name="label" value={u.id} id={`l-${u.id}`} checked={member(u.id)?.can_label === 1} aria-label={t('assign.labels_user', { email: u.email })} /></td>
                <td><input type="checkbox" name="adjudicate" value={u.id} id={`a-${u.id}`} checked={member(u.id)?.can_adjudicate === 1} aria-label={t('assign.adjudicates_user', { email: u.email })} /></td>
              </tr>
            ))}
          </tbody>
        </table>
        <button class="btn primary" type="submit">{t('action.save')}</button>
      </form>
    </Layout>
  );
}
