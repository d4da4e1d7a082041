// A dataset's review inbox: samples in review that this expert may approve, and their own ones that
// wait for someone else. Approving or sending back from here returns here.
import { Layout, type PageContext } from '../layout.tsx';
import { Csrf, textLang } from '../components.tsx';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { SampleRow } from '../../server/samples/queries.ts';
import { can } from '../../server/http/security.ts';

function Row({ ctx, s, decide, lang }: { ctx: PageContext; s: SampleRow; decide: boolean; lang: string }) {
  const { t } = ctx;
  return (
    <tr>
      <td class="num sub">{s.id}</td>
      <td><a href={`/samples/${s.id}`} lang={lang}>{s.question}</a>{s.ground_truth ? <div class="sub" lang={lang}>{s.ground_truth}</div> : <div class="sub">{t('fh.no_ground_truth')}</div>}</td>
      <td class="sub nowrap">{s.author_email ?? '—'}</td>
      <td class="nowrap">{decide && (
        <form method="post" action={`/samples/${s.id}/status`} class="inline">
          <Csrf token={ctx.csrfToken} />
          <input type="hidden" name="version" value={s.version} />
          <input type="hidden" name="from" value="inbox" />
          <button class="btn small primary" type="submit" name="action" value="approve" disabled={!s.ground_truth.trim()}>{t('samples.approve')}</button>
        </form>
      )}</td>
    </tr>
  );
}

export function InboxPage({ ctx, dataset, forYou, yours, total, shown }: {
  ctx: PageContext; dataset: DatasetRow; forYou: SampleRow[]; yours: SampleRow[]; total: number; shown: number;
}) {
  const { t } = ctx;
  const canDecide = can(ctx.user?.role, 'expert') && !dataset.archived;
  const lang = textLang(dataset.language);
  const head = <thead><tr><th scope="col" class="num">#</th><th scope="col">{t('field.question')}</th><th scope="col">{t('field.author')}</th><th scope="col"><span class="sr-only">{t('users.actions')}</span></th></tr></thead>;
  return (
    <Layout ctx={ctx} title={`${t('fh.inbox_title')} · ${dataset.name}`} wide>
      <nav class="crumbs" aria-label={t('nav.breadcrumbs')}><a href="/datasets">{t('nav.datasets')}</a> / <a href={`/datasets/${dataset.id}`}>{dataset.name}</a> / {t('fh.inbox_title')}</nav>
      <h1>{t('fh.inbox_title')}</h1>
      <p class="lead">{t('fh.inbox_lead')}</p>
      <section aria-labelledby="for-you">
        <h2 id="for-you">{t('fh.inbox_for_you', { n: forYou.length })}</h2>
        {forYou.length === 0 ? <p class="empty-row">{t('fh.inbox_empty')}</p> : <table class="table">{head}<tbody>{forYou.map((s) => <Row ctx={ctx} s={s} decide={canDecide} lang={lang} />)}</tbody></table>}
      </section>
      {yours.length > 0 && (
        <section aria-labelledby="yours">
          <h2 id="yours">{t('fh.inbox_yours', { n: yours.length })}</h2>
          <table class="table">{head}<tbody>{yours.map((s) => <Row ctx={ctx} s={s} decide={false} lang={lang} />)}</tbody></table>
        </section>
      )}
      {total > shown && <p class="sub">{t('fh.inbox_more', { n: total - shown })} <a href={`/datasets/${dataset.id}?status=in_review`}>{t('samples.title')}</a></p>}
    </Layout>
  );
}
