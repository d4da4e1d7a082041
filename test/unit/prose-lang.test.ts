// The language of a person's own words, which nobody declared: what `lang` a page gives them.
import { describe, expect, it } from 'vitest';
import { proseLang } from '../../views/components.tsx';

describe('proseLang', () => {
  it('says Chinese for Chinese text, English for English text', () => {
    expect(proseLang('回答与上下文中的制度不一致。')).toBe('zh-CN');
    expect(proseLang('The answer contradicts the policy in the context.')).toBe('en');
  });

  it('goes by what most of the words are: a Chinese sentence with English terms is Chinese, an English one with a Chinese term English', () => {
    expect(proseLang('答案说 annual leave 是 15 天')).toBe('zh-CN');
    expect(proseLang('评测模型没有考虑 context_precision 的定义')).toBe('zh-CN');
    expect(proseLang('The answer says 年假 is 15 days')).toBe('en');
  });

  it('counts characters outside the Basic Multilingual Plane and the compatibility ideographs as Chinese', () => {
    expect(proseLang('𠀋𠀋𠀋')).toBe('zh-CN');
    expect(proseLang('﨑')).toBe('zh-CN');
  });

  it('says English for text with no letters of either kind', () => {
    for (const text of ['', '42', '—', '…', '0.85 / 1']) expect(proseLang(text)).toBe('en');
  });
});
