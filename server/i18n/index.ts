// The message catalogue: every string a user sees comes from here, in English and 简体中文.
import { en, type MessageKey } from './en.ts';
import { zh } from './zh.ts';

export type Locale = 'en' | 'zh';
export type { MessageKey };
export type Params = Record<string, string | number>;
export type T = (key: MessageKey, params?: Params) => string;

export function isLocale(value: unknown): value is Locale {
  return value === 'en' || value === 'zh';
}

/** A value of a message, `{name}`; `{{answer}}` is text (a rubric's own placeholder, shown as it is written). */
const PLACEHOLDER = /(?<!\{)\{(\w+)\}(?!\})/g;

/**
 * A message given without one of its values would show "{limit}" to the user. With
 * GOLDSET_STRICT_MESSAGES=1 (the tests: vitest.config.ts) such a call throws, failing the test that
 * renders it; in use the placeholder is left as it is rather than failing a page.
 */
const STRICT = process.env.GOLDSET_STRICT_MESSAGES === '1';

function makeTranslator(messages: Record<MessageKey, string>): T {
  const missing = (key: MessageKey, name: string) => {
    if (STRICT) throw new Error(`message ${key} was given no value for {${name}}`);
    return `{${name}}`;
  };
  return (key, params) => {
    const text = messages[key];
    if (!params) return STRICT ? text.replace(PLACEHOLDER, (_m, name: string) => missing(key, name)) : text;
    return text.replace(PLACEHOLDER, (_m, name: string) => (name in params ? String(params[name]) : missing(key, name)));
  };
}

// One translator per language, made once: every request gets one, and views may cache what they
// render per translator.
const translators: Record<Locale, T> = { en: makeTranslator(en), zh: makeTranslator(zh) };

export function translator(locale: Locale): T {
  return translators[locale];
}

/**
 * The language of a process's environment, as POSIX programs pick their messages' language: the first
 * of LC_ALL, LC_MESSAGES and LANG that is set decides (zh_CN.UTF-8, zh_TW… are Chinese; C, en_US… English).
 */
export function localeOfEnvironment(env: Record<string, string | undefined>): Locale {
  const set = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v !== undefined && v !== '');
  return set !== undefined && /^zh/i.test(set) ? 'zh' : 'en';
}

/** The user's saved choice wins; otherwise the first of the browser's languages that goldset speaks. */
export function pickLocale(saved: string | null | undefined, acceptLanguage: string | undefined): Locale {
  if (isLocale(saved)) return saved;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag = '', ...rest] = part.trim().split(';');
      const q = rest.find((r) => r.trim().startsWith('q='));
      return { tag: tag.toLowerCase(), q: q ? Number(q.trim().slice(2)) || 0 : 1 };
    })
    .filter((x) => x.tag)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of ranked) {
    if (tag.startsWith('zh')) return 'zh';
    if (tag.startsWith('en')) return 'en';
  }
  return 'en';
}
