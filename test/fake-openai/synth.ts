// Deterministic "model" behaviour for the fake OpenAI server: schema-conforming answers,
// embeddings and token counts. Everything is a pure function of the request so tests and
// benchmarks are reproducible without scripting anything.

import { createHash } from 'node:crypto';
import type { ChatRequestBody } from './types.ts';

export const DEFAULT_EMBEDDING_DIM = 64;

/** Rough but stable token estimate (~4 characters per token, like OpenAI's rule of thumb). */
export function tokenCount(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

function hashBytes(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Deterministic unsigned 32-bit value for (seed, path) so sibling fields vary independently. */
function pick(seed: string, path: string): number {
  return hashBytes(`${seed}\u0000${path}`).readUInt32BE(0);
}

type JsonSchema = Record<string, unknown>;

function asSchema(x: unknown): JsonSchema {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as JsonSchema) : {};
}

function schemaTypes(s: JsonSchema): string[] {
  const t = s['type'];
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  if (s['properties'] !== undefined) return ['object'];
  if (s['items'] !== undefined) return ['array'];
  return [];
}

/**
 * Build a value that satisfies `schema` (the subset zod's toJSONSchema emits: objects, arrays,
 * enums, const, anyOf, primitive bounds). Values depend on `seed` (the request), so different
 * prompts get different but reproducible scores — useful for agreement-metric benchmarks.
 */
export function synthFromSchema(schemaIn: unknown, seed: string, path = '$', depth = 0): unknown {
  const schema = asSchema(schemaIn);
  if (depth > 12) return null;
  if ('const' in schema) return schema['const'];
  const en = schema['enum'];
  if (Array.isArray(en) && en.length > 0) return en[pick(seed, path) % en.length];
  const alts = (schema['anyOf'] ?? schema['oneOf']) as unknown;
  if (Array.isArray(alts) && alts.length > 0) {
    // Prefer the first non-null alternative so nullable fields still carry a value.
    const nonNull = alts.find((a) => !schemaTypes(asSchema(a)).includes('null')) ?? alts[0];
    return synthFromSchema(nonNull, seed, path, depth + 1);
  }
  const types = schemaTypes(schema).filter((t) => t !== 'null');
  const type = types[0] ?? (schemaTypes(schema).includes('null') ? 'null' : 'string');
  switch (type) {
    case 'object': {
      const props = asSchema(schema['properties']);
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(props)) out[k] = synthFromSchema(v, seed, `${path}.${k}`, depth + 1);
      return out;
    }
    case 'array': {
      const min = typeof schema['minItems'] === 'number' ? schema['minItems'] : 1;
      const max = typeof schema['maxItems'] === 'number' ? schema['maxItems'] : Math.max(min, 1);
      const n = Math.max(min, Math.min(max, 1));
      return Array.from({ length: n }, (_, i) => synthFromSchema(schema['items'], seed, `${path}[${i}]`, depth + 1));
    }
    case 'integer':
    case 'number': {
      const lo = typeof schema['minimum'] === 'number' ? schema['minimum'] : 0;
      const hiRaw = typeof schema['maximum'] === 'number' ? schema['maximum'] : lo + 10;
      const hi = Math.min(hiRaw, lo + 1_000_000);
      const r = pick(seed, path);
      if (type === 'integer') {
        const ilo = Math.ceil(lo);
        const span = Math.max(0, Math.floor(hi) - ilo);
        return ilo + (r % (span + 1));
      }
      return lo + ((r % 1000) / 999) * (hi - lo);
    }
    case 'boolean':
      return pick(seed, path) % 2 === 0;
    case 'null':
      return null;
    default: {
      const s = `fake-${(pick(seed, path) >>> 0).toString(16).padStart(8, '0')}`;
      const minLen = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
      return s.padEnd(minLen, 'x');
    }
  }
}

/**
 * Find a JSON Schema embedded in a prompt (json_object mode puts it in the system message,
 * usually inside a ```json fence). Returns undefined when none is recognisable.
 */
export function schemaFromPrompt(text: string): JsonSchema | undefined {
  const candidates: string[] = [];
  for (const m of text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) if (m[1]) candidates.push(m[1]);
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const c of candidates) {
    try {
      const parsed = asSchema(JSON.parse(c));
      if (parsed['type'] !== undefined || parsed['properties'] !== undefined) return parsed;
    } catch {
      // not JSON; try the next candidate
    }
  }
  return undefined;
}

/**
 * Hashed character-trigram embedding, L2-normalised: identical texts give cosine 1, texts that
 * share most trigrams give high cosine, unrelated texts low cosine. Case- and
 * whitespace-insensitive so trivially different spellings stay close.
 */
export function embedText(text: string, dim = DEFAULT_EMBEDDING_DIM): number[] {
  const v = new Array<number>(dim).fill(0);
  const norm = ` ${text.toLowerCase().replace(/\s+/g, ' ').trim()} `;
  for (let i = 0; i + 3 <= norm.length; i++) {
    const h = hashBytes(norm.slice(i, i + 3));
    const idx = h.readUInt32BE(0) % dim;
    // A signed hash spreads collisions out instead of piling them all onto positive mass.
    const sign = (h[4] ?? 0) & 1 ? 1 : -1;
    v[idx] = (v[idx] ?? 0) + sign;
  }
  let len = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  if (len === 0) {
    // Empty text: fixed unit vector so the result is still normalised and deterministic.
    v[0] = 1;
    len = 1;
  }
  return v.map((x) => x / len);
}

/** Encode a vector the way OpenAI does for encoding_format "base64" (little-endian float32). */
export function vectorToBase64(v: number[]): string {
  return Buffer.from(new Float32Array(v).buffer).toString('base64');
}

/** Text of a message content (string or array of parts), for token counts and prompt scanning. */
export function flattenContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
  }
  return '';
}

/** Deterministic chat answer: schema-conforming JSON when a schema is known, else a short text. */
export function defaultChatAnswer(body: ChatRequestBody): unknown {
  const seed = `${body.model}\u0000${JSON.stringify(body.messages)}`;
  const rf = body.response_format;
  if (rf?.type === 'json_schema' && rf.json_schema?.schema !== undefined) return synthFromSchema(rf.json_schema.schema, seed);
  if (rf?.type === 'json_object') {
    const systemText = body.messages.filter((m) => m.role === 'system').map((m) => flattenContent(m.content)).join('\n');
    const schema = schemaFromPrompt(systemText);
    return schema ? synthFromSchema(schema, seed) : { result: synthFromSchema({ type: 'string' }, seed) };
  }
  return 'ok';
}
