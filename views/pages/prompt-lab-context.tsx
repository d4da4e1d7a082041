// The prompt lab's candidates for a step judged per retrieved context (context_precision's verify step):
// labelled contexts of the calibration part, each becoming an example in the step's own schema.
import type { PageContext } from '../layout.tsx';
import type { ContextCandidate } from '../../server/calibration/lab-context.ts';
import { candidateValue } from '../../server/calibration/lab-context.ts';
import { proseLang, shorten, textLang } from '../components.tsx';

const CHARS = 220;

/** `language`: the dataset's, marking the question and the context (`lang`). */
export function ContextCandidates({ ctx, datasetId, language, candidates }: { ctx: PageContext; datasetId: number; language: 'zh' | 'en'; candidates: ContextCandidate[] }) {
  const { t } = ctx;
  const lang = textLang(language);
  return (
    <section class="card" aria-labelledby="examples-h">
      <h2 id="examples-h">{t('labc.pick')}</h2>
      <p class="hint">{t('labc.pick_hint')}</p>
      {candidates.length === 0 ? <p class="sub">{t('labc.no_candidates')}</p> : (
        <table class="table context-candidates">
          <thead><tr>
            <th scope="col">{t('field.question')}</th><th scope="col" class="num">{t('ctx.rank')}</th><th scope="col">{t('ctxr.context')}</th>
            <th scope="col">{t('response.gold')}</th><th scope="col">{t('labc.judge')}</th><th scope="col">{t('field.rationale')}</th><th scope="col"><span class="sr-only">{t('users.actions')}</span></th>
          </tr></thead>
          <tbody>
            {candidates.map((c) => (
              <tr>
                <td lang={lang}>{shorten(c.question, CHARS)}</td><td class="num">{c.index + 1}</td><td class="sub" lang={lang}>{shorten(c.context, CHARS)}</td>
                <td><strong>{t(c.gold === '1' ? 'ctxr.relevant' : 'ctxr.not_relevant')}</strong></td>
                <td class={c.judge !== null && String(c.judge) !== c.gold ? 'warn-text' : 'sub'}>{c.judge === null ? '—' : t(c.judge === 1 ? 'ctxr.relevant' : 'ctxr.not_relevant')}</td>
                <td class="sub" lang={proseLang(c.rationale)}>{c.rationale}</td>
                <td><button class="btn small" type="submit" form="draft-form" formaction={`/datasets/${datasetId}/prompt-lab/add-example`} name="example"
                  value={candidateValue(c)} aria-label={t('labc.add_aria', { rank: c.index + 1, id: c.response_id })}>{t('lab.add_from_label')}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
