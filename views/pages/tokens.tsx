// A user's API tokens: create (shown once), list, revoke.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, FormError } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { TokenRow } from '../../server/api/tokens.ts';
import { LIMITS } from '../../server/limits.ts';

export function TokensPage({ ctx, tokens, created, origin, errors }: { ctx: PageContext; tokens: TokenRow[]; created?: string; origin?: string; errors?: FieldErrors }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t('tokens.title')}>
      <h1>{t('tokens.title')}</h1>
      <p class="lead">{t('tokens.lead')}</p>
      {created && (
        <div class="card highlight" role="status">
          <label for="new-token"><strong>{t('tokens.created')}</strong></label>
          <input id="new-token" class="mono" readOnly value={created} data-select-on-focus />
          <p class="hint">{t('tokens.once')}</p>
          <pre class="mono example">{`curl -X POST -H "Authorization: Bearer $GOLDSET_TOKEN" -H "Content-Type: application/json" \\
  -d '[{"user_input": "…", "response": "…", "retrieved_contexts": ["…"], "system": "rag-v2"}]' \\
  ${origin ?? ''}/api/v1/datasets/<id>/responses`}</pre>
        </div>
      )}
      {tokens.length > 0 && (
        <table class="table">
          <thead><tr><th scope="col">{t('field.name')}</th><th scope="col">{t('tokens.prefix')}</th><th scope="col">{t('tokens.last_used')}</th><th scope="col"><span class="sr-only">{t('users.actions')}</span></th></tr></thead>
          <tbody>
            {tokens.map((k) => (
              <tr class={k.revoked_at ? 'muted' : ''}>
                <td>{k.name}</td>
                <td class="mono">gs_{k.prefix}_…</td>
                <td class="sub nowrap">{k.last_used_at?.slice(0, 16).replace('T', ' ') ?? '—'}</td>
                <td>{k.revoked_at ? <span class="badge">{t('tokens.revoked')}</span> : (
                  <form method="post" action={`/tokens/${k.id}/revoke`} class="inline">
                    <Csrf token={ctx.csrfToken} />
                    <button class="btn small" type="submit">{t('tokens.revoke')}</button>
                  </form>
                )}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <section class="card">
        <h2>{t('tokens.new')}</h2>
        <form method="post" action="/tokens" novalidate>
          <Csrf token={ctx.csrfToken} />
          <FormError errors={errors} />
          <Field name="name" label={t('field.name')} errors={errors} hint={t('tokens.name_hint')}>
            <input id="f-name" name="name" required maxLength={LIMITS.tokenName} />
          </Field>
          <button class="btn primary" type="submit">{t('tokens.create')}</button>
        </form>
      </section>
    </Layout>
  );
}
