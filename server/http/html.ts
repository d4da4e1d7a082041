// The one way to put HTML built outside a view into a page: views escape by default, and a string
// becomes SafeHtml only through escapeHtml (or a helper that builds its markup around escapeHtml's
// output), so raw user text can never reach `dangerouslySetInnerHTML`.

/** HTML whose text parts went through escapeHtml. */
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

/** The `dangerouslySetInnerHTML` prop of an element whose content is SafeHtml. */
export function rawHtml(html: SafeHtml): { __html: string } {
  return { __html: html };
}
