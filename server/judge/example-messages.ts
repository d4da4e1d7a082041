// Few-shot example problems in the user's language, and the shape a step's examples take (shown
// beside the examples field), both from the step's own schemas.
import { toJsonSchema } from '../llm/structured.ts';
import type { T } from '../i18n/index.ts';
import { validateExamples } from './examples.ts';
import type { StepDefinition } from './types.ts';

/** Why the examples cannot be saved with this step, naming the example and the field; null when they fit. */
export function examplesError(step: StepDefinition, examples: readonly unknown[], t: T): string | null {
  const p = validateExamples(step, examples);
  if (!p) return null;
  const expected = p.expected === undefined ? '' : (p.code === 'wrong_type' ? t(`examples.type_${typeName(p.expected)}`) : p.expected);
  return t(`examples.${p.code}`, { n: p.example, field: p.field, expected, shape: exampleSkeleton(step) });
}

function typeName(zodType: string): 'string' | 'number' | 'array' | 'object' | 'other' {
  if (zodType === 'string' || zodType === 'array' || zodType === 'object') return zodType;
  if (zodType === 'number' || zodType === 'int' || zodType === 'integer') return 'number';
  return 'other';
}

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[]; const?: unknown; anyOf?: Schema[] };

function skeleton(node: Schema): unknown {
  if (node.const !== undefined) return node.const;
  if (node.enum) return node.enum[0];
  if (node.anyOf?.[0]) return skeleton(node.anyOf[0]);
  switch (node.type) {
    case 'object': return Object.fromEntries(Object.entries(node.properties ?? {}).map(([k, v]) => [k, skeleton(v)]));
    case 'array': return node.items ? [skeleton(node.items)] : [];
    case 'string': return '…';
    case 'number': case 'integer': return 0;
    case 'boolean': return false;
    default: return null;
  }
}

/** One example of the step with placeholder values, e.g. {"input": {"question": "…", "text": "…"}, "output": {"statements": ["…"]}}. */
export function exampleSkeleton(step: StepDefinition): string {
  return JSON.stringify({ input: skeleton(toJsonSchema(step.input) as Schema), output: skeleton(toJsonSchema(step.output) as Schema) });
}
