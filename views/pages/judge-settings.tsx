// The judge's endpoint settings (admins): presets, models, limits; the key is never shown back.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, Field, FormError } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import type { PublicJudgeSettings } from '../../server/judge/settings.ts';
import { findPreset, presets } from '../../server/llm/presets.ts';
import type { TestConnectionResult } from '../../server/llm/client.ts';


function Outcome({ ctx, result, what }: { ctx: PageContext; result: TestConnectionResult; what: 'chat' | 'embeddings' }) {
  const { t } = ctx;
  return (
    <p class={result.ok ? 'conn-ok' : 'conn-bad'}>
      <strong>{t(what === 'chat' ? 'fh.conn_chat' : 'fh.conn_embeddings')}</strong>{' '}
      {result.ok ? t('judge.connection_ok', { model: result.model })
        // The headline in the user's language; under it the facts as the endpoint gave them (status, its own words, an error code).
        : <><strong>{t(`judge.conn_${result.kind}`)}</strong> <span class="sub">{[result.status === undefined ? '' : `HTTP ${result.status}`, result.detail ?? ''].filter(Boolean).join(' · ')}</span></>}
    </p>
  );
}

export function ConnectionResult({ ctx, result, embeddings = null, embeddingMetrics = [], keyWithheld = false }: {
  ctx: PageContext; result: TestConnectionResult; embeddings?: TestConnectionResult | null; embeddingMetrics?: string[];
  /** The stored key was not sent: the form named another URL than the one it was saved with. */
  keyWithheld?: boolean;
}) {
  const { t } = ctx;
  const ok = result.ok && (embeddings === null || embeddings.ok);
  return (
    <div id="connection-result" class={ok ? 'flash' : 'alert'} role="status">
      <Outcome ctx={ctx} result={result} what="chat" />
      {embeddings ? <Outcome ctx={ctx} result={embeddings} what="embeddings" />
        : embeddingMetrics.length > 0 && <p class="sub">{t('fh.conn_no_embedding_model', { metrics: embeddingMetrics.join(', ') })}</p>}
      {keyWithheld && <p class="sub">{t('judge.key_withheld')}</p>}
    </div>
  );
}

export function JudgeSettingsPage({ ctx, settings, errors }: { ctx: PageContext; settings: PublicJudgeSettings; errors?: FieldErrors }) {
  const { t } = ctx;
  const s = settings;
  const chosen = findPreset(s.preset);
  return (
    <Layout ctx={ctx} title={t('judge.settings_title')}>
      <h1>{t('judge.settings_title')}</h1>
      <p class="lead">{t('judge.settings_lead')}</p>
      {s.source === 'environment' && <p class="hint">{t('judge.from_env')}</p>}
      <form method="post" action="/settings/judge" class="card" novalidate id="judge-form">
        <Csrf token={ctx.csrfToken} />
        <input type="hidden" name="version" value={s.version} />
        <FormError errors={errors} />
        <Field name="preset" label={t('judge.preset')} errors={errors} hint={t('judge.preset_hint')}
          note={chosen ? t(`judge.preset_note_${chosen.id}`) : ''}>
          <select id="f-preset" name="preset" data-preset-select>
            <option value="custom" selected={s.preset === 'custom'} data-note="">{t('judge.preset_custom')}</option>
            {presets.map((p) => (
              <option value={p.id} selected={s.preset === p.id} data-base-url={p.baseURL} data-chat-model={p.chatModel}
                data-embedding-model={p.embeddingModel} data-structured={p.structuredOutput} data-note={t(`judge.preset_note_${p.id}`)}>{t(`judge.preset_${p.id}`)}</option>
            ))}
          </select>
        </Field>
        <Field name="base_url" label={t('judge.base_url')} errors={errors} hint={s.url_has_credentials ? t('judge.url_credentials_hidden') : undefined}>
          <input id="f-base_url" name="base_url" type="url" required value={s.base_url} placeholder="https://api.openai.com/v1" />
        </Field>
        <Field name="api_key" label={t('judge.api_key')} errors={errors} hint={s.api_key_set ? t('judge.key_set_bound') : t('judge.key_not_set')}>
          <input id="f-api_key" name="api_key" type="password" autocomplete="off" value="" placeholder={s.api_key_set ? '••••••••' : ''} />
        </Field>
        {s.api_key_set && <div class="field checkbox"><input id="f-clear_key" type="checkbox" name="clear_key" value="1" /><label for="f-clear_key">{t('judge.clear_key')}</label></div>}
        <div class="row">
          <Field name="chat_model" label={t('judge.chat_model')} errors={errors}>
            <input id="f-chat_model" name="chat_model" required value={s.chat_model} />
          </Field>
          <Field name="embedding_model" label={t('judge.embedding_model')} errors={errors} hint={t('judge.embedding_hint')}>
            <input id="f-embedding_model" name="embedding_model" value={s.embedding_model} />
          </Field>
        </div>
        <div class="row">
          <Field name="temperature" label={t('judge.temperature')} errors={errors}>
            <input id="f-temperature" name="temperature" type="number" min="0" max="2" step="0.1" value={s.temperature} />
          </Field>
          <Field name="timeout_ms" label={t('judge.timeout')} errors={errors}>
            <input id="f-timeout_ms" name="timeout_ms" type="number" min="1000" max="600000" step="1000" value={s.timeout_ms} />
          </Field>
          <Field name="max_concurrency" label={t('judge.concurrency')} errors={errors}>
            <input id="f-max_concurrency" name="max_concurrency" type="number" min="1" max="256" value={s.max_concurrency} />
          </Field>
        </div>
        <div class="row">
          <Field name="structured_output" label={t('judge.structured')} errors={errors} hint={t('judge.structured_hint')}>
            <select id="f-structured_output" name="structured_output">
              <option value="json_schema" selected={s.structured_output === 'json_schema'}>json_schema</option>
              <option value="json_object" selected={s.structured_output === 'json_object'}>json_object</option>
            </select>
          </Field>
          <Field name="price_prompt" label={t('judge.price_prompt')} errors={errors}>
            <input id="f-price_prompt" name="price_prompt" type="number" min="0" step="0.01" value={s.price_prompt} />
          </Field>
          <Field name="price_completion" label={t('judge.price_completion')} errors={errors}>
            <input id="f-price_completion" name="price_completion" type="number" min="0" step="0.01" value={s.price_completion} />
          </Field>
        </div>
        <div class="actions">
          <button type="submit" class="btn primary">{t('action.save')}</button>
          <button type="button" class="btn" hx-post="/settings/judge/test" hx-include="#judge-form" hx-target="#connection-result" hx-swap="outerHTML">{t('judge.test')}</button>
        </div>
        <div id="connection-result" aria-live="polite"></div>
      </form>
    </Layout>
  );
}
