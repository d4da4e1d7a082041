import { describe, expect, it } from 'vitest';
import { diffSnapshots, diffText, tokenize } from '../../server/samples/diff.ts';

const render = (parts: ReturnType<typeof diffText>) => parts.map((p) => (p.op === 'same' ? p.text : p.op === 'add' ? `{+${p.text}+}` : `[-${p.text}-]`)).join('');

describe('diffText', () => {
  it('marks a replaced English word and keeps the rest', () => {
    expect(render(diffText('Annual leave is 10 days', 'Annual leave is 15 days'))).toBe('Annual leave is [-10-]{+15+} days');
  });

  it('diffs Chinese text character by character', () => {
    expect(render(diffText('张伟是教研部的成员', '张伟是人事部的成员'))).toBe('张伟是[-教研-]{+人事+}部的成员');
  });

  it('reports an insertion at the end and a deletion at the start', () => {
    expect(render(diffText('b c', 'b c d'))).toBe('b c{+ d+}');
    expect(render(diffText('a b', 'b'))).toBe('[-a -]b');
  });

  it('returns nothing for two empty texts and one part for identical ones', () => {
    expect(diffText('', '')).toEqual([]);
    expect(diffText('same', 'same')).toEqual([{ op: 'same', text: 'same' }]);
  });

  it('reassembles both versions exactly', () => {
    const a = 'The <script>alert(1)</script> policy: 5 days.\n第二行', b = 'The policy: 7 days!\n第二行 新增';
    const parts = diffText(a, b);
    expect(parts.filter((p) => p.op !== 'add').map((p) => p.text).join('')).toBe(a);
    expect(parts.filter((p) => p.op !== 'del').map((p) => p.text).join('')).toBe(b);
  });

  it('tokenizes CJK per character and Latin per word', () => {
    expect(tokenize('请假 leave policy')).toEqual(['请', '假', ' ', 'leave', ' ', 'policy']);
  });
});

describe('diffSnapshots', () => {
  it('lists only the fields that changed', () => {
    const changes = diffSnapshots({ question: 'q', tags: ['a'], notes: '' }, { question: 'q', tags: ['a', 'b'], notes: '' }, ['question', 'tags', 'notes']);
    expect(changes.map((c) => c.field)).toEqual(['tags']);
    expect(render(changes[0]!.parts)).toBe('a{+\nb+}');
  });
});
