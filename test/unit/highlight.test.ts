import { describe, expect, it } from 'vitest';
import { highlight, highlightTerms } from '../../server/labels/highlight.ts';

const show = (segments: ReturnType<typeof highlight>) => segments.map((s) => (s.mark ? `[${s.text}]` : s.text)).join('');

describe('highlight', () => {
  it('marks Chinese words of the question in a context by character pairs', () => {
    const terms = highlightTerms('张伟是哪个部门的？', '张伟是教研部的成员');
    expect(show(highlight('牛顿发现了万有引力', terms))).toBe('牛顿发现了万有引力');
    expect(show(highlight('张伟 教研部工程师，他最近在负责课程研发', terms))).toBe('[张伟] [教研部]工程师，他最近在负责课程研发');
  });

  it('marks whole English words, ignoring case and stop words', () => {
    const terms = highlightTerms('How do I request annual leave?', 'Submit it in the OA system.');
    expect(show(highlight('Annual leave requests go through the OA system; leaves are rare.', terms)))
      .toBe('[Annual] [leave] requests go through the OA [system]; leaves are rare.');
  });

  it('keeps the text intact, markup characters included', () => {
    const text = '<script>alert("leave")</script>';
    expect(highlight(text, highlightTerms('leave')).map((s) => s.text).join('')).toBe(text);
  });
});
