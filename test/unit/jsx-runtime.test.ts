// goldset's JSX runtime (views/jsx-runtime.ts) against the renderer the views used before it,
// preact-render-to-string, as the reference: random trees of the elements, attributes, values and
// children the views use give the same HTML byte for byte; and what the runtime refuses, it refuses.
import { describe, expect, it } from 'vitest';
import { h, Fragment as PreactFragment, type ComponentChildren } from 'preact';
import { jsxTemplate } from 'preact/jsx-runtime';
import { render } from 'preact-render-to-string';
import { Fragment, jsx, renderHtml, type Children, type Html } from '../../views/jsx-runtime.ts';
import { escapeHtml, rawHtml, type SafeHtml } from '../../server/http/html.ts';
import { createRng } from '../../server/stats/bootstrap.ts';

/** One tree, built twice: as preact nodes and as this runtime's markup. */
interface Both { preact: ComponentChildren; ours: Children }

const TAGS = ['div', 'p', 'span', 'a', 'li', 'ol', 'table', 'td', 'label', 'button', 'form', 'section', 'h1', 'kbd', 'mark', 'dialog', 'details', 'summary'];
const VOID_TAGS = ['input', 'br', 'hr', 'img', 'meta', 'link'];
// Attribute names as views write them: plain, hyphenated (htmx, aria, data), renamed, and camelCase DOM names.
const NAMES = ['id', 'class', 'className', 'href', 'title', 'name', 'type', 'value', 'for', 'htmlFor', 'role', 'hidden', 'checked', 'disabled',
  'selected', 'required', 'novalidate', 'hx-post', 'hx-target', 'hx-swap', 'hx-trigger', 'aria-label', 'aria-hidden', 'aria-describedby',
  'aria-current', 'data-key', 'data-response', 'maxLength', 'minLength', 'tabIndex', 'inputMode', 'colSpan', 'rowSpan', 'autoComplete',
  'readOnly', 'dateTime', 'min', 'max', 'step', 'rows', 'lang', 'dir', 'open', 'acceptCharset', 'httpEquiv'];
const SVG_NAMES = ['viewBox', 'preserveAspectRatio', 'd', 'x', 'y', 'width', 'height', 'class', 'role', 'aria-hidden', 'aria-label', 'points'];
const TEXTS = ['', 'a', '年假 annual leave', '<script>alert(1)</script>', 'say "hi" & bye', "it's > 3", '&amp;', '\u00a0x\u2028', '𠮷野家', ' '];

