// The judge's endpoint: what an admin saved in the app, else the environment. The API key is stored
// server-side and leaves this module only inside the client configuration, never towards a view.
import type { DB } from '../db/connection.ts';
import type { Config } from '../config.ts';
import type { AuditQueries } from '../audit/queries.ts';
import { createJudgeClient, type CallCache, type JudgeClient, type JudgeClientConfig } from '../llm/client.ts';
import { findPreset } from '../llm/presets.ts';
import type { MessageKey } from '../i18n/index.ts';
import { redactUrl, urlHasCredentials } from '../redact.ts';

export interface JudgeSettingsRow {
  preset: string;
  base_url: string;
  api_key: string;
  chat_model: string;
  embedding_model: string;
  temperature: number;
  timeout_ms: number;
  max_concurrency: number;
  structured_output: 'json_schema' | 'json_object';
  price_prompt: number;
  price_completion: number;
  /** Counted up by every save; 0 for settings from the environment or none (nothing stored yet). */
  version: number;
}

/** What views may see: everything but the key, which is only reported as set or not; the base URL without credentials. */
export type PublicJudgeSettings = Omit<JudgeSettingsRow, 'api_key'> & { api_key_set: boolean; source: 'app' | 'environment' | 'none'; url_has_credentials: boolean };

/** A settings form the app cannot accept as it is; `key` is the message shown beside `field`. */
export class JudgeSettingsError extends Error {
  constructor(readonly field: 'base_url' | 'api_key', readonly key: MessageKey) { super(key); }
}

/** Someone saved the settings since the form was read; `current` is what they saved (as views may see it). */
export class JudgeSettingsConflict extends Error {
  constructor(readonly current: PublicJudgeSettings) { super('conflict'); }
}

/** The endpoint a form means: its base URL and the key to send there. */
export interface Endpoint { base_url: string; api_key: string; keyWithheld: boolean }

/**
 * The stored key is only ever sent to the base URL it was saved with. A form shows the stored URL
 * with its credentials redacted; sent back unchanged, it means the stored URL. Any other URL gets
 * only the key typed with it: `keyWithheld` says a stored key was not carried over.
 */
export function endpointOf(form: { base_url: string; api_key: string; clear_key: boolean }, stored: { base_url: string; api_key: string } | null): Endpoint {
  const same = stored !== null && (form.base_url === stored.base_url || form.base_url === redactUrl(stored.base_url));
  if (!same && form.base_url.includes('[redacted]')) throw new JudgeSettingsError('base_url', 'judge.err_url_redacted');
  const base_url = same ? stored.base_url : form.base_url;
  const carried = same && !form.clear_key ? stored.api_key : '';
  return { base_url, api_key: form.clear_key ? '' : form.api_key || carried, keyWithheld: !same && !form.api_key && !form.clear_key && (stored?.api_key ?? '') !== '' };
}

