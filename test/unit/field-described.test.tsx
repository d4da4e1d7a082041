// A form field's control is described by its hint and its error (aria-describedby) and marked invalid
// with an error (aria-invalid), so a screen reader says them when the control is reached, not only
// once when the page loads. Field does it for every control it wraps (views/components.tsx).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../views/jsx-runtime.ts';
import { Field } from '../../views/components.tsx';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('Field', () => {
  it('describes its control by its hint and its error, and marks it invalid with an error', () => {
    const html = renderHtml(<Field name="tag" label="Tag" hint="Letters and digits." errors={{ tag: 'Required.' }}><input id="f-tag" name="tag" /></Field>);
    expect(html).toContain('<input id="f-tag" aria-describedby="f-tag-hint f-tag-error" aria-invalid="true" name="tag"/>');
    expect(html).toContain('<p class="hint" id="f-tag-hint">Letters and digits.</p>');
    expect(html).toContain('<p class="error" id="f-tag-error" role="alert">Required.</p>');
  });

  it('describes by the hint alone without an error, and changes nothing with neither', () => {
    expect(renderHtml(<Field name="note" label="Note" hint="Optional."><textarea id="f-note" name="note">a</textarea></Field>))
      .toContain('<textarea id="f-note" aria-describedby="f-note-hint" name="note">a</textarea>');
    expect(renderHtml(<Field name="note" label="Note" errors={{ other: 'x' }}><textarea id="f-note" name="note" /></Field>))
      .toContain('<label for="f-note">Note</label><textarea id="f-note" name="note"></textarea>');
  });

  it('finds its control by the id it is given, and not in text or in another attribute\'s value', () => {
    const html = renderHtml(<Field name="x" id="custom" label="X" errors={{ x: 'Bad.' }}>
      <span title=' id="custom"'>{' id="custom"'}</span><select id="custom" name="x"><option value="1">1</option></select>
    </Field>);
    expect(html).toContain('<span title=" id=&quot;custom&quot;"> id=&quot;custom&quot;</span><select id="custom" aria-describedby="custom-error" aria-invalid="true" name="x">');
  });

  it('every Field in the views wraps a control with its id, which sets neither attribute itself', () => {
    const found: string[] = [];
    let fields = 0;
    for (const entry of fs.readdirSync(path.join(ROOT, 'views'), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.tsx')) continue;
      const file = path.join(entry.parentPath, entry.name);
      for (const [, attrs = '', body = ''] of fs.readFileSync(file, 'utf8').matchAll(/<Field\b([^>]*?)>(.*?)<\/Field>/gs)) {
        fields++;
        const name = /\bname="([^"]+)"/.exec(attrs)?.[1];
        const id = /\bid=\{?["`]([^"`]+)["`]/.exec(attrs)?.[1] ?? `f-${name}`;
        const where = `${path.relative(ROOT, file)} <Field name="${name}">`;
        if (!name) found.push(`${where}: a name that is not a constant`);
        else if (!body.includes(`id="${id}"`) && !body.includes(`id={\`${id}\`}`)) found.push(`${where}: no control with id ${id}`);
        if (/aria-describedby|aria-invalid/.test(body)) found.push(`${where}: its control sets aria-describedby or aria-invalid itself`);
      }
    }
    expect(fields).toBeGreaterThan(50);
    expect(found).toEqual([]);
  });
});
