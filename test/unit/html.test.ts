import { describe, expect, it } from 'vitest';
import { jsx, renderHtml } from '../../views/jsx-runtime.ts';
import { escapeHtml, rawHtml, renderedHtml } from '../../server/http/html.ts';

const h = (tag: string, props: Record<string, unknown> | null, ...children: unknown[]) => jsx(tag, { ...props, children });

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
    expect(escapeHtml(text)).toBe(renderHtml(h('p', null, text)).slice(3, -4));
    expect(`<p title="${escapeHtml(text)}"></p>`).toBe(renderHtml(h('p', { title: text })));
  });

  it('is put into a view unchanged by rawHtml, without a wrapping element', () => {
    expect(renderHtml(h('p', null, 'a', rawHtml(escapeHtml('<b>&')), h('i', null, 'c')))).toBe('<p>a&lt;b>&amp;<i>c</i></p>');
  });

  it('comes out of renderedHtml as the view renders it, escaped', () => {
    const node = h('p', { class: '"x"' }, '<script>');
    expect(renderedHtml(node)).toBe('<p class="&quot;x&quot;">&lt;script></p>');
    expect(renderHtml(h('div', null, rawHtml(renderedHtml(node))))).toBe(`<div>${renderHtml(node)}</div>`);
  });

  it('cannot be faked: a string that looks like markup stays text, and any other object is refused', () => {
    expect(renderHtml(h('p', null, '<b>x</b>'))).toBe('<p>&lt;b>x&lt;/b></p>');
    expect(() => h('p', null, { html: '<b>', toString: () => '<b>' })).toThrow(TypeError);
    expect(() => h('p', { title: { toString: () => '"><script>' } })).toThrow(TypeError);
  });
});
