// How a score was computed, in the reader's language. A metric says each line of its computation as
// a catalogue key and its values (`Said`); the trace keeps those lines (`explained`) and, as it always
// has, their English text (`computation`), which exports, the API and traces stored before the lines
// existed use. A page shows the lines in its reader's language, or the text when there are none.
import { translator, type MessageKey, type Params, type T } from '../i18n/index.ts';
import { en as catalogue } from '../i18n/en.ts';
import type { Trace } from './types.ts';

export type ComputationKey = Extract<MessageKey, `comp.${string}`>;

/** One line of a computation: a catalogue key with its values, after a literal prefix (a composite's "faithfulness: "). */
export interface Said { key: ComputationKey; params?: Params; prefix?: string }

export function said(key: ComputationKey, params?: Params): Said {
  return params === undefined ? { key } : { key, params };
}

const english = translator('en');

/** The lines in one language, one per line. */
export function sayAll(lines: readonly Said[], t: T): string {
  return lines.map((line) => (line.prefix ?? '') + t(line.key, line.params)).join('\n');
}

/** The English text of the lines: what the trace's `computation` holds. */
export function inEnglish(lines: readonly Said[]): string {
  return sayAll(lines, english);
}

/** A trace's computation fields from its lines: the lines, and their English text. */
export function explain(lines: readonly Said[]): Pick<Trace, 'computation' | 'explained'> {
  return { computation: inEnglish(lines), explained: [...lines] };
}

/** Lines read back from a stored trace, when every one names a key the catalogue has (else null: show the text). */
function storedLines(value: unknown): Said[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const ok = value.every((l) => l !== null && typeof l === 'object' && typeof l.key === 'string' && l.key.startsWith('comp.') && Object.hasOwn(catalogue, l.key)
    && (l.params === undefined || (typeof l.params === 'object' && l.params !== null)) && (l.prefix === undefined || typeof l.prefix === 'string'));
  return ok ? value as Said[] : null;
}

/** How the score was computed, in the reader's language when the trace says it in lines, else its stored text. */
export function computationIn(trace: Pick<Trace, 'computation' | 'explained'> | null | undefined, t: T): string {
  if (!trace) return '';
  const lines = storedLines(trace.explained);
  return lines ? sayAll(lines, t) : trace.computation;
}
