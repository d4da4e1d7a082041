// Why a score has no value is said in the user's language: every code the runner and the metrics give
// has words in both catalogues, and a code written into the code without words fails here.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { translator } from '../../server/i18n/index.ts';
import { SCORE_REASON_CODES, scoreReason } from '../../server/judge/score-reasons.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The reason codes written as literals where scores are made: `reason: '…'`, `p.error('…'`, `p.skipped('…'`, `unscored('…'`, `no_${need}`. */
function codesInSource(): Set<string> {
  const found = new Set<string>();
  for (const dir of ['server/judge', 'server/metrics']) {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name === 'score-reasons.ts') continue;
      const text = fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8');
      for (const m of text.matchAll(/(?:status: '(?:error|skipped)', value: null, reason: |\bp\.(?:error|skipped)\(|\bunscored\()'([a-z_]+)'/g)) found.add(m[1]!);
    }
  }
  return found;
}

describe('score reasons', () => {
  it('word every code in English and Chinese, each differently from the code itself', () => {
    for (const lang of ['en', 'zh'] as const) {
      const t = translator(lang);
      for (const code of SCORE_REASON_CODES) {
        const words = scoreReason(t, 'skipped', code);
        expect(words, `${lang} ${code}`).toBeTruthy();
        expect(words).not.toBe(code);
      }
    }
  });

  it('leave a scored item\'s reason (a rubric judge\'s own words) and unknown codes alone', () => {
    const t = translator('zh');
    expect(scoreReason(t, 'ok', 'The answer names the right department.')).toBeNull();
    expect(scoreReason(t, 'ok', 'timeout')).toBeNull();
    expect(scoreReason(t, 'error', 'something_new')).toBeNull();
    expect(scoreReason(t, 'error', null)).toBeNull();
    expect(scoreReason(t, 'error', 'timeout')).toBe('接口未在时限内响应');
  });

  it('know every code the runner and the metrics write', () => {
    const written = [...codesInSource()];
    expect(written.length).toBeGreaterThan(8);
    expect(written.filter((c) => !SCORE_REASON_CODES.has(c))).toEqual([]);
  });
});