export function judgeSettings(db: DB, config: Config, audit: AuditQueries) {
  const get = db.prepare<[], JudgeSettingsRow>('SELECT * FROM judge_setting WHERE id = 1');
  const upsert = db.prepare(`INSERT INTO judge_setting (id, preset, base_url, api_key, chat_model, embedding_model, temperature, timeout_ms,
      max_concurrency, structured_output, price_prompt, price_completion)
    VALUES (1, @preset, @base_url, @api_key, @chat_model, @embedding_model, @temperature, @timeout_ms, @max_concurrency, @structured_output,
      @price_prompt, @price_completion)
    ON CONFLICT (id) DO UPDATE SET preset = excluded.preset, base_url = excluded.base_url, api_key = excluded.api_key,
      chat_model = excluded.chat_model, embedding_model = excluded.embedding_model, temperature = excluded.temperature,
      timeout_ms = excluded.timeout_ms, max_concurrency = excluded.max_concurrency, structured_output = excluded.structured_output,
      price_prompt = excluded.price_prompt, price_completion = excluded.price_completion, version = judge_setting.version + 1,
      updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`);
  const cacheGet = db.prepare<[string]>('SELECT value FROM llm_cache WHERE key = ?').pluck();
  const cacheSet = db.prepare('INSERT OR IGNORE INTO llm_cache (key, value) VALUES (?, ?)');
  const cache: CallCache = { get: (k) => cacheGet.get(k) as string | undefined, set: (k, v) => { cacheSet.run(k, v); } };

  function effective(): (JudgeSettingsRow & { source: 'app' | 'environment' }) | null {
    const row = get.get();
    if (row) return { ...row, source: 'app' };
    const env = config.judge;
    if (!env.baseURL || !env.chatModel) return null;
    const preset = findPreset('openai');
    return {
      preset: 'custom', base_url: env.baseURL, api_key: env.apiKey ?? '', chat_model: env.chatModel, embedding_model: env.embeddingModel ?? '',
      temperature: 0, timeout_ms: 60_000, max_concurrency: 16, structured_output: preset?.structuredOutput ?? 'json_schema',
      price_prompt: 0, price_completion: 0, version: 0, source: 'environment',
    };
  }

  function clientConfig(s: Omit<JudgeSettingsRow, 'version'>, overrides: Partial<JudgeClientConfig> = {}): JudgeClientConfig {
    return {
      baseURL: s.base_url, apiKey: s.api_key, chatModel: s.chat_model, embeddingModel: s.embedding_model, temperature: s.temperature,
      timeoutMs: s.timeout_ms, maxConcurrency: s.max_concurrency, structuredOutput: s.structured_output, maxRetries: 5,
      embeddingBatchSize: findPreset(s.preset)?.embeddingBatchSize ?? 64, ...overrides,
    };
  }

  return {
    cache,
    effective,
    public(): PublicJudgeSettings {
      const s = effective();
      if (!s) return { preset: 'custom', base_url: '', chat_model: '', embedding_model: '', temperature: 0, timeout_ms: 60_000, max_concurrency: 16,
        structured_output: 'json_schema', price_prompt: 0, price_completion: 0, version: 0, api_key_set: false, source: 'none', url_has_credentials: false };
      const { api_key, base_url, ...rest } = s;
      return { ...rest, base_url: redactUrl(base_url), api_key_set: api_key.length > 0, url_has_credentials: urlHasCredentials(base_url) };
    },
    /**
     * An empty api_key keeps the stored one (the form never shows it, so it cannot send it back),
     * but only for the URL it was saved with: a new URL with a stored key and no new one is refused.
     * `version` is the one the form showed (0: nothing stored): a save since then is a conflict.
     */
    save(actorId: number, input: Omit<JudgeSettingsRow, 'api_key' | 'version'> & { api_key: string; clear_key: boolean; version: number }): void {
      db.transaction(() => {
        const before = get.get();
        if ((before?.version ?? 0) !== input.version) throw new JudgeSettingsConflict(this.public());
        // Only a key saved in the app is carried over, never the environment's (it stays out of the database).
        const endpoint = endpointOf(input, before ?? null);
        if (endpoint.keyWithheld) throw new JudgeSettingsError('api_key', 'judge.err_key_again');
        const { clear_key: _clear, version: _version, ...row } = input;
        upsert.run({ ...row, base_url: endpoint.base_url, api_key: endpoint.api_key });
        const redacted = (r: JudgeSettingsRow | undefined) => (r ? { ...r, base_url: redactUrl(r.base_url), api_key: r.api_key ? 'set' : 'not set' } : null);
        audit.record({ actorId, entityType: 'judge_setting', entityId: 1, action: 'update', before: redacted(before), after: redacted(get.get()) });
      })();
    },
    client(overrides: Partial<JudgeClientConfig> = {}, log?: (event: string, fields: Record<string, unknown>) => void): JudgeClient | null {
      const s = effective();
      return s ? createJudgeClient(clientConfig(s, overrides), { cache, ...(log ? { log } : {}) }) : null;
    },
    /** A client for settings that are not saved yet (the "test connection" button). */
    clientFor(s: Omit<JudgeSettingsRow, 'version'>): JudgeClient {
      return createJudgeClient(clientConfig(s, { maxRetries: 0 }), {});
    },
    estimateCost(tokens: { prompt: number; completion: number }): number {
      const s = effective();
      return s ? (tokens.prompt * s.price_prompt + tokens.completion * s.price_completion) / 1e6 : 0;
    },
  };
}

export type JudgeSettings = ReturnType<typeof judgeSettings>;
