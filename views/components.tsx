// Small shared pieces of form and list markup, so every form labels and reports errors the same way.
import { describeControl, type Children } from './jsx-runtime.ts';
import type { FieldErrors } from '../server/http/forms.ts';
import type { T } from '../server/i18n/index.ts';
import { clip } from '../server/limits.ts';
import type { Criterion } from '../server/criteria/queries.ts';
import { optionLabel } from '../server/criteria/values.ts';

export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

interface FieldProps {
  name: string;
  label: string;
  errors?: FieldErrors | undefined;
  hint?: string | undefined;
  /**
   * A second hint that the page's script may rewrite as the control changes (a provider's note for
   * the chosen provider): `<id>-note`, announced when it changes, and describing the control too.
   */
  note?: string | undefined;
  children: Children;
  id?: string | undefined;
}

/**
 * A labelled control with its hint and its error beside it, wired up for screen readers: the control
 * (the child whose id is `id`, `f-<name>` by default) is described by them and marked invalid with an error.
 */
export function Field({ name, label, errors, hint, note, children, id }: FieldProps) {
  const error = errors?.[name];
  const fieldId = id ?? `f-${name}`;
  const messages = [hint ? `${fieldId}-hint` : '', note !== undefined ? `${fieldId}-note` : '', error ? `${fieldId}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={error ? 'field has-error' : 'field'}>
      <label for={fieldId}>{label}</label>
      {messages ? describeControl(children, fieldId, messages, Boolean(error)) : children}
      {hint && <p class="hint" id={`${fieldId}-hint`}>{hint}</p>}
      {note !== undefined && <p class="hint" id={`${fieldId}-note`} aria-live="polite">{note}</p>}
      {error && <p class="error" id={`${fieldId}-error`} role="alert">{error}</p>}
    </div>
  );
}

export function FormError({ errors }: { errors?: FieldErrors | undefined }) {
  return errors?._form ? <div class="alert" role="alert">{errors._form}</div> : null;
}

export function StatusBadge({ status, label }: { status: string; label: string }) {
  return <span class={`badge status-${status}`}>{label}</span>;
}

export function Kbd({ children }: { children: Children }) {
  return <kbd>{children}</kbd>;
}

/**
 * The previous and next links of a paged list (rel="prev"/"next"), with "page N of M" between them
 * when the number of pages is known; `href` gives a page's address.
 */
export function Pager({ t, page, more, pages, href }: { t: T; page: number; more: boolean; pages?: number; href: (page: number) => string }) {
  return (
    <nav class="pager" aria-label={t('nav.pagination')}>
      {page > 1 ? <a class="btn ghost small" rel="prev" href={href(page - 1)}>{t('action.prev')}</a> : <span />}
      {pages !== undefined && <span class="sub">{t('samples.page', { page, pages })}</span>}
      {more ? <a class="btn ghost small" rel="next" href={href(page + 1)}>{t('action.next')}</a> : <span />}
    </nav>
  );
}

/**
 * What a request made from a page (save-and-next, an autosave) is answered with when it was refused for
 * want of a current sign-in: swapped into the page's sign-in notice (layout.tsx), not its target, so
 * that what the person entered stays; `signIn`: offer to sign in, in a new tab (this one keeps the work).
 */
export function SessionNotice({ t, message, signIn, resumed }: { t: T; message: string; signIn: boolean; resumed: string }) {
  return <><p data-resumed={resumed}>{message}</p>{signIn && <p><a href="/login" target="_blank" rel="noopener">{t('session.sign_in')}</a></p>}</>;
}

/** A link of ItemPager: where it goes and what it says. */
export interface PagerLink { href: string; text: string }

/**
 * The pager of an item page reached from a queue: back to the queue on the left, the previous and
 * next items together on the right (where the hand goes to step through items).
 */
export function ItemPager({ label, back, prev, next }: { label: string; back: PagerLink; prev?: PagerLink | undefined; next?: PagerLink | undefined }) {
  return (
    <nav class="pager" aria-label={label}>
      <a class="btn ghost small" href={back.href}>{back.text}</a>
      <span class="pager-steps">
        {prev && <a class="btn ghost small" rel="prev" href={prev.href}>{prev.text}</a>}
        {next && <a class="btn ghost small" rel="next" href={next.href}>{next.text}</a>}
      </span>
    </nav>
  );
}

/**
 * A text cut to at most `n` characters for a list or a table cell, its end marked with an ellipsis,
 * never splitting a character outside the Basic Multilingual Plane (server/limits.ts clip).
 */
export function shorten(text: string, n: number): string {
  return text.length <= n ? text : `${clip(text, n - 1).text}…`;
}

/** The fields of a sample that are the item's own texts, in the dataset's language (its other fields are goldset's or the expert's words). */
export const ITEM_TEXT_FIELDS: ReadonlySet<string> = new Set(['question', 'ground_truth', 'reference_contexts']);

/** The language tag of texts in a dataset's language (`lang`): pages mark the item's own texts with it. */
export function textLang(language: 'zh' | 'en'): string {
  return language === 'zh' ? 'zh-CN' : 'en';
}

/**
 * The language tag of a text whose language nobody declared (a person's own words: a rationale, a
 * note, an adjudication's reason, a judge's reason, a dataset's description), for `lang`: Chinese when
 * its Chinese characters say more than its Latin letters (a character counted as about a word, a word
 * as about 3⅓ letters), else English. "答案说 annual leave 是 15 天" is Chinese, "The answer says 年假
 * is 15 days" English; a text with neither is English.
 */
export function proseLang(text: string): string {
  let han = 0, latin = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if ((c >= 0x3400 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0x20000 && c <= 0x3134f)) han++;
    else if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) latin++;
  }
  return han * 10 >= latin * 3 && han > 0 ? 'zh-CN' : 'en';
}

/** A person's own words inline, marked with the language they are written in (proseLang). */
export function Prose({ text }: { text: string }) {
  return <span lang={proseLang(text)}>{text}</span>;
}

/** "Adjudicated by …: " and the adjudication's reason, in the language it was written in. */
export function AdjudicatedBy({ t, who, reason }: { t: T; who: string; reason: string }) {
  return <>{t('response.adjudicated_by', { who })}<Prose text={reason} /></>;
}

/**
 * A label value as the experts see it: the option's label of a binary, categorical or ordinal
 * criterion, marked with the dataset's language (the dataset's author wrote it: 正确 on an English
 * page, "Correct" on a Chinese one); a value without an option (a number) as it is; "—" for none.
 */
export function ValueLabel({ criterion, value, language }: { criterion: Criterion; value: string | null; language: 'zh' | 'en' }) {
  if (value === null) return <>—</>;
  const label = optionLabel(criterion, value);
  return label === undefined ? <>{value}</> : <span lang={textLang(language)}>{label}</span>;
}

/**
 * An item's own texts, marked with the dataset's language (WCAG's language of parts: a screen reader
 * speaks them in their language, and the stylesheet draws them with its faces, on a page in the other
 * language): the question as the page's heading, then the ground truth and the answer; `children`
 * adds further rows to the list (the system, tags).
 */
export function ItemTexts({ t, language, question, groundTruth, answer, id, children }: {
  t: T; language: 'zh' | 'en'; question: string; groundTruth: string; answer: string; id?: string; children?: Children;
}) {
  const lang = textLang(language);
  return <>
    <h1 class="ws-q" id={id} lang={lang} data-highlight-terms>{question}</h1>
    <dl class="kv">
      <dt>{t('field.ground_truth')}</dt>{groundTruth ? <dd lang={lang} data-highlight-terms>{groundTruth}</dd> : <dd><span class="sub">—</span></dd>}
      <dt>{t('field.answer')}</dt><dd class="answer" lang={lang}>{answer}</dd>
      {children}
    </dl>
  </>;
}
