// HTTP for the judge's endpoint settings and the "test connection" button. Admins only.
import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { parseForm, sentValues } from '../http/forms.ts';
import { pageContext } from '../http/page.ts';
import { sendDocument, sendHtml } from '../http/render.ts';
import { requireRole } from '../http/security.ts';
import { ConnectionResult, JudgeSettingsPage } from '../../views/pages/judge-settings.tsx';
import { endpointOf, JudgeSettingsConflict, JudgeSettingsError } from './settings.ts';
import { redactUrl, urlHasCredentials } from '../redact.ts';
import { BUILTIN_METRICS } from './metrics/index.ts';
import { LIMITS } from '../limits.ts';

const num = (min: number, max: number) => z.coerce.number({ error: 'err.invalid' }).min(min, { error: 'err.invalid' }).max(max, { error: 'err.invalid' });

const SettingsForm = z.object({
  preset: z.enum(['custom', 'openai', 'dashscope', 'ollama', 'vllm']).catch('custom'),
  base_url: z.string().trim().min(1, { error: 'err.required' }).pipe(z.url({ protocol: /^https?$/, error: 'err.url' })),
  api_key: z.string().trim().max(500).default(''),
  clear_key: z.literal('1').optional(),
  chat_model: z.string().trim().min(1, { error: 'err.required' }).max(LIMITS.system, { error: 'err.too_long' }),
  embedding_model: z.string().trim().max(LIMITS.system, { error: 'err.too_long' }).default(''),
  temperature: num(0, 2),
  timeout_ms: num(1000, 600_000).pipe(z.number().int()),
  max_concurrency: num(1, 256).pipe(z.number().int()),
  structured_output: z.enum(['json_schema', 'json_object']),
  price_prompt: num(0, 10_000),
  price_completion: num(0, 10_000),
  // The version of the settings the form showed (0: none stored yet).
  version: z.coerce.number().int().min(0).catch(0),
});

export function judgeSettingsRoutes(app: AppContext): Router {
  const r = Router();
  const admin = requireRole('admin', app.log);
  /** The built-in metrics that cannot run without an embedding model. */
  const registryEmbeddingMetrics = () => Object.values(BUILTIN_METRICS).filter((m) => m.uses_embeddings).map((m) => m.key);

  r.get('/settings/judge', admin, (req, res) => {
    sendDocument(res, JudgeSettingsPage({ ctx: pageContext(req), settings: app.judgeSettings.public() }));
  });

  r.post('/settings/judge', admin, (req, res) => {
    const form = parseForm(SettingsForm, req.body, req.t);
    // What was typed comes back, but never a credential: the URL redacted, the key field empty. After a
    // conflict the form is put on top of the version saved meanwhile (`version`); saving again is then a decision taken knowing it.
    // A key that was typed is not shown again either: the form says so beside its field, or saving again would keep the stored one.
    const keyTyped = typeof req.body?.api_key === 'string' && req.body.api_key.trim() !== '';
    const typedUrl = String(req.body?.base_url ?? '');
    const rerender = (errors: Record<string, string>, status = 422, version?: number) => sendDocument(res, JudgeSettingsPage({ ctx: pageContext(req),
      settings: { ...app.judgeSettings.public(), ...sentValues(req.body), base_url: redactUrl(typedUrl), url_has_credentials: urlHasCredentials(typedUrl), ...(version === undefined ? {} : { version }) },
      errors: keyTyped ? { api_key: req.t('judge.key_retype'), ...errors } : errors }), status);
    if (!form.ok) return rerender(form.errors);
    try {
      app.judgeSettings.save(req.user!.id, { ...form.data, clear_key: form.data.clear_key === '1' });
    } catch (err) {
      if (err instanceof JudgeSettingsError) return rerender({ [err.field]: req.t(err.key) });
      if (err instanceof JudgeSettingsConflict) {
        app.log.warn('judge.settings_conflict', { user: req.user!.id });
        return rerender({ _form: req.t('judge.err_conflict', { model: err.current.chat_model, url: err.current.base_url }) }, 409, err.current.version);
      }
      throw err;
    }
    app.log.info('judge.settings_saved', { user: req.user!.id, base_url: redactUrl(form.data.base_url), model: form.data.chat_model });
    req.session.flash = req.t('flash.saved');
    res.redirect(303, '/settings/judge');
  });

  r.post('/settings/judge/test', admin, async (req, res) => {
    const ctx = pageContext(req);
    const form = SettingsForm.safeParse(req.body);
    if (!form.success) return sendHtml(res, ConnectionResult({ ctx, result: { ok: false, kind: 'other', message: req.t('judge.fill_form') } }), 422);
    let endpoint;
    try {
      endpoint = endpointOf({ ...form.data, clear_key: form.data.clear_key === '1' }, app.judgeSettings.effective());
    } catch (err) {
      if (!(err instanceof JudgeSettingsError)) throw err;
      return sendHtml(res, ConnectionResult({ ctx, result: { ok: false, kind: 'other', message: req.t(err.key) } }), 422);
    }
    // The stored key goes only to the URL it was saved with (endpointOf); a new URL is tried without it.
    const { clear_key: _clear, ...settings } = form.data;
    const client = app.judgeSettings.clientFor({ ...settings, base_url: endpoint.base_url, api_key: endpoint.api_key });
    const result = await client.testConnection();
    // answer_correctness and answer_relevancy need the embedding model too: test it when one is set, and say so when none is.
    const embeddings = form.data.embedding_model ? await client.testEmbeddings() : null;
    app.log.info('judge.connection_test', { ok: result.ok, kind: result.ok ? null : result.kind, embeddings_ok: embeddings?.ok ?? null,
      base_url: redactUrl(endpoint.base_url), key_withheld: endpoint.keyWithheld });
    sendHtml(res, ConnectionResult({ ctx, result, embeddings, embeddingMetrics: registryEmbeddingMetrics(), keyWithheld: endpoint.keyWithheld }));
  });

  return r;
}
