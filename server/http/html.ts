// The one way to put HTML built outside a view into a page. Views escape by default; a string
// becomes SafeHtml only through escapeHtml (or markup built around escapeHtml's output) or as the
// output of the view renderer itself, so raw user text can never reach the page unescaped.
import type { VNode } from 'preact';
import { jsxTemplate } from 'preact/jsx-runtime';
import { render } from 'preact-render-to-string';

/** HTML whose text parts went through escapeHtml or the view renderer. */
export type SafeHtml = string & { readonly __brand: 'SafeHtml' };

const SPECIAL = /["&<]/;

/**
 * Escapes text for use as HTML text or a double-quoted attribute value. It escapes the same three
 * characters as preact-render-to-string (`&`, `<`, `"`), so text escaped here is byte-identical to
 * the same text rendered by a view (`>` needs no escaping in either place).
 */
export function escapeHtml(text: string): SafeHtml {
  if (!SPECIAL.test(text)) return text as SafeHtml;
  let out = '', last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const entity = c === 34 ? '&quot;' : c === 38 ? '&amp;' : c === 60 ? '&lt;' : null;
    if (entity === null) continue;
    out += text.slice(last, i) + entity;
    last = i + 1;
  }
  return (out + text.slice(last)) as SafeHtml;
}

/** A view rendered once, to be put into other views as it is (e.g. a part that is the same on every page). */
export function renderedHtml(node: VNode): SafeHtml {
  return render(node) as SafeHtml;
}

/** SafeHtml as a node of a view, inserted without a wrapping element (preact's precompiled-template node). */
export function rawHtml(html: SafeHtml): VNode {
  return jsxTemplate([html]);
}
