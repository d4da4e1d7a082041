// Texts cut for lists and table cells: at most n characters with the ellipsis, never half a character.
import { describe, expect, it } from 'vitest';
import { shorten } from '../../views/components.tsx';

describe('shorten', () => {
  it('keeps a text that fits and cuts one that does not to n characters, the last an ellipsis', () => {
    expect(shorten('张伟是哪个部门的？', 9)).toBe('张伟是哪个部门的？');
    expect(shorten('张伟是哪个部门的？', 5)).toBe('张伟是哪…');
    expect(shorten('abcdef', 5)).toHaveLength(5);
  });

  it('never leaves half of a character outside the Basic Multilingual Plane (a lone surrogate renders as �)', () => {
    const text = `ab😀cd`; // 😀 is two UTF-16 code units, at 2 and 3
    const cut = shorten(text, 4);
    expect(cut).toBe('ab…');
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(shorten('𠀀𠀁𠀂𠀃', 6)).toBe('𠀀𠀁…'); // CJK Extension B names: 2 units each
  });
});