describe('the JSX runtime against preact-render-to-string', () => {
  function text(rand: () => number): string {
    return TEXTS[Math.floor(rand() * TEXTS.length)]! + (rand() < 0.3 ? TEXTS[Math.floor(rand() * TEXTS.length)]! : '');
  }

  function value(rand: () => number): unknown {
    const r = rand();
    if (r < 0.4) return text(rand);
    if (r < 0.55) return Math.floor(rand() * 200) - 50;
    if (r < 0.6) return 0.25;
    if (r < 0.7) return true;
    if (r < 0.8) return false;
    if (r < 0.9) return null;
    return undefined;
  }

  function attributes(rand: () => number, names: string[]): Record<string, unknown> {
    const props: Record<string, unknown> = {};
    const n = Math.floor(rand() * 5);
    for (let i = 0; i < n; i++) props[names[Math.floor(rand() * names.length)]!] = value(rand);
    if (rand() < 0.1) props.key = Math.floor(rand() * 10);
    return props;
  }

  function children(rand: () => number, depth: number, svg: boolean): Both[] {
    const n = Math.floor(rand() * 4);
    return Array.from({ length: n }, () => node(rand, depth + 1, svg));
  }

  function node(rand: () => number, depth: number, svg = false): Both {
    const r = rand();
    if (depth > 4 || r < 0.25) {
      const leaf = rand();
      if (leaf < 0.6) { const s = text(rand); return { preact: s, ours: s }; }
      if (leaf < 0.75) { const x = Math.floor(rand() * 1000) - 10; return { preact: x, ours: x }; }
      const nothing = [null, undefined, true, false][Math.floor(rand() * 4)];
      return { preact: nothing, ours: nothing as Children };
    }
    if (svg) {
      const tag = ['g', 'path', 'rect', 'text', 'title'][Math.floor(rand() * 5)]!;
      const props = attributes(rand, SVG_NAMES);
      const kids = children(rand, depth, true);
      return { preact: h(tag, props, ...kids.map((k) => k.preact)), ours: jsx(tag, { ...props, children: kids.map((k) => k.ours) }) };
    }
    if (r < 0.3) {
      const tag = VOID_TAGS[Math.floor(rand() * VOID_TAGS.length)]!;
      const props = attributes(rand, NAMES);
      return { preact: h(tag, props), ours: jsx(tag, props) };
    }
    if (r < 0.35) {
      const props = { viewBox: '0 0 10 10', 'aria-hidden': true, ...attributes(rand, SVG_NAMES) };
      const kids = children(rand, depth, true);
      return { preact: h('svg', props, ...kids.map((k) => k.preact)), ours: jsx('svg', { ...props, children: kids.map((k) => k.ours) }) };
    }
    if (r < 0.4) {
      const kids = children(rand, depth, false);
      return { preact: h(PreactFragment, null, ...kids.map((k) => k.preact)), ours: jsx(Fragment, { children: kids.map((k) => k.ours) }) };
    }
    if (r < 0.45) {
      // A component that wraps its children, as the views' Kbd and Field do.
      const kids = children(rand, depth, false);
      const label = text(rand);
      const P = ({ children: c }: { children?: ComponentChildren }) => h('span', { title: label }, c);
      const O = ({ children: c }: { children?: Children }) => jsx('span', { title: label, children: c });
      return { preact: h(P, null, ...kids.map((k) => k.preact)), ours: jsx(O, { children: kids.map((k) => k.ours) }) };
    }
    if (r < 0.48) {
      const v = text(rand);
      return { preact: h('textarea', { name: 'x', value: v }), ours: jsx('textarea', { name: 'x', value: v }) };
    }
    if (r < 0.5) {
      // Markup from outside a view (highlighted contexts): preact took it as a precompiled template.
      const marked = `<mark>${escapeHtml(text(rand))}</mark>` as SafeHtml; // as highlight.ts builds it
      return { preact: h('p', null, jsxTemplate([marked])), ours: jsx('p', { children: rawHtml(marked) }) };
    }
    const tag = TAGS[Math.floor(rand() * TAGS.length)]!;
    const props = attributes(rand, NAMES);
    const kids = children(rand, depth, false);
    // One child is passed as itself, several as a list (as compiled JSX passes them).
    const oursChildren = kids.length === 1 ? kids[0]!.ours : kids.map((k) => k.ours);
    return { preact: h(tag, props, ...kids.map((k) => k.preact)), ours: jsx(tag, { ...props, children: oursChildren }) };
  }

  it('renders 5,000 random trees exactly as the reference does', () => {
    const rand = createRng(20261203);
    for (let i = 0; i < 5000; i++) {
      const tree = node(rand, 0);
      const expected = render(h(PreactFragment, null, tree.preact));
      expect(renderHtml(jsx(Fragment, { children: tree.ours }))).toBe(expected);
    }
  });
});

describe('the JSX runtime refuses what views must not do', () => {
  const refused: [string, () => unknown][] = [
    ['a tag name that ends the tag', () => jsx('p onclick="x"', {})],
    ['an attribute name that ends the tag', () => jsx('p', { 'a"><script>': 'x' })],
    ['an attribute name with a space', () => jsx('p', { 'a b': 'x' })],
    ['markup through dangerouslySetInnerHTML', () => jsx('p', { dangerouslySetInnerHTML: { __html: '<b>' } })],
    ['an inline style (the CSP allows none)', () => jsx('p', { style: 'color:red' })],
    ['an event handler', () => jsx('button', { onclick: () => {} })],
    ['an object as an attribute value', () => jsx('p', { title: { toString: () => '"><b>' } })],
    ['an object as a child', () => jsx('p', { children: { html: '<b>' } })],
    ['a value on a select (options carry selected)', () => jsx('select', { value: 'a' })],
  ];
  for (const [what, make] of refused) it(`refuses ${what}`, () => expect(make).toThrow(TypeError));

  it('renders a component that renders nothing as nothing', () => {
    const Nothing = (): Html | null => null;
    expect(renderHtml(jsx('p', { children: [jsx(Nothing, {}), 'x'] }))).toBe('<p>x</p>');
    expect(renderHtml(jsx(Nothing, {}))).toBe('');
  });
});
