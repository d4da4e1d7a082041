/**
 * Streaming splitter for .json imports, so large files are read one record at a time.
 *
 * It does not parse JSON itself: it tracks strings and bracket depth to cut the text into the
 * elements of a top-level array (`[{…}, {…}]`) or into a sequence of top-level values (JSON Lines
 * or concatenated objects, which Hugging Face `Dataset.to_json` writes even to `.json` files), and
 * hands each piece to `JSON.parse`. Each piece carries the line it starts on, so errors point at
 * the record. One piece is held in memory at a time, bounded by `maxValueChars`.
 */

export type ScanEvent =
  | { kind: 'value'; line: number; text: string; mode: 'array' | 'sequence' }
  | { kind: 'error'; line: number; detail: string }
  | { kind: 'too_large'; line: number; chars: number };

const WS = new Set([' ', '\t', '\n', '\r', '\uFEFF']);

export async function* scanJsonValues(chunks: AsyncIterable<string>, maxValueChars: number): AsyncGenerator<ScanEvent> {
  let mode: 'start' | 'array' | 'sequence' | 'done' = 'start';
  // Boxed: it is also updated inside endValue(), which TS flow analysis cannot see through.
  const state = { expect: 'value_or_end' as 'value' | 'value_or_end' | 'comma_or_end' };
  let line = 1;
  // The value being cut: its text so far, start line, and the scanner state inside it.
  let inValue = false;
  let parts: string[] = [];
  let partsChars = 0;
  let valueLine = 0;
  let depth = 0;
  let bare = false; // number/literal: ends at a delimiter instead of a bracket or quote
  let inString = false;
  let escaped = false;
  let trailing = false;

  for await (const chunk of chunks) {
    let segStart = 0;
    const pending: ScanEvent[] = [];
    const endValue = (end: number): void => {
      parts.push(chunk.slice(segStart, end));
      const text = parts.join('');
      // Checked on every value, not only on ones spanning chunks, so the limit does not depend on chunking.
      if (text.length > maxValueChars) pending.push({ kind: 'too_large', line: valueLine, chars: text.length });
      else pending.push({ kind: 'value', line: valueLine, text, mode: mode === 'array' ? 'array' : 'sequence' });
      parts = [];
      partsChars = 0;
      inValue = false;
      if (mode === 'array') state.expect = 'comma_or_end';
    };

    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i] as string;
      if (inValue) {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') {
            inString = false;
            if (depth === 0) endValue(i + 1);
          }
        } else if (bare) {
          if (WS.has(c) || c === ',' || c === ']' || c === '}') {
            endValue(i);
            i--; // the delimiter belongs to the enclosing level
            continue;
          }
        } else if (c === '"') inString = true;
        else if (c === '{' || c === '[') depth++;
        else if (c === '}' || c === ']') {
          depth--;
          if (depth === 0) endValue(i + 1);
        }
        if (c === '\n') line++;
        continue;
      }

      if (c === '\n') line++;
      if (WS.has(c)) continue;
      if (mode === 'done') {
        pending.push({ kind: 'error', line, detail: "unexpected text after the closing ']'" });
        trailing = true;
        break;
      }
      if (mode === 'start' && c === '[') {
        mode = 'array';
        continue;
      }
      if (mode === 'start') mode = 'sequence';
      if (mode === 'array') {
        if (c === ']') {
          // A trailing comma before ']' is tolerated: hand-edited files often have one.
          mode = 'done';
          continue;
        }
        if (c === ',') {
          if (state.expect !== 'comma_or_end') pending.push({ kind: 'error', line, detail: "unexpected ','" });
          state.expect = 'value';
          continue;
        }
        if (state.expect === 'comma_or_end') pending.push({ kind: 'error', line, detail: "expected ',' or ']' between records" });
      }
      // Start of a value.
      inValue = true;
      valueLine = line;
      segStart = i;
      depth = c === '{' || c === '[' ? 1 : 0;
      inString = c === '"';
      bare = !inString && depth === 0;
      escaped = false;
    }

    if (inValue) {
      parts.push(chunk.slice(segStart));
      partsChars += chunk.length - segStart;
    }
    yield* pending;
    if (trailing) return;
    if (inValue && partsChars > maxValueChars) {
      yield { kind: 'too_large', line: valueLine, chars: partsChars };
      return;
    }
  }

  if (inValue) {
    if (bare) yield { kind: 'value', line: valueLine, text: parts.join(''), mode: mode === 'array' ? 'array' : 'sequence' };
    else yield { kind: 'error', line: valueLine, detail: 'unexpected end of file inside this record' };
  }
  if (mode === 'array') yield { kind: 'error', line, detail: "unexpected end of file: missing closing ']'" };
}

/**
 * `JSON.parse`, but NaN (which Python's json.dumps writes for missing scores) becomes null.
 * The rewrite only runs after a normal parse fails, so valid JSON pays nothing.
 */
export function parseJsonLenient(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (first) {
    if (!text.includes('NaN')) throw first;
    try {
      return JSON.parse(replaceNaN(text));
    } catch {
      throw first;
    }
  }
}

function replaceNaN(text: string): string {
  let out = '';
  let runStart = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === 'N' && text.startsWith('NaN', i)) {
      out += `${text.slice(runStart, i)}null`;
      i += 2;
      runStart = i + 1;
    }
  }
  return out + text.slice(runStart);
}
