// The judge page's providers speak the page's language: their names' qualifiers ("compatible mode",
// "self-hosted") and each provider's note, which the page shows for the saved provider and which
// describes the provider select.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAs, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';
import { translator, type Locale } from '../../server/i18n/index.ts';
import { presets } from '../../server/llm/presets.ts';

let app: TestApp;
beforeAll(async () => { app = await startTestApp(); await setupAdmin(app); });
afterAll(async () => { await app.close(); });

const noteOf = (html: string) => /<p class="hint" id="f-preset-note" aria-live="polite">([^<]*)<\/p>/.exec(html)?.[1];

describe.each(['en', 'zh'] as Locale[])('the judge page in %s', (locale) => {
  const t = translator(locale);

  it('names every provider and carries its note in the page\'s language', async () => {
    const admin = await loginAs(app, `presets-${locale}@example.com`, 'admin', locale);
    const page = (await admin.get('/settings/judge')).text;
    for (const p of presets) {
      const option = new RegExp(`<option value="${p.id}"[^>]*>([^<]*)</option>`).exec(page);
      expect(option?.[1], p.id).toBe(t(`judge.preset_${p.id}`));
      expect(option?.[0]).toContain(`data-note="${t(`judge.preset_note_${p.id}`).replace(/"/g, '&quot;')}"`);
    }
    expect(page).toContain('aria-describedby="f-preset-hint f-preset-note"');
  });

  it('shows the saved provider\'s note, and none for another endpoint', async () => {
    const admin = await loginAs(app, `presets-${locale}@example.com`, 'admin', locale);
    const save = async (preset: string) => {
      const version = /name="version" value="(\d*)"/.exec((await admin.get('/settings/judge')).text)![1]!;
      const res = await admin.post('/settings/judge', { version, preset, base_url: 'http://127.0.0.1:9/v1', api_key: 'k', chat_model: 'm', embedding_model: '',
        temperature: 0, timeout_ms: 60000, max_concurrency: 4, structured_output: 'json_schema', price_prompt: 0, price_completion: 0 });
      expect(res.status).toBe(303);
      return (await admin.get('/settings/judge')).text;
    };
    expect(noteOf(await save('vllm'))).toBe(t('judge.preset_note_vllm').replace(/"/g, '&quot;'));
    expect(noteOf(await save('custom'))).toBe('');
  });
});

it('the providers\' notes differ between the languages (none left in English in the Chinese page)', () => {
  for (const p of presets.filter((p) => p.id !== 'openai')) expect(translator('zh')(`judge.preset_${p.id}`)).not.toBe(translator('en')(`judge.preset_${p.id}`));
  for (const p of presets) expect(translator('zh')(`judge.preset_note_${p.id}`)).not.toBe(translator('en')(`judge.preset_note_${p.id}`));
});
