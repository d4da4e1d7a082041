// Marks the words of the question and ground truth where they occur in a retrieved context, so an
// expert sees at a glance whether a context is about the question. Latin words of 3+ letters match
// whole-word and case-insensitively; Chinese text matches by character pairs (bigrams).
export type Segment = { text: string; mark: boolean };

const STOP = new Set(['the', 'and', 'for', 'are', 'was', 'what', 'which', 'who', 'how', 'does', 'did', 'with', 'from', 'that', 'this', 'your', 'you', 'can', 'not', 'have', 'has', 'will', 'into', 'about', 'when', 'where']);
const HAN = /\p{Script=Han}/u;

export function highlightTerms(...texts: string[]): { words: Set<string>; bigrams: Set<string> } {
  const words = new Set<string>(), bigrams = new Set<string>();
  for (const text of texts) {
    for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
      const w = m[0];
      if (HAN.test(w)) {
        const chars = [...w].filter((c) => HAN.test(c) || /[\p{L}\p{N}]/u.test(c));
        for (let i = 0; i + 1 < chars.length; i++) bigrams.add(chars[i]! + chars[i + 1]!);
      } else if (w.length >= 3 && !STOP.has(w)) words.add(w);
    }
  }
  return { words, bigrams };
}

export function highlight(text: string, terms: { words: Set<string>; bigrams: Set<string> }): Segment[] {
  const chars = [...text];
  const marked = new Uint8Array(chars.length);
  const lower = chars.map((c) => c.toLowerCase());
  for (let i = 0; i + 1 < chars.length; i++) {
    if (terms.bigrams.has(lower[i]! + lower[i + 1]!)) { marked[i] = 1; marked[i + 1] = 1; }
  }
  // Whole Latin words, by scanning runs of letters and digits.
  let i = 0;
  while (i < chars.length) {
    if (/[\p{L}\p{N}]/u.test(chars[i]!) && !HAN.test(chars[i]!)) {
      let j = i;
      while (j < chars.length && /[\p{L}\p{N}]/u.test(chars[j]!) && !HAN.test(chars[j]!)) j++;
      if (terms.words.has(lower.slice(i, j).join(''))) marked.fill(1, i, j);
      i = j;
    } else i++;
  }
  const out: Segment[] = [];
  for (let k = 0; k < chars.length; k++) {
    const mark = marked[k] === 1;
    const last = out[out.length - 1];
    if (last && last.mark === mark) last.text += chars[k];
    else out.push({ text: chars[k]!, mark });
  }
  return out;
}
