// Input limits are defined once (server/limits.ts, and a spreadsheet's own in server/xlsx/text.ts): a
// view's maxlength and a message's "at most N characters" take the number from there, so that changing a
// limit changes what every form allows and every message says. A number written into either is a copy
// that would stay behind.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { en } from '../../server/i18n/en.ts';
import { zh } from '../../server/i18n/zh.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

function files(dir: string, ext: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(ext)).map((e) => path.join(e.parentPath, e.name));
}

describe('limits defined once', () => {
  it('no view writes a length limit of a control as a number', () => {
    const written = files(path.join(ROOT, 'views'), '.tsx').flatMap((file) =>
      fs.readFileSync(file, 'utf8').split('\n').flatMap((line, i) =>
        /\b(maxLength|minLength)=\{\s*\d|\b(maxlength|minlength)="\d/.test(line) ? [`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : []));
    expect(written).toEqual([]);
  });

  it('no message writes a limit as a number: it is given as {limit}', () => {
    const written = [
      ...Object.entries(en).filter(([, text]) => /\b(at most|at least|limit is|holds)\s+\d/i.test(text)),
      ...Object.entries(zh).filter(([, text]) => /(最多|至少|上限为?|容纳)\s*\d/.test(text)),
    ].map(([key, text]) => `${key}: ${text}`);
    expect(written).toEqual([]);
  });
});
