// goldset's JSX runtime: a TSX view becomes its HTML as it is evaluated, with no virtual DOM in
// between (tsconfig's jsxImportSource "#views" resolves here through package.json "imports").
//
// Why not a virtual DOM: the views only ever become strings on the server. Building a tree of nodes
// and then walking it to a string cost ~35 µs per labelling item in a loop and ~77 µs under load
// (with the garbage it leaves), a sixth of goldset's own work per save-and-next (issue #16). Here an
// element is one string concatenation, done when its JSX expression runs.
//
// Escaping by default: every string that reaches a view as a child or an attribute value is text
// and is escaped. Markup enters only as an `Html` value, which only this module can make (the class
// is exported as a type only): from JSX itself, and from `trustedHtml`, which takes only SafeHtml
// (server/http/html.ts: escapeHtml's output or markup built around it; its rawHtml is the one caller). The output is what preact-render-to-string gave for the same views (test/unit/jsx-runtime.test.ts
// renders random trees with both), except where this runtime refuses what the views must not do.
import type { JSX as DomTypes } from 'preact';
import type { SafeHtml } from '../server/http/html.ts';

/**
 * Markup made by this runtime (a rendered element, fragment or component) or trusted through
 * `trustedHtml`. Exported as a type only, so no other module can make one from a string.
 */
class Html {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

export type { Html };

/** What a view may put between tags: text (escaped), numbers, markup, nothing, or lists of these. */
export type Children = Html | string | number | bigint | boolean | null | undefined | readonly Children[];

/** A function component: props in, markup (or nothing) out. */
export type Component<P> = (props: P) => Html | null;

// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace JSX {
  type Element = Html;
  /** The DOM's element and attribute names and value types (preact's typings; types only, nothing of preact runs). */
  interface IntrinsicElements extends DomTypes.IntrinsicElements {}
  interface IntrinsicAttributes { key?: string | number | undefined }
  interface ElementChildrenAttribute { children: unknown }
}

const SPECIAL = /["&<]/;

/**
 * Text for an HTML text node or a double-quoted attribute value: `&`, `<` and `"` escaped (`>` needs
 * no escaping in either place). The same three characters as preact-render-to-string.
 */
export function escapeText(text: string): string {
  if (!SPECIAL.test(text)) return text;
  let out = '', last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const entity = c === 34 ? '&quot;' : c === 38 ? '&amp;' : c === 60 ? '&lt;' : null;
    if (entity === null) continue;
    out += text.slice(last, i) + entity;
    last = i + 1;
  }
  return out + text.slice(last);
}

/** Markup taken as it is: only for HTML whose text parts were escaped (see server/http/html.ts's rawHtml). */
export function trustedHtml(html: SafeHtml): Html {
  return new Html(html);
}

/**
 * `children` with the element whose id is `id` (a form control) given `aria-describedby` (the ids of
 * the messages about it) and, when `invalid`, `aria-invalid="true"`: how Field (views/components.tsx)
 * ties its control to its hint and error without every view writing those ids. The attributes go
 * right after the control's ` id="…"`, which no text or attribute value can contain (both escape `"`);
 * the control must not set them itself (test/unit/field-described.test.tsx checks the views). No
 * element with that id: the children as they are.
 */
export function describeControl(children: Children, id: string, describedBy: string, invalid: boolean): Html {
  const html = childHtml(children);
  const anchor = ` id="${escapeText(id)}"`;
  const at = html.indexOf(anchor);
  if (at < 0) return new Html(html);
  const end = at + anchor.length;
  return new Html(`${html.slice(0, end)} aria-describedby="${escapeText(describedBy)}"${invalid ? ' aria-invalid="true"' : ''}${html.slice(end)}`);
}

/** The HTML of a child: text escaped, markup as it is, nothing for null, undefined and booleans. */
function childHtml(child: unknown): string {
  if (typeof child === 'string') return escapeText(child);
  if (child instanceof Html) return child.html;
  if (child === null || child === undefined || typeof child === 'boolean') return '';
  if (typeof child === 'number' || typeof child === 'bigint') return String(child);
  if (Array.isArray(child)) {
    let out = '';
    for (const c of child) out += childHtml(c);
    return out;
  }
  throw new TypeError(`a view rendered a ${typeof child} as a child; only text, numbers and markup can be children`);
}

