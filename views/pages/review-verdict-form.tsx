// The reviewer's verdict form, the same for an answer (views/pages/review.tsx) and for one retrieved
// context (views/pages/review-context.tsx): the verdict with what each one means, the gold value an
// adjudicator may correct it to ("judge right"), a note, and the versions the page showed, so that a
// stale form is refused rather than overwriting someone else's verdict.
import type { PageContext } from '../layout.tsx';
import { Csrf } from '../components.tsx';
import type { FieldErrors } from '../../server/http/forms.ts';
import { LIMITS } from '../../server/limits.ts';
import { VERDICTS, type Verdict } from '../../server/review/queue.ts';
import { reviewText } from '../../server/review/text.ts';

export interface VerdictFormModel {
  ctx: PageContext;
  action: string;
  /** Prefix of the form's ids ('rv' for answers, 'cv' for contexts): both forms' ids stay as they were. */
  prefix: string;
  versions: { verdict: number; gold: number };
  chosen: string;
  /** What each verdict means here. */
  verdictHint: (v: Verdict) => string;
  guidelines: { href: string; criterion: string };
  /** The gold value an adjudicator may set with "judge right"; null when this user cannot (`cannotAdjudicate` says why). */
  /** `lang`: the options' language when they are the dataset's own text (a criterion's option labels). */
  gold: { label: string; hint: string; options: { value: string; label: string }[]; lang?: string; choice: string } | null;
  cannotAdjudicate: boolean;
  note: string;
  errors?: FieldErrors | undefined;
}

export function VerdictForm({ ctx, action, prefix, versions, chosen, verdictHint, guidelines, gold, cannotAdjudicate, note, errors }: VerdictFormModel) {
  const r = reviewText(ctx.t);
  const id = (name: string) => `${prefix}-${name}`;
  const err = (name: string) => (errors?.[name] ? <p class="error" id={id(`${name}-error`)} role="alert">{errors[name]}</p> : null);
  const described = (name: string) => (errors?.[name] ? `${id(`${name}-hint`)} ${id(`${name}-error`)}` : id(`${name}-hint`));
  return (
    <form method="post" action={action} novalidate aria-labelledby="verdict-form-heading">
      <Csrf token={ctx.csrfToken} />
      <input type="hidden" name="verdict_version" value={versions.verdict} />
      <input type="hidden" name="gold_version" value={versions.gold} />
      <h3 id="verdict-form-heading">{r('review.form_title')}</h3>
      {errors?._form && <div class="alert" role="alert">{errors._form}</div>}
      <fieldset class={errors?.verdict ? 'criterion has-error' : 'criterion'} aria-describedby={errors?.verdict ? id('verdict-error') : undefined}>
        <legend>{r('review.verdict')}</legend>
        {VERDICTS.map((v) => (
          <div>
            <label class="option" for={id(v)}>
              <input id={id(v)} type="radio" name="verdict" value={v} checked={chosen === v} aria-describedby={id(`${v}-hint`)} />
              {r(`review.verdict_${v}`)}
            </label>
            <p class="hint" id={id(`${v}-hint`)}>
              {verdictHint(v)}
              {v === 'ambiguous' && <> <a href={guidelines.href}>{r('review.guidelines_link', { criterion: guidelines.criterion })}</a></>}
            </p>
          </div>
        ))}
        {err('verdict')}
      </fieldset>
      {gold ? (
        <div class={errors?.gold ? 'field has-error' : 'field'}>
          <label for={id('gold')}>{gold.label}</label>
          <select id={id('gold')} name="gold" aria-describedby={described('gold')}>
            <option value="" selected={gold.choice === ''}>{r('review.keep_gold')}</option>
            {gold.options.map((o) => <option value={o.value} lang={gold.lang} selected={gold.choice === o.value}>{o.label}</option>)}
          </select>
          <p class="hint" id={id('gold-hint')}>{gold.hint}</p>
          {err('gold')}
        </div>
      ) : cannotAdjudicate && <p class="hint standalone">{r('review.cannot_adjudicate')}</p>}
      <div class={errors?.note ? 'field has-error' : 'field'}>
        <label for={id('note')}>{r('review.note')}</label>
        <textarea id={id('note')} name="note" rows={3} maxLength={LIMITS.note} aria-describedby={described('note')}>{note}</textarea>
        <p class="hint" id={id('note-hint')}>{r('review.note_hint')}</p>
        {err('note')}
      </div>
      <div class="actions">
        <button class="btn primary" type="submit">{r('review.save')}</button>
        <button class="btn" type="submit" name="next" value="1">{r('review.save_next')}</button>
      </div>
    </form>
  );
}
