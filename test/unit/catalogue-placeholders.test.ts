// The message catalogue: every Chinese message takes the same values ({name}) as its English one, so a
// value given by the code is shown in both languages and no "{name}" is ever left in a page.
import { describe, expect, it } from 'vitest';
import { en } from '../../server/i18n/en.ts';
import { zh } from '../../server/i18n/zh.ts';

const placeholders = (text: string) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();

describe('message catalogue', () => {
  it('has the same keys in both languages, each Chinese message with the values of its English one', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    const differ = Object.keys(en).filter((k) => placeholders(en[k as keyof typeof en]).join() !== placeholders(zh[k as keyof typeof zh]).join());
    expect(differ.map((k) => `${k}: en {${placeholders(en[k as keyof typeof en]).join(', ')}} zh {${placeholders(zh[k as keyof typeof zh]).join(', ')}}`)).toEqual([]);
  });
});
