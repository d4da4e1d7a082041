// A readable word-level diff (character-level for CJK) between two versions of a text field.
export type DiffPart = { op: 'same' | 'add' | 'del'; text: string };

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]/u;
const MAX_CELLS = 4_000_000;

/** Latin words stay whole; CJK characters and punctuation are tokens of their own. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const re = /[\p{L}\p{N}_'-]+|\s+|./gsu;
  for (const m of text.matchAll(re)) {
    const tok = m[0];
    if (CJK.test(tok) && [...tok.trim()].length > 1) {
      const chars = [...tok];
      for (const c of chars) tokens.push(c);
    } else tokens.push(tok);
  }
  return tokens;
}

function merge(parts: DiffPart[]): DiffPart[] {
  const out: DiffPart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (last && last.op === p.op) last.text += p.text;
    else out.push({ ...p });
  }
  return out;
}

export function diffText(before: string, after: string): DiffPart[] {
  if (before === after) return before ? [{ op: 'same', text: before }] : [];
  const a = tokenize(before), b = tokenize(after);
  // Trim the common prefix and suffix first: edits are usually local.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length, endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) { endA--; endB--; }
  const midA = a.slice(start, endA), midB = b.slice(start, endB);
  const head: DiffPart[] = start ? [{ op: 'same', text: a.slice(0, start).join('') }] : [];
  const tail: DiffPart[] = endA < a.length ? [{ op: 'same', text: a.slice(endA).join('') }] : [];
  if (midA.length * midB.length > MAX_CELLS) {
    const parts: DiffPart[] = [...head, { op: 'del', text: midA.join('') }, { op: 'add', text: midB.join('') }, ...tail];
    return merge(parts.filter((p) => p.text));
  }
  // Longest common subsequence table over the middle part.
  const n = midA.length, m = midB.length;
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] = midA[i] === midB[j] ? lcs[(i + 1) * (m + 1) + j + 1]! + 1
        : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
    }
  }
  const mid: DiffPart[] = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (midA[i] === midB[j]) { mid.push({ op: 'same', text: midA[i]! }); i++; j++; }
    else if (lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!) { mid.push({ op: 'del', text: midA[i]! }); i++; }
    else { mid.push({ op: 'add', text: midB[j]! }); j++; }
  }
  while (i < n) mid.push({ op: 'del', text: midA[i++]! });
  while (j < m) mid.push({ op: 'add', text: midB[j++]! });
  return merge([...head, ...mid, ...tail]);
}

/** Field-by-field changes between two snapshots; lists are compared as one item per line. */
export function diffSnapshots(before: Record<string, unknown>, after: Record<string, unknown>, fields: readonly string[]) {
  const asText = (v: unknown) => (Array.isArray(v) ? v.join('\n') : String(v ?? ''));
  return fields
    .filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]))
    .map((f) => ({ field: f, parts: diffText(asText(before[f]), asText(after[f])) }));
}
