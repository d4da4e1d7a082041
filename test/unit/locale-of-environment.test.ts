// The command line's language (server/config.ts cliLocale): GOLDSET_LANG, else the environment's locale as
// POSIX programs read it (the first of LC_ALL, LC_MESSAGES, LANG that is set), else English.
import { describe, expect, it } from 'vitest';
import { localeOfEnvironment } from '../../server/i18n/index.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';

describe('localeOfEnvironment', () => {
  it('takes the first of LC_ALL, LC_MESSAGES and LANG that is set; zh_* is Chinese, anything else English', () => {
    expect(localeOfEnvironment({})).toBe('en');
    expect(localeOfEnvironment({ LANG: 'zh_CN.UTF-8' })).toBe('zh');
    expect(localeOfEnvironment({ LANG: 'zh_TW.UTF-8' })).toBe('zh');
    expect(localeOfEnvironment({ LANG: 'C.UTF-8' })).toBe('en');
    expect(localeOfEnvironment({ LC_MESSAGES: 'zh_CN.UTF-8', LANG: 'en_US.UTF-8' })).toBe('zh');
    expect(localeOfEnvironment({ LC_ALL: 'C', LC_MESSAGES: 'zh_CN.UTF-8', LANG: 'zh_CN.UTF-8' })).toBe('en');
    expect(localeOfEnvironment({ LC_ALL: '', LC_MESSAGES: '', LANG: 'zh_CN.UTF-8' }), 'an empty variable is not set').toBe('zh');
  });

  it('is overridden by GOLDSET_LANG, which must be en or zh', () => {
    expect(loadConfig({ LANG: 'zh_CN.UTF-8' }).cliLocale).toBe('zh');
    expect(loadConfig({ LANG: 'zh_CN.UTF-8', GOLDSET_LANG: 'en' }).cliLocale).toBe('en');
    expect(loadConfig({ LANG: 'C.UTF-8', GOLDSET_LANG: 'zh' }).cliLocale).toBe('zh');
    expect(() => loadConfig({ GOLDSET_LANG: 'fr' })).toThrow(ConfigError);
  });
});
