// Admin pages: users with their roles, invitations, and the global audit log.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, FormError } from '../components.tsx';
import { AuditList } from './audit-list.tsx';
import type { MessageKey } from '../../server/i18n/index.ts';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { UserRow } from '../../server/users/queries.ts';
import { AUDIT_TYPES, type AuditRow } from '../../server/audit/queries.ts';

const ROLES = ['admin', 'expert', 'viewer'] as const;

export function UsersPage({ ctx, users, values = {}, errors, tableError, flagged, invite }: {
  ctx: PageContext; users: UserRow[]; values?: { email?: string; name?: string; role?: string }; errors?: FieldErrors;
  /** Why a row's change was not saved: shown above the table, not in the invitation form. */
  tableError?: string;
  /** The user whose row that refusal is about: the row is marked. */
  flagged?: number;
  /** An invitation link just made: shown on this page only. */
  invite?: { email: string; link: string };
}) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t('users.title')}>
      <h1>{t('users.title')}</h1>
      {invite && (
        <div class="card highlight" role="status">
          <p><strong>{t('users.invite_created_for', { email: invite.email })}</strong></p>
          <label for="invite-link">{t('users.invite_link')}</label>
          <div class="copy-row">
            <input id="invite-link" readOnly value={invite.link} class="mono" data-select-on-focus />
            {/* Shown by app.js, which can copy; without it the field is selected on focus for Ctrl+C. */}
            <button type="button" class="btn small" data-copy="invite-link" data-copied={t('users.copied')} hidden>{t('users.copy_link')}</button>
          </div>
          <p class="hint">{t('users.invite_once')}</p>
        </div>
      )}
      {tableError && <div class="alert" role="alert" data-refusal="true">{tableError}</div>}
      <table class="table">
        <thead><tr><th scope="col">{t('field.email')}</th><th scope="col">{t('field.name')}</th><th scope="col">{t('field.role')}</th><th scope="col">{t('users.state')}</th><th scope="col"><span class="sr-only">{t('users.actions')}</span></th></tr></thead>
        <tbody>
          {users.map((u) => (
            <tr key={u.id} class={[u.disabled ? 'muted' : '', u.id === flagged ? 'flagged' : ''].filter(Boolean).join(' ')}>
              <th scope="row" id={`u-${u.id}`}>{u.email}</th>
              <td>{u.name}</td>
              <td>
                <label class="sr-only" for={`role-${u.id}`}>{t('users.role_of', { email: u.email })}</label>
                <select id={`role-${u.id}`} name="role" form={`user-${u.id}`}>
                  {ROLES.map((r) => <option value={r} selected={u.role === r}>{t(`role.${r}`)}</option>)}
                </select>
              </td>
              <td>
                <span class="checkbox">
                  <input id={`disabled-${u.id}`} type="checkbox" name="disabled" value="1" checked={u.disabled === 1} form={`user-${u.id}`} aria-describedby={`u-${u.id}`} />
                  <label for={`disabled-${u.id}`}>{t('users.disabled')}</label>
                </span>
                {u.invited === 1 && <span class="badge">{t('users.invited')}</span>}
              </td>
              <td>
                <form method="post" action={`/admin/users/${u.id}`} id={`user-${u.id}`} class="inline-form">
                  <Csrf token={ctx.csrfToken} />
                  <input type="hidden" name="was_role" value={u.role} />
                  <input type="hidden" name="was_disabled" value={u.disabled ? '1' : '0'} />
                  <button type="submit" class="btn small" aria-label={t('users.save_for', { email: u.email })}>{t('action.save')}</button>
                </form>
                {u.invited === 1 && u.disabled === 0 && (
                  <form method="post" action={`/admin/users/${u.id}/invite`} class="inline-form">
                    <Csrf token={ctx.csrfToken} />
                    <button type="submit" class="btn ghost small" aria-label={t('users.reissue_for', { email: u.email })}>{t('users.reissue')}</button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <section class="card" aria-labelledby="invite-heading">
        <h2 id="invite-heading">{t('users.invite')}</h2>
        <form method="post" action="/admin/users" novalidate>
          <Csrf token={ctx.csrfToken} />
          <FormError errors={errors} />
          <div class="row">
            <Field name="email" label={t('field.email')} errors={errors}>
              <input id="f-email" name="email" type="email" required value={values.email ?? ''} />
            </Field>
            <Field name="name" label={t('field.name')} errors={errors}>
              <input id="f-name" name="name" value={values.name ?? ''} />
            </Field>
            <Field name="role" label={t('field.role')} errors={errors}>
              <select id="f-role" name="role">
                {ROLES.map((r) => <option value={r} selected={(values.role ?? 'expert') === r}>{t(`role.${r}`)}</option>)}
              </select>
            </Field>
          </div>
          <button type="submit" class="btn primary">{t('users.invite_submit')}</button>
        </form>
      </section>
    </Layout>
  );
}

export function AuditPage({ ctx, events, type, nextBefore }: { ctx: PageContext; events: AuditRow[]; type: string; nextBefore: number | null }) {
  const { t } = ctx;
  const types = ['', ...AUDIT_TYPES];
  return (
    <Layout ctx={ctx} title={t('audit.title')} wide>
      <div class="page-head">
        <h1>{t('audit.title')}</h1>
        <form method="get" action="/audit" class="filters">
          <label for="f-type">{t('audit.type')}</label>
          <select id="f-type" name="type" data-autosubmit>
            {types.map((x) => <option value={x} selected={type === x}>{x ? t(`audit.entity.${x}` as MessageKey) : t('audit.all')}</option>)}
          </select>
          <noscript><button class="btn small" type="submit">{t('action.filter')}</button></noscript>
        </form>
      </div>
      <AuditList ctx={ctx} events={events} />
      {nextBefore !== null && <p><a class="btn ghost small" href={`/audit?before=${nextBefore}${type ? `&type=${type}` : ''}`}>{t('action.older')}</a></p>}
    </Layout>
  );
}
