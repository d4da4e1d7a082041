// Marks the words of the question and ground truth where they occur in a retrieved context, so an
// expert sees at a glance whether a context is about the question. Latin words of 3+ letters match
// whole-word and case-insensitively; Chinese text matches by character pairs (bigrams). A Latin
// word written against Chinese text ("API调用", "RAG系统") is a word like any other: cut into
// letter pairs, it would mark "ap" and "pi" inside every English word of the contexts.
import { escapeHtml, type SafeHtml } from '../http/html.ts';

export type Segment = { text: string; mark: boolean };
export interface HighlightTerms { words: Set<string>; bigrams: Set<string> }

const STOP = new Set(['the', 'and', 'for', 'are', 'was', 'what', 'which', 'who', 'how', 'does', 'did', 'with', 'from', 'that', 'this', 'your', 'you', 'can', 'not', 'have', 'has', 'will', 'into', 'about', 'when', 'where']);
const HAN = /\p{Script=Han}/u;
const LETTER_OR_NUMBER = /[\p{L}\p{N}]/u;

// This runs for every context of every item shown, so characters are classified and lowercased
// through tables of the Basic Multilingual Plane filled on first use: Unicode-property regexes and
// toLowerCase() per character cost far more than a table read. Characters beyond the BMP (rare)
// take the slow path every time.
const LETTER = 1, HAN_CHAR = 2, KNOWN = 4;
/** A Han character that is a letter: what character pairs are made of. */
const HAN_LETTER = LETTER | HAN_CHAR;
const bmpClass = new Uint8Array(0x10000);
const bmpLower = new Int32Array(0x10000).fill(-2); // -2: not computed yet

function classOf(cp: number): number {
  if (cp < 0x10000 && bmpClass[cp] !== 0) return bmpClass[cp]!;
  const c = String.fromCodePoint(cp);
  const k = KNOWN | (LETTER_OR_NUMBER.test(c) ? LETTER : 0) | (HAN.test(c) ? HAN_CHAR : 0);
  if (cp < 0x10000) bmpClass[cp] = k;
  return k;
}

/** The lowercase of one character as a code point, or -1 when it lowercases to several (it then ends no bigram). */
function lowerCodePoint(cp: number): number {
  if (cp < 0x10000 && bmpLower[cp] !== -2) return bmpLower[cp]!;
  const l = String.fromCodePoint(cp).toLowerCase();
  const lcp = l.codePointAt(0)!;
  const lower = l.length === (lcp > 0xffff ? 2 : 1) ? lcp : -1;
  if (cp < 0x10000) bmpLower[cp] = lower;
  return lower;
}

