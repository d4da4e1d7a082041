// The one way to put HTML built outside a view into a page. Views escape by default (views/jsx-runtime.ts);
// a string becomes SafeHtml only through escapeHtml (or markup built around escapeHtml's output) or as the
// output of the view renderer itself, so raw user text can never reach the page unescaped.
import { escapeText, trustedHtml, type Html } from '../../views/jsx-runtime.ts';

/** HTML whose text parts went through escapeHtml or the view renderer. */
export type SafeHtml = string & { readonly __brand: 'SafeHtml' };

/**
 * Escapes text for use as HTML text or a double-quoted attribute value (`&`, `<`, `"`), exactly as
 * the views escape text, so text escaped here is byte-identical to the same text rendered by a view.
 */
export function escapeHtml(text: string): SafeHtml {
  return escapeText(text) as SafeHtml;
}

/** A view rendered once, to be put into other views as it is (e.g. a part that is the same on every page). */
export function renderedHtml(node: Html): SafeHtml {
  return node.html as SafeHtml;
}

/** SafeHtml as a node of a view, inserted without a wrapping element. */
export function rawHtml(html: SafeHtml): Html {
  return trustedHtml(html);
}
