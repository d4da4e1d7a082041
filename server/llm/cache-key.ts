// Cache keys for LLM calls: sha256 over a canonical JSON of everything that can change the answer
// (kind, model, messages/input, temperature, response_format, other params). Canonical means
// object keys are sorted, so logically identical requests hash identically.

import { createHash } from 'node:crypto';

/** JSON with recursively sorted object keys; undefined properties are dropped like JSON.stringify. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const s = JSON.stringify(value);
    return s === undefined ? 'null' : s;
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export interface CacheKeyParts {
  kind: 'chat' | 'embedding';
  model: string;
  [param: string]: unknown;
}

export function cacheKey(parts: CacheKeyParts): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}
