import { describe, expect, it } from 'vitest';
import { h } from 'preact';
import { render } from 'preact-render-to-string';
import { escapeHtml, rawHtml } from '../../server/http/html.ts';

describe('escapeHtml', () => {
  it('escapes a script tag so that it is shown, not run', () => {
    expect(escapeHtml('<script>alert(1)</script>')).toBe('&lt;script>alert(1)&lt;/script>');
  });

  it('escapes quotes and ampersands, entities included', () => {
    expect(escapeHtml('say "hi" & <b>bye</b> &amp;')).toBe('say &quot;hi&quot; &amp; &lt;b>bye&lt;/b> &amp;amp;');
  });

  it('leaves text without special characters as it is, Chinese included', () => {
    expect(escapeHtml('年假 annual leave > 3 days')).toBe('年假 annual leave > 3 days');
    expect(escapeHtml('')).toBe('');
  });

  it('gives what a view renders for the same text, as text and as an attribute value', () => {
    const text = `<img src=x onerror="alert('x')"> & 测试 "q" <`;
    expect(escapeHtml(text)).toBe(render(h('p', null, text)).slice(3, -4));
    expect(`<p title="${escapeHtml(text)}"></p>`).toBe(render(h('p', { title: text })));
  });

  it('is put into an element unchanged by rawHtml', () => {
    expect(render(h('p', { dangerouslySetInnerHTML: rawHtml(escapeHtml('<b>&')) }))).toBe('<p>&lt;b>&amp;</p>');
  });
});
