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
 * A count's words, chosen by the count (ICU MessageFormat's plural argument, the subset goldset uses):
 * `{n, plural, one {# item} other {# items}}`. A branch is a category of the language's plural rules
 * (English: one, other; Chinese has only other, so its messages write none);
 * `#` in the branch is the count as given, and a branch may hold other values (`{name}`).
 */
const PLURAL_START = /\{(\w+), plural,/g;

/** A message cut at its plural arguments, once: text, and arguments whose branches are cut at `#`. */
type Part = string | { name: string; branches: Map<string, string[]> };

function pluralParts(text: string): Part[] {
  const parts: Part[] = [];
  let from = 0;
  for (const start of text.matchAll(PLURAL_START)) {
    if (start.index < from) continue;
    const { branches, end } = pluralBranches(text, start.index + start[0].length);
    if (!branches.has('other')) throw new Error(`plural {${start[1]}} has no "other" branch: ${text}`);
    parts.push(text.slice(from, start.index), { name: start[1]!, branches: new Map([...branches].map(([k, v]) => [k, v.split('#')])) });
    from = end;
  }
  parts.push(text.slice(from));
  return parts;
}

/** The text of a message with every plural argument replaced by its branch for the given counts. */
function choosePlurals(parts: Part[], params: Params, rules: Intl.PluralRules, missing: (name: string) => string): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') { out += part; continue; }
    if (!(part.name in params)) { out += missing(part.name); continue; }
    const value = params[part.name]!;
    const count = typeof value === 'number' ? value : Number(String(value).replace(/[,\s]/g, ''));
    out += (part.branches.get(Number.isFinite(count) ? rules.select(count) : 'other') ?? part.branches.get('other')!).join(String(value));
  }
  return out;
}

/** The branches of a plural argument whose selectors start at `at`, and the index just after its closing brace. */
function pluralBranches(text: string, at: number): { branches: Map<string, string>; end: number } {
  const branches = new Map<string, string>();
  let i = at;
  for (;;) {
    while (text[i] === ' ') i++;
    if (text[i] === '}') return { branches, end: i + 1 };
    const selector = /^(zero|one|two|few|many|other) ?\{/.exec(text.slice(i, i + 8));
    if (!selector) throw new Error(`malformed plural at ${i}: ${text}`);
    i += selector[0].length;
    let depth = 1;
    const open = i;
    for (; depth > 0; i++) {
      if (i >= text.length) throw new Error(`unclosed plural branch: ${text}`);
      if (text[i] === '{') depth++;
      else if (text[i] === '}') depth--;
    }
    branches.set(selector[1]!, text.slice(open, i - 1));
  }
}

/**
 * A message given without one of its values would show "{limit}" to the user. With
 * GOLDSET_STRICT_MESSAGES=1 (the tests: vitest.config.ts) such a call throws, failing the test that
 * renders it; in use the placeholder is left as it is rather than failing a page.
 */
const STRICT = process.env.GOLDSET_STRICT_MESSAGES === '1';

function makeTranslator(locale: Locale, messages: Record<MessageKey, string>): T {
  const rules = new Intl.PluralRules(locale === 'zh' ? 'zh-CN' : 'en');
  // Parsed when the translator is made: a malformed plural fails at start-up, not on a page.
  const counted = new Map((Object.keys(messages) as MessageKey[]).filter((key) => messages[key].includes(', plural,'))
    .map((key) => [key, pluralParts(messages[key])]));
  const missing = (key: MessageKey, name: string) => {
    if (STRICT) throw new Error(`message ${key} was given no value for {${name}}`);
    return `{${name}}`;
  };
  return (key, params) => {
    const parts = counted.get(key);
    const text = parts ? choosePlurals(parts, params ?? {}, rules, (name) => missing(key, name)) : messages[key];
    if (!params) return STRICT ? text.replace(PLACEHOLDER, (_m, name: string) => missing(key, name)) : text;
    return text.replace(PLACEHOLDER, (_m, name: string) => (name in params ? String(params[name]) : missing(key, name)));
  };
}

// One translator per language, made once: every request gets one, and views may cache what they
// render per translator.
const translators: Record<Locale, T> = { en: makeTranslator('en', en), zh: makeTranslator('zh', zh) };

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
