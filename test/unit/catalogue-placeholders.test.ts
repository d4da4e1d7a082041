// The message catalogue: every Chinese message takes the same values ({name}) as its English one, so a
// value given by the code is shown in both languages and no "{name}" is ever left in a page; and an
// English count is written with its plural argument, so that 1 is "1 item", not "1 items".
import { describe, expect, it } from 'vitest';
import { en } from '../../server/i18n/en.ts';
import { zh } from '../../server/i18n/zh.ts';
import { translator } from '../../server/i18n/index.ts';
import { englishCount } from '../../server/i18n/english-count.ts';

/** The values a message takes: its `{name}`s (in plural branches too) and the counts of its `{name, plural, …}`s. */
const placeholders = (text: string) => [...new Set([...flattenPlurals(text).matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();

/** `{n, plural, one {A} other {B}}` written as `{n} A B`: the count and its branches' texts, without the braces around them. */
function flattenPlurals(text: string): string {
  return text.replace(/\{(\w+), plural,((?:\s*\w+ ?\{(?:[^{}]|\{\w+\})*\})+)\s*\}/g,
    (_m, name: string, branches: string) => `{${name}} ${[...branches.matchAll(/\{((?:[^{}]|\{\w+\})*)\}/g)].map((b) => b[1]).join(' ')}`);
}

/** The message with every plural argument cut out (balanced braces), leaving the text around them. */
function withoutPlurals(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '{' || !/^\{\w+, plural,/.test(text.slice(i))) { out += text[i]; continue; }
    for (let depth = 0; i < text.length; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth === 0) break;
    }
  }
  return out;
}

// Words after a value that end in "s" without being a count's noun: verbs and pronouns of the
// catalogue's sentences ("{metric} is…", "#{id} in this…"); and verbs that are also nouns, which are
// verbs after a name ("{email} labels…", "{metric} judges…").
const NOT_PLURAL_NOUNS = new Set(['is', 'was', 'has', 'does', 'this', 'its', 'as', 'gives', 'holds', 'less', 'across', 'plus', 'minus']);
const VERBS_AFTER_A_NAME = new Set(['labels', 'judges', 'measures', 'adjudicates']);
const NAMES = new Set(['email', 'name', 'metric', 'criterion', 'field', 'item', 'tag', 'a', 'b']);
// Words between a value and a noun that make the noun not the value's ("{n} of this", "{a} and others").
const NOT_A_COUNT_BETWEEN = new Set(['of', 'in', 'at', 'and', 'or', 'to', 'for', 'on', 'from', 'with', 'by', 'is', 'was', 'has']);

/** "{value} noun" and "{value} word noun" in a message's text outside its plural arguments, where the noun is plural. */
function countsWithoutPlural(text: string): string[] {
  const rest = withoutPlurals(text);
  const plain = [...rest.matchAll(/\{(\w+)\} ([a-z]+s|criteria|people)\b/g)]
    .filter(([, value, noun]) => !NOT_PLURAL_NOUNS.has(noun!) && !(VERBS_AFTER_A_NAME.has(noun!) && NAMES.has(value!)));
  const described = [...rest.matchAll(/\{(\w+)\} ([a-z-]+) ([a-z]+s|criteria|people)\b/g)]
    .filter(([, value, between, noun]) => !NOT_PLURAL_NOUNS.has(noun!) && !NOT_A_COUNT_BETWEEN.has(between!) && !NOT_PLURAL_NOUNS.has(between!)
      && !(VERBS_AFTER_A_NAME.has(between!) && NAMES.has(value!)) && !(VERBS_AFTER_A_NAME.has(noun!) && NAMES.has(value!)));
  return [...plain, ...described].map((m) => m[0]);
}

describe('message catalogue', () => {
  it('has the same keys in both languages, each Chinese message with the values of its English one', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    const differ = Object.keys(en).filter((k) => placeholders(en[k as keyof typeof en]).join() !== placeholders(zh[k as keyof typeof zh]).join());
    expect(differ.map((k) => `${k}: en {${placeholders(en[k as keyof typeof en]).join(', ')}} zh {${placeholders(zh[k as keyof typeof zh]).join(', ')}}`)).toEqual([]);
  });

  it('writes every English count before a plural noun as a plural argument ("{n} items" shows "1 items")', () => {
    const bare = Object.entries(en).flatMap(([key, text]) => countsWithoutPlural(text).map((found) => `${key}: ${found}`));
    expect(bare).toEqual([]);
  });

  it('renders every plural argument for 0, 1, 2 and 1,000 (given as a number or as text)', () => {
    const t = translator('en');
    expect(t('fh.looks_so_far', { n: 1, metric: 'faithfulness' })).toContain('looked at 1 time for faithfulness');
    expect(t('fh.looks_so_far', { n: 2, metric: 'faithfulness' })).toContain('looked at 2 times for faithfulness');
    const counted = Object.entries(en).filter(([, text]) => text.includes(', plural,'));
    expect(counted.length).toBeGreaterThan(0);
    for (const [key, text] of counted) {
      const counts = [...text.matchAll(/\{(\w+), plural,/g)].map((m) => m[1]!);
      const others = Object.fromEntries(placeholders(text).map((name) => [name, 'X']));
      for (const n of [0, 1, 2, 1000, '1,000']) {
        const shown = t(key as keyof typeof en, { ...others, ...Object.fromEntries(counts.map((name) => [name, n])) });
        expect(shown, key).not.toMatch(/, plural,|\{\w+\}/);
        expect(shown, key).toContain(String(n));
        if (n === 1) expect(shown, key).not.toMatch(/\b1 [a-z]+s\b/);
      }
    }
  });
});

describe('English counts outside the catalogue', () => {
  it('names one thing in the singular and every other count in the plural', () => {
    expect([0, 1, 2, 1000].map((n) => englishCount(n, 'row'))).toEqual(['0 rows', '1 row', '2 rows', '1000 rows']);
    expect(englishCount(1, 'row differs', 'rows differ')).toBe('1 row differs');
    expect(englishCount(3, 'criterion', 'criteria')).toBe('3 criteria');
  });
});
