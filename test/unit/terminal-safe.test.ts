// Names and texts from the data reach terminals through the command line and the server's log lines:
// none of their control characters or bidirectional overrides may reach the terminal as such.
import { describe, expect, it } from 'vitest';
import { terminalJson, terminalSafe } from '../../server/io/terminal-safe.ts';
import { createLogger } from '../../server/log.ts';

const EVIL = 'a\u001b[2Jb\u0007c\u009bd\u007fe\u202ef\u2066g\rh\u0000i';

describe('terminalSafe', () => {
  it('writes C0 (but line feed and tab), DEL, C1 and the bidirectional controls as \\uXXXX, and leaves the rest as it is', () => {
    expect(terminalSafe(EVIL)).toBe('a\\u001b[2Jb\\u0007c\\u009bd\\u007fe\\u202ef\\u2066g\\u000dh\\u0000i');
    expect(terminalSafe('张伟 教研部\n\t“引号” é ✓')).toBe('张伟 教研部\n\t“引号” é ✓');
  });

  it('keeps JSON the same value', () => {
    const value = { name: EVIL, list: [EVIL, 1, null] };
    const text = terminalJson(value);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('is how the server logs', () => {
    const lines: string[] = [];
    createLogger('info', (l) => lines.push(l)).warn('import.refused', { dataset: EVIL });
    expect(lines[0]).not.toMatch(/[\u001b\u0007\u009b\u202e]/);
    expect(JSON.parse(lines[0]!).dataset).toBe(EVIL);
  });
});
