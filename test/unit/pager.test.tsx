// The one pager of every paged list (samples, history, runs, disagreements, both review queues).
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../views/jsx-runtime.ts';
import { ItemPager, Pager } from '../../views/components.tsx';
import { translator } from '../../server/i18n/index.ts';

const t = translator('en');
const href = (p: number) => `/list?q=a%20b&page=${p}`;

describe('Pager', () => {
  it('links the pages on either side with rel prev/next, and none past either end', () => {
    expect(renderHtml(<Pager t={t} page={1} more={true} href={href} />)).toBe(
      '<nav class="pager" aria-label="Pages"><span></span><a class="btn ghost small" rel="next" href="/list?q=a%20b&amp;page=2">Next →</a></nav>');
    const middle = renderHtml(<Pager t={t} page={3} more={true} pages={5} href={href} />);
    expect(middle).toContain('<a class="btn ghost small" rel="prev" href="/list?q=a%20b&amp;page=2">');
    expect(middle).toContain('<span class="sub">Page 3 of 5</span>');
    expect(middle).toContain('rel="next" href="/list?q=a%20b&amp;page=4"');
    const last = renderHtml(<Pager t={t} page={5} more={false} pages={5} href={href} />);
    expect(last).not.toContain('rel="next"');
    expect(last).toContain('rel="prev"');
  });

  it('speaks the page\'s language', () => {
    expect(renderHtml(<Pager t={translator('zh')} page={2} more={false} pages={2} href={href} />)).toContain(translator('zh')('action.prev'));
  });
});

describe('ItemPager', () => {
  const back = { href: '/queue?x=1#item-7', text: 'Back to the queue' };
  it('puts the way back first and the previous and next items together after it', () => {
    const html = renderHtml(<ItemPager label="Items" back={back} prev={{ href: '/queue/6', text: 'Previous' }} next={{ href: '/queue/8', text: 'Next' }} />);
    expect(html).toBe('<nav class="pager" aria-label="Items"><a class="btn ghost small" href="/queue?x=1#item-7">Back to the queue</a>' +
      '<span class="pager-steps"><a class="btn ghost small" rel="prev" href="/queue/6">Previous</a>' +
      '<a class="btn ghost small" rel="next" href="/queue/8">Next</a></span></nav>');
  });

  it('leaves out a step that does not exist, with no placeholder in its place', () => {
    const first = renderHtml(<ItemPager label="Items" back={back} next={{ href: '/queue/8', text: 'Next' }} />);
    expect(first).not.toContain('rel="prev"');
    expect(first).toContain('<span class="pager-steps"><a class="btn ghost small" rel="next"');
    const only = renderHtml(<ItemPager label="Items" back={back} />);
    expect(only).toContain('<span class="pager-steps"></span>');
    expect(only.match(/<a /g)).toHaveLength(1);
  });
});
