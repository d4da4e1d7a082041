// Chinese all the way: on the zh path every string the judge sees comes from the prompt's language:
// the prompt (instruction, examples, input), the JSON-schema line of json_object mode and the repair
// turn. Checked for every built-in step's Chinese defaults: once JSON and field names are taken out,
// no English word is left.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BUILTIN_METRICS, EXAMPLE_METRICS } from '../../server/judge/metrics/index.ts';
import { renderPrompt } from '../../server/judge/prompts/render.ts';
import { parseAndValidate, prepareStructured, repairMessages, toJsonSchema } from '../../server/llm/structured.ts';

/** The text left once fenced blocks, JSON values and the words the schema itself names are removed. */
function prose(text: string, names: Set<string>): string[] {
  let t = text.replace(/```[\s\S]*?```/g, ' ');
  for (let before = ''; before !== t;) { before = t; t = t.replace(/\{[^{}]*\}/g, ' ').replace(/\[[^[\]]*\]/g, ' '); }
  return (t.match(/[A-Za-z][\w'-]+/g) ?? []).filter((w) => !names.has(w) && w !== 'JSON');
}

function fieldNames(schema: unknown, out = new Set<string>()): Set<string> {
  if (schema && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'properties' && v && typeof v === 'object') for (const name of Object.keys(v)) out.add(name);
      // The values a field may take (a rubric's categories) are the judge's own vocabulary.
      if (k === 'enum' && Array.isArray(v)) for (const value of v) if (typeof value === 'string') out.add(value);
      fieldNames(v, out);
    }
  }
  return out;
}

const steps = [...Object.values(BUILTIN_METRICS), ...Object.values(EXAMPLE_METRICS)].flatMap((m) => m.steps.map((s) => ({ id: `${m.key}.${s.step}`, s })));

describe('zh prompts contain no English scaffolding', () => {
  it.each(steps.map(({ id, s }) => [id, s] as const))('%s', (_id, step) => {
    const template = step.defaults.zh;
    const input = template.examples[0]!.input;
    const names = new Set([...fieldNames(toJsonSchema(step.input)), ...fieldNames(toJsonSchema(step.output)), 'TP', 'FP', 'FN']);
    const schemaName = `${step.step}_reply`;
    names.add(schemaName);
    const messages = renderPrompt(template, input);
    const prepared = prepareStructured(messages, step.output, schemaName, 'json_object', 'zh');
    const bad = parseAndValidate('{"statements": [{"verdict": "yes"}], "value": "x"}', step.output, 'zh');
    const notJson = parseAndValidate('not json', step.output, 'zh');
    expect(bad.ok || notJson.ok).toBe(false);
    const repaired = repairMessages(prepared.messages, '{}', bad.ok ? '' : bad.message, 'zh');
    const all = [...repaired, { role: 'user', content: notJson.ok ? '' : notJson.message }].filter((m) => m.role !== 'assistant').map((m) => m.content).join('\n');
    expect(prose(all, names)).toEqual([]);
    expect(all).toContain('输入：');
    expect(all).toContain('JSON 格式定义');
    expect(all).toContain('你上一次的回复无法使用');
  });

  it('the English path is unchanged', () => {
    const schema = z.object({ verdict: z.literal([0, 1]) });
    const prepared = prepareStructured([{ role: 'system', content: 'x' }, { role: 'user', content: 'Input: {}' }], schema, 'v', 'json_object');
    expect(prepared.messages[0]!.content).toContain('Respond with a single JSON object only, no prose, that conforms to this JSON Schema (v):');
    const bad = parseAndValidate('{"verdict": 2}', schema);
    expect(bad).toMatchObject({ ok: false, kind: 'schema' });
    expect(repairMessages([], '{}', 'p')[1]!.content).toContain('Your previous reply could not be used. p');
  });
});
