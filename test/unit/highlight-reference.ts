// The highlighter as it was before it moved to character tables (commit deca79d), kept only as the
// reference the faster one must agree with (test/unit/highlight.test.ts), with one rule changed
// since (referenceTerms, below). Not a test file itself.
export type Segment = { text: string; mark: boolean };

const STOP = new Set(['the', 'and', 'for', 'are', 'was', 'what', 'which', 'who', 'how', 'does', 'did', 'with', 'from', 'that', 'this', 'your', 'you', 'can', 'not', 'have', 'has', 'will', 'into', 'about', 'when', 'where']);
const HAN = /\p{Script=Han}/u;

// Since 2026-12-02 a run of letters that holds Han characters is cut into its Han and its other
// parts: the Han parts give character pairs, the others are words (before, the whole run gave
// pairs, so "api调用" gave "ap" and "pi", which marked pieces of unrelated English words).
const PART = /\p{Script=Han}+|(?:(?!\p{Script=Han})[\p{L}\p{N}])+/gu;

export function referenceTerms(...texts: string[]): { words: Set<string>; bigrams: Set<string> } {
  const words = new Set<string>(), bigrams = new Set<string>();
  for (const text of texts) {
    for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
      for (const part of m[0].matchAll(PART)) {
        const w = part[0];
        if (HAN.test(w)) {
          const chars = [...w];
          for (let i = 0; i + 1 < chars.length; i++) bigrams.add(chars[i]! + chars[i + 1]!);
        } else if (w.length >= 3 && !STOP.has(w)) words.add(w);
      }
    }
  }
  return { words, bigrams };
}

const LATIN_RUN = /(?:(?!\p{Script=Han})[\p{L}\p{N}])+/gu;

function lowerCodePoint(c: string): number {
  const cp = c.codePointAt(0)!;
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? cp + 32 : cp;
  if (cp >= 0x4e00 && cp <= 0x9fff) return cp;
  const l = c.toLowerCase();
  const lcp = l.codePointAt(0)!;
  return l.length === (lcp > 0xffff ? 2 : 1) ? lcp : -1;
}

export function referenceHighlight(text: string, terms: { words: Set<string>; bigrams: Set<string> }): Segment[] {
  const chars = [...text];
  const n = chars.length;
  const marked = new Uint8Array(n);
  if (terms.bigrams.size > 0) {
    const keys = new Set<number>();
    for (const b of terms.bigrams) {
      const a = b.codePointAt(0)!;
      keys.add(a * 0x110000 + b.codePointAt(a > 0xffff ? 2 : 1)!);
    }
    let prev = n > 0 ? lowerCodePoint(chars[0]!) : -1;
    for (let i = 0; i + 1 < n; i++) {
      const next = lowerCodePoint(chars[i + 1]!);
      if (prev >= 0 && next >= 0 && keys.has(prev * 0x110000 + next)) { marked[i] = 1; marked[i + 1] = 1; }
      prev = next;
    }
  }
  if (terms.words.size > 0) {
    const cpAt = new Int32Array(text.length + 1);
    for (let i = 0, u = 0; i < n; i++) { cpAt[u] = i; u += chars[i]!.length; cpAt[u] = i + 1; }
    for (const m of text.matchAll(LATIN_RUN)) {
      const i = cpAt[m.index]!, j = cpAt[m.index + m[0].length]!;
      let word = '';
      for (let k = i; k < j; k++) word += chars[k]!.toLowerCase();
      if (terms.words.has(word)) marked.fill(1, i, j);
    }
  }
  const out: Segment[] = [];
  let start = 0, u = 0, su = 0;
  for (let k = 0; k <= n; k++) {
    if (k === n || (k > start && marked[k] !== marked[start])) {
      if (k > start) out.push({ text: text.slice(su, u), mark: marked[start] === 1 });
      start = k; su = u;
    }
    if (k < n) u += chars[k]!.length;
  }
  return out;
}
