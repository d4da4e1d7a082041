// What changed between two releases (or a release and the dataset now): samples added, removed and
// changed (with the word/character diffs the sample history shows), responses added and removed,
// gold labels that changed, and criteria. Records are matched by the sample or response they were
// made from, and otherwise by question (and answer), so an edited question is a change, not a swap.
import { diffSnapshots, type DiffPart } from '../samples/diff.ts';
import type { CriterionContent, ResponseContent, SampleContent } from './content.ts';

/** A record as both stored releases and the dataset now give it. */
export interface DiffInput { kind: string; sampleId: number | null; responseId: number | null; key: string; body: string }

export interface SampleChange { before: SampleContent; after: SampleContent; fields: { field: string; parts: DiffPart[] }[] }
export interface ResponseRef { question: string; system: string; answer: string }
export interface GoldChange extends ResponseRef { criterion: string; context: number | null; before: string | null; after: string | null }

export interface ReleaseDiff {
  added: SampleContent[];
  removed: SampleContent[];
  changed: SampleChange[];
  unchanged: number;
  responsesAdded: ResponseRef[];
  responsesRemoved: ResponseRef[];
  gold: GoldChange[];
  criteria: { added: string[]; removed: string[]; changed: string[] };
}

const SAMPLE_FIELDS = ['question', 'ground_truth', 'reference_contexts', 'tags', 'source', 'notes'] as const;

interface Side {
  samples: DiffInput[];
  responses: { input: DiffInput; question: string }[];
  criteria: Map<string, string>;
}

function collect(records: Iterable<DiffInput>): Side {
  const side: Side = { samples: [], responses: [], criteria: new Map() };
  let question = '';
  for (const r of records) {
    if (r.kind === 'sample') { side.samples.push(r); question = (JSON.parse(r.body) as SampleContent).question; }
    else if (r.kind === 'response') side.responses.push({ input: r, question });
    else if (r.kind === 'criterion') side.criteria.set((JSON.parse(r.body) as CriterionContent).name, r.body);
  }
  return side;
}

/** Pairs records by source id, then by key; returns the pairs and what is left on each side. */
function pair<T>(before: T[], after: T[], id: (x: T) => number | null, key: (x: T) => string) {
  const byId = new Map<number, T>(), byKey = new Map<string, T>();
  for (const b of before) { const i = id(b); if (i !== null) byId.set(i, b); byKey.set(key(b), b); }
  const used = new Set<T>();
  const pairs: [T, T][] = [], added: T[] = [];
  for (const a of after) {
    const i = id(a);
    let b = i !== null ? byId.get(i) : undefined;
    if (!b || used.has(b)) b = byKey.get(key(a));
    if (b && !used.has(b)) { used.add(b); pairs.push([b, a]); } else added.push(a);
  }
  return { pairs, added, removed: before.filter((b) => !used.has(b)) };
}

const ref = (question: string, r: ResponseContent): ResponseRef => ({ question, system: r.system, answer: r.answer });

export function diffReleases(beforeRecords: Iterable<DiffInput>, afterRecords: Iterable<DiffInput>): ReleaseDiff {
  const before = collect(beforeRecords), after = collect(afterRecords);
  const samples = pair(before.samples, after.samples, (s) => s.sampleId, (s) => s.key);
  const changed: SampleChange[] = [];
  let unchanged = 0;
  for (const [b, a] of samples.pairs) {
    if (b.body === a.body) { unchanged++; continue; }
    const bs = JSON.parse(b.body) as SampleContent, as = JSON.parse(a.body) as SampleContent;
    changed.push({ before: bs, after: as, fields: diffSnapshots(bs as unknown as Record<string, unknown>, as as unknown as Record<string, unknown>, SAMPLE_FIELDS) });
  }
  const responses = pair(before.responses, after.responses, (r) => r.input.responseId, (r) => r.input.key);
  const gold: GoldChange[] = [];
  for (const [b, a] of responses.pairs) {
    if (b.input.body === a.input.body) continue;
    const br = JSON.parse(b.input.body) as ResponseContent, ar = JSON.parse(a.input.body) as ResponseContent;
    for (const criterion of new Set([...Object.keys(br.gold), ...Object.keys(ar.gold)])) {
      const x = br.gold[criterion] ?? null, y = ar.gold[criterion] ?? null;
      if (JSON.stringify(x) === JSON.stringify(y)) continue;
      if (Array.isArray(x) || Array.isArray(y)) {
        const xs = Array.isArray(x) ? x : [], ys = Array.isArray(y) ? y : [];
        for (let i = 0; i < Math.max(xs.length, ys.length); i++) {
          if ((xs[i] ?? null) !== (ys[i] ?? null)) gold.push({ ...ref(a.question, ar), criterion, context: i + 1, before: xs[i] ?? null, after: ys[i] ?? null });
        }
      } else gold.push({ ...ref(a.question, ar), criterion, context: null, before: x as string | null, after: y as string | null });
    }
  }
  const names = new Set([...before.criteria.keys(), ...after.criteria.keys()]);
  const criteria = { added: [] as string[], removed: [] as string[], changed: [] as string[] };
  for (const n of names) {
    const b = before.criteria.get(n), a = after.criteria.get(n);
    if (b === undefined) criteria.added.push(n);
    else if (a === undefined) criteria.removed.push(n);
    else if (a !== b) criteria.changed.push(n);
  }
  const parse = (r: { input: DiffInput; question: string }) => ref(r.question, JSON.parse(r.input.body) as ResponseContent);
  return {
    added: samples.added.map((s) => JSON.parse(s.body) as SampleContent),
    removed: samples.removed.map((s) => JSON.parse(s.body) as SampleContent),
    changed, unchanged,
    responsesAdded: responses.added.map(parse), responsesRemoved: responses.removed.map(parse),
    gold, criteria,
  };
}
