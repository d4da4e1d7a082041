// The highlighter runs in the browser (public/highlight.js, an ES module); these tests import the same file.
import { describe, expect, it } from 'vitest';
import { highlight, highlightTerms } from '../../public/highlight.js';
import { createRng } from '../../server/stats/bootstrap.ts';
import { referenceHighlight, referenceTerms } from './highlight-reference.ts';

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

  it('takes a Latin word written against Chinese text as a word, not as letter pairs', () => {
    const terms = highlightTerms('如何配置API密钥？', 'RAG系统的embedding模型');
    expect([...terms.words].sort()).toEqual(['api', 'embedding', 'rag']);
    expect([...terms.bigrams].sort()).toEqual(['何配', '如何', '密钥', '模型', '系统', '统的', '配置']);
    // No "ap", "pi" or "ra" inside other English words; "embeddings" is not the word "embedding".
    expect(show(highlight('Open the API page; rapid apps. 配置密钥 in the RAG 系统; embeddings', terms)))
      .toBe('Open the [API] page; rapid apps. [配置密钥] in the [RAG] [系统]; embeddings');
  });

  it('keeps the text intact, markup characters included', () => {
    const text = '<script>alert("leave")</script>';
    expect(highlight(text, highlightTerms('leave')).map((s) => s.text).join('')).toBe(text);
  });

  it('marks each text by its own terms when terms of several items take turns (the matcher is rebuilt, not mixed up)', () => {
    const chinese = highlightTerms('张伟是哪个部门的？', '张伟是教研部的成员');
    const english = highlightTerms('How do I request annual leave?', 'Submit it in the OA system.');
    const long = '张伟 教研部工程师，'.repeat(200) + ' annual leave';
    for (let i = 0; i < 2; i++) {
      expect(show(highlight('张伟 教研部 annual leave', english))).toBe('张伟 教研部 [annual] [leave]');
      expect(show(highlight('张伟 教研部 annual leave', chinese))).toBe('[张伟] [教研部] annual leave');
      expect(show(highlight(long, chinese))).toBe('[张伟] [教研部]工程师，'.repeat(200) + ' annual leave');
      expect(show(highlight('教研 nothing here', english))).toBe('教研 nothing here');
    }
  });
});

// Mixed Chinese and English with the awkward cases: case, surrogate pairs (emoji, a Han character
// beyond the BMP), characters whose lowercase is two characters (İ) or depends on context (Σ),
// lone surrogates, Han characters that are not letters (⺀), markup characters, punctuation.
const PIECES = [
  '张伟', '教研部', '工程师', '课程', '研发', '请假', '年假', '系统', '审批', '流程', '员工', '手册', '负责', '部门',
  'Annual', 'annual', 'LEAVE', 'leave', 'Leave', 'system', 'OA', 'HR', 'approval', 'the', 'and', 'AI', 'GPU', 'v2', '2024',
  'ΟΔΟΣ', 'οδος', 'İstanbul', 'straße', 'STRASSE', 'Ǆemal', '𠀀𠀁', '😀', '\ud800', '\udc00', '⺀', '々',
  '<', '>', '&', '"', "'", '，', '。', '？', ' ', ' ', ' ', '\n', '-', '_', 'AI模型', 'GPT4中文', '１２３',
];

function randomText(rng: () => number, pieces: number): string {
  let s = '';
  for (let i = 0; i < pieces; i++) s += PIECES[Math.floor(rng() * PIECES.length)]!;
  return s;
}

describe('highlight agrees with the implementation it replaced', () => {
  it('on random mixed Chinese/English text: the same terms and the same segments', () => {
    const rng = createRng(20251130);
    for (let round = 0; round < 3000; round++) {
      const question = randomText(rng, 1 + Math.floor(rng() * 12));
      const truth = randomText(rng, Math.floor(rng() * 12));
      const terms = highlightTerms(question, truth);
      const reference = referenceTerms(question, truth);
      expect([...terms.words]).toEqual([...reference.words]);
      expect([...terms.bigrams]).toEqual([...reference.bigrams]);
      for (let c = 0; c < 3; c++) {
        const context = randomText(rng, Math.floor(rng() * 40));
        const expected = referenceHighlight(context, reference);
        expect(highlight(context, terms), JSON.stringify({ question, truth, context })).toEqual(expected);
      }
    }
  });
});
