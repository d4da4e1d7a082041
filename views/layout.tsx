// The page shell: header with navigation, language switch and the signed-in user; htmx and app.js.
import type { Children } from './jsx-runtime.ts';
import type { Locale, T } from '../server/i18n/index.ts';
import type { CurrentUser } from '../server/http/context.ts';
import { textLang } from './components.tsx';

export interface PageContext {
  t: T;
  locale: Locale;
  user: CurrentUser | null;
  csrfToken: string;
  path: string;
  /** Path with query string: where to come back to after switching language. */
  url: string;
  flash?: string | undefined;
}

function NavLink({ href, current, children }: { href: string; current: string; children: Children }) {
  const active = current === href || current.startsWith(href + '/');
  return <a href={href} class={active ? 'nav-link active' : 'nav-link'} aria-current={active ? 'page' : undefined}>{children}</a>;
}

export function Layout({ ctx, title, children, wide }: { ctx: PageContext; title: string; children: Children; wide?: boolean }) {
  const { t, user } = ctx;
  return (
    <html lang={textLang(ctx.locale)}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="csrf-token" content={ctx.csrfToken} />
        <title>{`${title} · goldset`}</title>
        <link rel="icon" href="/static/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/static/app.css" />
        <script src="/static/htmx.min.js" defer></script>
        <script src="/static/app.js" defer></script>
        <script type="module" src="/static/highlight.js"></script>
      </head>
      <body hx-headers:inherited={JSON.stringify({ 'X-CSRF-Token': ctx.csrfToken })}>
        <a class="skip-link" href="#main">{t('nav.skip')}</a>
        <header class="topbar">
          <a class="brand" href="/">gold<span>set</span></a>
          {user && (
            <nav aria-label={t('nav.main')}>
              <NavLink href="/datasets" current={ctx.path}>{t('nav.datasets')}</NavLink>
              {user.role === 'admin' && <NavLink href="/audit" current={ctx.path}>{t('nav.audit')}</NavLink>}
              {user.role === 'admin' && <NavLink href="/admin/users" current={ctx.path}>{t('nav.users')}</NavLink>}
              {user.role === 'admin' && <NavLink href="/settings/judge" current={ctx.path}>{t('nav.judge')}</NavLink>}
              <NavLink href="/tokens" current={ctx.path}>{t('nav.tokens')}</NavLink>
            </nav>
          )}
          <div class="topbar-end">
            <form method="post" action="/locale" class="inline">
              <input type="hidden" name="_csrf" value={ctx.csrfToken} />
              <input type="hidden" name="back" value={ctx.url} />
              <label class="sr-only" for="locale-select">{t('nav.language')}</label>
              <select id="locale-select" name="locale" data-autosubmit>
                {/* Each language named in itself, and marked as such (WCAG's language of parts). */}
                <option value="en" lang={textLang('en')} selected={ctx.locale === 'en'}>English</option>
                <option value="zh" lang={textLang('zh')} selected={ctx.locale === 'zh'}>简体中文</option>
              </select>
              <noscript><button type="submit" class="btn small">{t('action.apply')}</button></noscript>
            </form>
            {user && (
              <form method="post" action="/logout" class="inline">
                <input type="hidden" name="_csrf" value={ctx.csrfToken} />
                <span class="whoami" title={user.email}>{user.name || user.email} · {t(`role.${user.role}`)}</span>
                <button type="submit" class="btn ghost small">{t('nav.logout')}</button>
              </form>
            )}
          </div>
        </header>
        <main id="main" class={wide ? 'wide' : ''} tabIndex={-1}>
          {ctx.flash && <div class="flash" role="status">{ctx.flash}</div>}
          {children}
        </main>
        {/* Notices at the foot of the page, stacked when both show. */}
        <div class="toasts">
          {/* Shown by app.js when a request made without a page load got no answer (the connection broke, the server restarting). */}
          <div id="request-failed" class="alert toast" role="alert" hidden>{t('err.request_failed')}</div>
          {/* Filled by a request refused for want of a current sign-in (security.ts); public/app.js takes the new sign-in's token. */}
          <div id="session-notice" class="alert toast" role="alert"></div>
        </div>
      </body>
    </html>
  );
}

/** A bare page for errors and for screens before login. */
export function ErrorPage({ ctx, status, message }: { ctx: PageContext; status: number; message: string }) {
  return (
    <Layout ctx={ctx} title={String(status)}>
      <section class="card narrow">
        <h1>{status}</h1>
        <p>{message}</p>
        <p><a href="/">{ctx.t('nav.home')}</a></p>
      </section>
    </Layout>
  );
}
