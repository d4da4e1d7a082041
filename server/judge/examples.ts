// Few-shot examples in their step's own schema: the check a prompt version passes before it is saved
// (every example's input and output against the step's schemas, naming the example and the field),
// and the example the prompt lab makes from the judge's own recorded call of a step.
import type { ZodType } from 'zod';
import type { PromptExample, StepDefinition, Trace } from './types.ts';

/** Why an example does not fit its step; `field` is a path such as `output.statements[0].verdict`. */
export interface ExampleProblem {
  /** 1-based, as the user counts the examples in the list. */
  example: number;
  field: string;
  code: 'not_an_example' | 'missing' | 'wrong_type' | 'not_allowed' | 'unknown_field';
  /** wrong_type: the JSON type wanted; not_allowed: the values or range allowed. */
  expected?: string;
}

type Path = readonly (string | number | symbol)[];

function pathText(root: string, path: Path): string {
  let out = root;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `.${String(p)}`;
  return out;
}

function at(value: unknown, path: Path): unknown {
  let v = value;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[p as string | number] : undefined;
  return v;
}

/** The first key present in `given` but dropped by the schema's parse (zod objects strip unknown keys). */
function unknownKey(given: unknown, parsed: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (Array.isArray(given) && Array.isArray(parsed)) {
    for (let i = 0; i < given.length; i++) {
      const found = unknownKey(given[i], parsed[i], [...path, i]);
      if (found) return found;
    }
    return null;
  }
  if (given === null || typeof given !== 'object' || parsed === null || typeof parsed !== 'object') return null;
  for (const [k, v] of Object.entries(given)) {
    if (!Object.hasOwn(parsed, k)) return [...path, k];
    const found = unknownKey(v, (parsed as Record<string, unknown>)[k], [...path, k]);
    if (found) return found;
  }
  return null;
}

function check(schema: ZodType, value: unknown, root: 'input' | 'output', example: number): ExampleProblem | null {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = pathText(root, issue.path);
    if (at(value, issue.path) === undefined) return { example, field, code: 'missing' };
    if (issue.code === 'invalid_type') {
      return { example, field, code: 'wrong_type', expected: issue.expected };
    }
    if (issue.code === 'invalid_value') return { example, field, code: 'not_allowed', expected: issue.values.map((v) => JSON.stringify(v)).join(', ') };
    if (issue.code === 'too_small' || issue.code === 'too_big') {
      return { example, field, code: 'not_allowed', expected: `${issue.code === 'too_small' ? '≥' : '≤'} ${String(issue.code === 'too_small' ? issue.minimum : issue.maximum)}` };
    }
    return { example, field, code: 'not_allowed' };
  }
  const extra = unknownKey(value, result.data);
  return extra ? { example, field: pathText(root, extra), code: 'unknown_field' } : null;
}

/** The first example that does not fit the step's input and output schemas, or null when all do. */
export function validateExamples(step: StepDefinition, examples: readonly unknown[]): ExampleProblem | null {
  for (const [i, raw] of examples.entries()) {
    const example = i + 1;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || !('input' in raw) || !('output' in raw)) {
      return { example, field: '', code: 'not_an_example' };
    }
    const { input, output, ...rest } = raw as Record<string, unknown>;
    const extra = Object.keys(rest).find((k) => k !== 'response_id');
    if (extra !== undefined) return { example, field: extra, code: 'unknown_field' };
    const problem = check(step.input, input, 'input', example) ?? check(step.output, output, 'output', example);
    if (problem) return problem;
  }
  return null;
}

/**
 * The judge's own first call of a step in a score's trace, as an example of that step: the input
 * it was given and the output it gave (for the user to correct). Null when the trace has no such
 * call, it failed, or it predates traces keeping the input.
 */
export function exampleFromTrace(step: StepDefinition, trace: Trace, responseId: number, stepName = step.step): PromptExample | null {
  const call = trace.steps.find((s) => s.step === stepName && s.error === undefined && s.input !== undefined && s.parsed !== null);
  if (!call?.input) return null;
  const example: PromptExample = { input: call.input, output: call.parsed, response_id: responseId };
  return validateExamples(step, [example]) === null ? example : null;
}
