// The canonical serialisation of a release (README, "Releases"): each record one line of JSON with
// its object keys sorted, no whitespace, text exactly as stored (no Unicode normalisation), ending in
// LF; the release hash is the SHA-256 of those lines as UTF-8. Records hold only text, whole numbers,
// booleans, null, lists and objects, so there is one way to write each (RFC 8785 for this subset,
// and what Python's json.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":")) writes).
import crypto from 'node:crypto';

export type Canonical = string | number | boolean | null | Canonical[] | { [key: string]: Canonical };

export function canonicalJson(value: Canonical): string {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    // Fractions and exponents are written differently by different languages: records never hold them.
    if (!Number.isSafeInteger(value)) throw new Error(`a release record holds whole numbers only, not ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  // Keys in UTF-16 code unit order (RFC 8785); JavaScript's default sort is exactly that.
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k]!)}`).join(',')}}`;
}

/** The release hash, fed one record line at a time. */
export function releaseHasher() {
  const hash = crypto.createHash('sha256');
  return {
    add: (line: string) => { hash.update(line, 'utf8'); hash.update('\n'); },
    hex: () => hash.digest('hex'),
  };
}

/** Orders texts by their UTF-8 bytes (which is code point order), as SQLite's BINARY collation does. */
export function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