// Elements that have no end tag (written `<input/>`, as preact-render-to-string writes them).
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
// DOM property names views write in camelCase that are HTML attributes in lower case. Other names
// are written as given (SVG's viewBox and preserveAspectRatio keep their case).
const LOWER_CASE = new Set(['accessKey', 'autoCapitalize', 'autoComplete', 'autoFocus', 'autoPlay', 'colSpan', 'contentEditable', 'crossOrigin',
  'dateTime', 'encType', 'formAction', 'formEncType', 'formMethod', 'formNoValidate', 'formTarget', 'hrefLang', 'inputMode', 'maxLength',
  'minLength', 'noValidate', 'readOnly', 'rowSpan', 'srcSet', 'tabIndex', 'useMap']);
const RENAMED: Record<string, string> = { className: 'class', htmlFor: 'for', acceptCharset: 'accept-charset', httpEquiv: 'http-equiv' };
// A tag or attribute name that could end the tag or the attribute early is a bug or an attack.
const SAFE_NAME = /^[A-Za-z][A-Za-z0-9_:.-]*$/;

// Names checked once: views use a few hundred of them, as constants in their source (the bound only
// keeps a view that spread unexpected props from growing these without end).
const NAMES_KEPT = 4096;
const attributeNames = new Map<string, string>();
const tagNames = new Set<string>();

function attributeName(name: string): string {
  let html = attributeNames.get(name);
  if (html === undefined) {
    if (!SAFE_NAME.test(name)) throw new TypeError(`unsafe attribute name in a view: ${JSON.stringify(name)}`);
    html = RENAMED[name] ?? (LOWER_CASE.has(name) ? name.toLowerCase() : name);
    if (attributeNames.size < NAMES_KEPT) attributeNames.set(name, html);
  }
  return html;
}

/** ` name="value"`, ` name` (true or empty) or nothing (null, undefined, false), from one prop. */
function attribute(name: string, value: unknown): string {
  // aria-* and data-* take "true"/"false" as values, where a boolean HTML attribute is there or not.
  if (typeof value === 'boolean' && name[4] === '-' && (name.startsWith('aria-') || name.startsWith('data-'))) value = String(value);
  if (value === null || value === undefined || value === false) return '';
  const html = attributeName(name);
  if (value === true || value === '') return ' ' + html;
  if (typeof value === 'string') return ` ${html}="${escapeText(value)}"`;
  if (typeof value === 'number' || typeof value === 'bigint') return ` ${html}="${value}"`;
  throw new TypeError(`a view gave the attribute ${html} a ${typeof value}; only text, numbers and booleans can be attribute values`);
}

type Props = Record<string, unknown> & { children?: unknown };

function element(tag: string, props: Props): Html {
  if (!tagNames.has(tag)) {
    if (!SAFE_NAME.test(tag)) throw new TypeError(`unsafe tag name in a view: ${JSON.stringify(tag)}`);
    if (tagNames.size < NAMES_KEPT) tagNames.add(tag);
  }
  let open = '<' + tag;
  let children: unknown = props.children;
  for (const name in props) {
    const value = props[name];
    switch (name) {
      case 'children': case 'key': case 'ref': case '__self': case '__source':
        continue;
      case 'dangerouslySetInnerHTML': case 'style':
        // Markup enters a view only as Html; styles live in the stylesheet (the CSP allows no inline style).
        throw new TypeError(`views do not use ${name}`);
      case 'className': case 'htmlFor':
        if ((name === 'className' ? 'class' : 'for') in props) continue; // the HTML name wins when both are given
        break;
      case 'value':
        if (tag === 'textarea') { children = value; continue; }
        if (tag === 'select') throw new TypeError('a <select> takes no value: mark its option selected');
        break;
      default:
        if (typeof value === 'function') throw new TypeError(`a view gave the attribute ${name} a function (no scripts in server views)`);
    }
    open += attribute(name, value);
  }
  const inner = childHtml(children);
  if (inner === '' && VOID.has(tag)) return new Html(open + '/>');
  return new Html(open + '>' + inner + '</' + tag + '>');
}

/** `<>…</>`: its children's markup, with no element around it. */
export function Fragment(props: { children?: Children }): Html {
  return new Html(childHtml(props.children));
}

/** What the compiled JSX calls for every element: a tag gives its markup, a component its result. */
export function jsx(type: string, props: Props): Html;
export function jsx<P>(type: Component<P>, props: P): Html | null;
export function jsx(type: string | Component<Props>, props: Props): Html | null {
  return typeof type === 'function' ? type(props) : element(type, props);
}
export { jsx as jsxs, jsx as jsxDEV };

/** The markup of a view, or nothing for a component that rendered nothing. */
export function renderHtml(node: Html | null): string {
  return node === null ? '' : node.html;
}
