// A labelling sheet's cell holds at most 32,767 characters: longer item texts are cut, never in the
// middle of a character, with a note of how many characters were left out.
import { describe, expect, it } from 'vitest';
import { fitCell } from '../../server/labelsheet/sheet.ts';
import { MAX_CELL_CHARS } from '../../server/xlsx/text.ts';
import { translator } from '../../server/i18n/index.ts';

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('a labelling sheet cell', () => {
  it('keeps a text that fits', () => {
    const text = '张'.repeat(MAX_CELL_CHARS);
    expect(fitCell(text, translator('zh'))).toBe(text);
  });

  it('cuts a longer text between characters, saying how many characters were left out, in the sheet\'s language', () => {
    for (const offset of [0, 1]) {
      // CJK Extension B characters, two UTF-16 units each: the cut falls inside one at one of the two offsets.
      const text = 'a'.repeat(offset) + '𠀀'.repeat(20_000);
      for (const lang of ['en', 'zh'] as const) {
        const cell = fitCell(text, translator(lang));
        expect(cell.length).toBeLessThanOrEqual(MAX_CELL_CHARS);
        expect(cell).not.toMatch(LONE);
        const kept = cell.slice(0, cell.indexOf(lang === 'en' ? '… [' : '……［'));
        const left = [...text].length - [...kept].length;
        expect(cell).toContain(lang === 'en' ? `[${left.toLocaleString('en')} more characters` : `其余 ${left.toLocaleString('en')} 个字符`);
      }
    }
  });
});