/** The code point at UTF-16 offset i (a lone surrogate stands for itself); its length is 2 when above 0xffff. */
function codePointAt(text: string, i: number): number {
  const hi = text.charCodeAt(i);
  if (hi < 0xd800 || hi > 0xdbff || i + 1 >= text.length) return hi;
  const lo = text.charCodeAt(i + 1);
  return lo < 0xdc00 || lo > 0xdfff ? hi : ((hi - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
}

/** The offset of the character after the one at UTF-16 offset i. */
function nextAt(text: string, i: number): number {
  return i + (codePointAt(text, i) > 0xffff ? 2 : 1);
}

/** The end (UTF-16 offset) of the run of characters whose class, under `mask`, is `want`, from offset i. */
function runEnd(text: string, i: number, mask: number, want: number): number {
  const n = text.length;
  while (i < n) {
    const cp = codePointAt(text, i);
    if ((classOf(cp) & mask) !== want) break;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

export function highlightTerms(...texts: string[]): HighlightTerms {
  const words = new Set<string>(), bigrams = new Set<string>();
  for (const text of texts) {
    // Lowercased as a whole (not per character) so that context-dependent mappings such as the
    // Greek final sigma come out as the user typed them.
    const lower = text.toLowerCase();
    for (let i = 0; i < lower.length;) {
      const start = i;
      const k = classOf(codePointAt(lower, i)) & HAN_LETTER;
      if (k === HAN_LETTER) {
        // A run of Han characters: its character pairs. Letters next to it (API调用) are a word of their own.
        i = runEnd(lower, i, HAN_LETTER, HAN_LETTER);
        for (let a = start, b = nextAt(lower, a); b < i; a = b, b = nextAt(lower, b)) bigrams.add(lower.slice(a, nextAt(lower, b)));
      } else if (k === LETTER) {
        i = runEnd(lower, i, HAN_LETTER, LETTER); // a run of other letters and numbers, up to a Han character
        const w = lower.slice(start, i);
        if (w.length >= 3 && !STOP.has(w)) words.add(w);
      } else {
        i = nextAt(lower, i);
      }
    }
  }
  return { words, bigrams };
}

/**
 * The terms in the form the matcher reads. Bigrams: an open-addressing hash set of code point pairs
 * behind a small bit filter on their first characters (most characters of a context start no
 * bigram). Words: the set, behind a bit filter on (length, first letter) of the ASCII ones, so that
 * most words of a context are rejected without building their lowercase.
 */
interface Matcher {
  terms: HighlightTerms | null;
  firsts: Uint32Array; pairFirst: Int32Array; pairSecond: Int32Array; pairMask: number;
  words: Set<string>; asciiWordKeys: Uint32Array;
}
const FIRSTS_BITS = 2048;
const MAX_WORD_KEY_LENGTH = 63;
const pairSlot = (a: number, b: number, mask: number) => ((Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)) >>> 0) & mask;

// One matcher, rebuilt in place when other terms come (a page marks all contexts of an item with the
// same terms, so it is built once per item): typed arrays of more than a few dozen bytes live
// outside the JS heap, where making each costs microseconds and counts towards the next collection,
// and the workspace would otherwise make four of them for every item it shows. Highlighting is
// synchronous, so nothing else can use the matcher while a text is being marked.
const matcher: Matcher = {
  terms: null, firsts: new Uint32Array(FIRSTS_BITS / 32), pairFirst: new Int32Array(8), pairSecond: new Int32Array(8), pairMask: -1,
  words: new Set(), asciiWordKeys: new Uint32Array(MAX_WORD_KEY_LENGTH + 1),
};

function matcherOf(terms: HighlightTerms): Matcher {
  const m = matcher;
  if (m.terms === terms) return m;
  let size = 8;
  while (size < terms.bigrams.size * 4) size *= 2;
  if (m.pairFirst.length < size) {
    m.pairFirst = new Int32Array(size);
    m.pairSecond = new Int32Array(size);
  }
  const { firsts, pairFirst, pairSecond, asciiWordKeys } = m;
  firsts.fill(0);
  pairFirst.fill(-1, 0, size);
  for (const b of terms.bigrams) {
    const a = b.codePointAt(0)!;
    const second = b.codePointAt(a > 0xffff ? 2 : 1)!;
    firsts[(a % FIRSTS_BITS) >>> 5]! |= 1 << (a & 31);
    let h = pairSlot(a, second, size - 1);
    while (pairFirst[h] !== -1 && !(pairFirst[h] === a && pairSecond[h] === second)) h = (h + 1) & (size - 1);
    pairFirst[h] = a;
    pairSecond[h] = second;
  }
  // Bit (first letter & 31) of entry min(length, 63), for ASCII words.
  asciiWordKeys.fill(0);
  for (const w of terms.words) {
    if (/^[\0-\x7f]*$/.test(w)) asciiWordKeys[Math.min(w.length, MAX_WORD_KEY_LENGTH)]! |= 1 << (w.charCodeAt(0) & 31);
  }
  m.pairMask = terms.bigrams.size > 0 ? size - 1 : -1;
  m.words = terms.words;
  m.terms = terms;
  return m;
}

function hasPair(m: Matcher, a: number, b: number): boolean {
  if ((m.firsts[(a % FIRSTS_BITS) >>> 5]! & (1 << (a & 31))) === 0) return false;
  for (let h = pairSlot(a, b, m.pairMask); m.pairFirst[h] !== -1; h = (h + 1) & m.pairMask) {
    if (m.pairFirst[h] === a && m.pairSecond[h] === b) return true;
  }
  return false;
}

function lowerEach(s: string): string {
  let out = '';
  for (const c of s) out += c.toLowerCase();
  return out;
}

// The marks of the text being marked, reused (and grown) from text to text for the same reason as the matcher.
let scratchMarks = new Uint8Array(1024);

/** The first n entries of the marks buffer, cleared. */
function freshMarks(n: number): Uint8Array {
  if (scratchMarks.length < n) scratchMarks = new Uint8Array(Math.max(n, 2 * scratchMarks.length));
  scratchMarks.fill(0, 0, n);
  return scratchMarks;
}

/**
 * One mark per UTF-16 unit (both halves of a surrogate pair alike), or null when nothing matches;
 * the marks are valid until the next text is marked (only the first text.length entries are its).
 * A pair of adjacent characters whose lowercase is a term bigram marks both; a run of non-Han
 * letters whose lowercase (character by character) is a term word marks the run.
 */
function markUnits(text: string, m: Matcher): Uint8Array | null {
  const n = text.length;
  let marks: Uint8Array | null = null;
  if (m.pairMask >= 0) {
    let prev = -1, prevStart = 0;
    for (let i = 0; i < n;) {
      const cp = codePointAt(text, i);
      const len = cp > 0xffff ? 2 : 1;
      const lower = lowerCodePoint(cp);
      if (prev >= 0 && lower >= 0 && hasPair(m, prev, lower)) {
        marks ??= freshMarks(n);
        for (let k = prevStart; k < i + len; k++) marks[k] = 1;
      }
      prev = lower;
      prevStart = i;
      i += len;
    }
  }
  if (m.words.size > 0) {
    for (let i = 0; i < n;) {
      const start = i;
      let ascii = true;
      while (i < n) { // the run of non-Han letters and numbers from `start`, ASCII classified inline
        const c = text.charCodeAt(i);
        if (c < 0x80) {
          if (((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) || (c >= 0x30 && c <= 0x39)) { i++; continue; }
          break;
        }
        const cp = codePointAt(text, i);
        if ((classOf(cp) & HAN_LETTER) !== LETTER) break;
        ascii = false;
        i += cp > 0xffff ? 2 : 1;
      }
      if (i === start) { i = nextAt(text, i); continue; }
      // An ASCII run lowercases to an ASCII word of the same length: most are ruled out by the filter.
      if (ascii && (m.asciiWordKeys[Math.min(i - start, MAX_WORD_KEY_LENGTH)]! & (1 << (text.charCodeAt(start) & 31))) === 0) continue;
      const word = ascii ? text.slice(start, i).toLowerCase() : lowerEach(text.slice(start, i));
      if (m.words.has(word)) (marks ??= freshMarks(n)).fill(1, start, i);
    }
  }
  return marks;
}

/** Calls `piece` for each maximal run of marked or unmarked units of the text, in order. */
function eachPiece(text: string, terms: HighlightTerms, piece: (start: number, end: number, mark: boolean) => void): void {
  const marks = markUnits(text, matcherOf(terms));
  if (!marks) {
    if (text.length > 0) piece(0, text.length, false);
    return;
  }
  for (let start = 0, k = 1; k <= text.length; k++) {
    if (k === text.length || marks[k] !== marks[start]) {
      piece(start, k, marks[start] === 1);
      start = k;
    }
  }
}

/** The text cut into marked and unmarked pieces. */
export function highlight(text: string, terms: HighlightTerms): Segment[] {
  const out: Segment[] = [];
  eachPiece(text, terms, (start, end, mark) => out.push({ text: text.slice(start, end), mark }));
  return out;
}

/**
 * The text as escaped HTML with the marked pieces in `<mark>`: what the view renders for `highlight`'s
 * segments, in one string built straight from the marks (the workspace shows every item's contexts this way).
 */
export function highlightHtml(text: string, terms: HighlightTerms): SafeHtml {
  let html = '';
  eachPiece(text, terms, (start, end, mark) => {
    const escaped = escapeHtml(text.slice(start, end));
    html += mark ? `<mark>${escaped}</mark>` : escaped;
  });
  return html as SafeHtml;
}
