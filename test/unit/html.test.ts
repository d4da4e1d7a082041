import { describe, expect, it } from 'vitest';
import { h, type VNode } from 'preact';
import { render } from 'preact-render-to-string';
import { escapeHtml, rawHtml, renderedHtml } from '../../server/http/html.ts';

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

  it('is put into a view unchanged by rawHtml, without a wrapping element', () => {
    expect(render(h('p', null, 'a', rawHtml(escapeHtml('<b>&')), h('i', null, 'c')))).toBe('<p>a&lt;b>&amp;<i>c</i></p>');
  });

  it('comes out of renderedHtml as the view renders it, escaped', () => {
    const node = h('p', { class: '"x"' }, '<script>') as VNode;
    expect(renderedHtml(node)).toBe(render(node));
    expect(render(h('div', null, rawHtml(renderedHtml(node))))).toBe(`<div>${render(node)}</div>`);
  });
});
