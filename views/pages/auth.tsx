// First-run setup, login and invitation pages.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, FormError } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import { LIMITS } from '../../server/limits.ts';

interface Values { email?: string; name?: string }

export function SetupPage({ ctx, values = {}, errors }: { ctx: PageContext; values?: Values; errors?: FieldErrors }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t('setup.title')}>
      <section class="card narrow">
        <h1>{t('setup.title')}</h1>
        <p class="lead">{t('setup.lead')}</p>
        <form method="post" action="/setup" novalidate>
          <Csrf token={ctx.csrfToken} />
          <FormError errors={errors} />
          <Field name="email" label={t('field.email')} errors={errors}>
            <input id="f-email" name="email" type="email" autocomplete="username" required value={values.email ?? ''} autofocus />
          </Field>
          <Field name="name" label={t('field.name')} errors={errors}>
            <input id="f-name" name="name" autocomplete="name" value={values.name ?? ''} />
          </Field>
          <Field name="password" label={t('field.password')} errors={errors} hint={t('hint.password', { limit: LIMITS.passwordMin })}>
            <input id="f-password" name="password" type="password" autocomplete="new-password" required minLength={LIMITS.passwordMin} maxLength={LIMITS.password} />
          </Field>
          <button type="submit" class="btn primary">{t('setup.submit')}</button>
        </form>
      </section>
    </Layout>
  );
}

export function LoginPage({ ctx, email = '', next = '', errors }: { ctx: PageContext; email?: string; next?: string; errors?: FieldErrors }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t('login.title')}>
      <section class="card narrow">
        <h1>{t('login.title')}</h1>
        <form method="post" action="/login" novalidate>
          <Csrf token={ctx.csrfToken} />
          <input type="hidden" name="next" value={next} />
          <FormError errors={errors} />
          <Field name="email" label={t('field.email')} errors={errors}>
            <input id="f-email" name="email" type="email" autocomplete="username" required value={email} autofocus />
          </Field>
          <Field name="password" label={t('field.password')} errors={errors}>
            <input id="f-password" name="password" type="password" autocomplete="current-password" required />
          </Field>
          <button type="submit" class="btn primary">{t('login.submit')}</button>
        </form>
      </section>
    </Layout>
  );
}

export function InvitePage({ ctx, token, email, errors }: { ctx: PageContext; token: string; email: string; errors?: FieldErrors }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t('invite.title')}>
      <section class="card narrow">
        <h1>{t('invite.title')}</h1>
        <p class="lead">{t('invite.lead', { email })}</p>
        <form method="post" action={`/invite/${encodeURIComponent(token)}`} novalidate>
          <Csrf token={ctx.csrfToken} />
          <FormError errors={errors} />
          <Field name="password" label={t('field.password')} errors={errors} hint={t('hint.password', { limit: LIMITS.passwordMin })}>
            <input id="f-password" name="password" type="password" autocomplete="new-password" required minLength={LIMITS.passwordMin} maxLength={LIMITS.password} autofocus />
          </Field>
          <button type="submit" class="btn primary">{t('invite.submit')}</button>
        </form>
      </section>
    </Layout>
  );
}
