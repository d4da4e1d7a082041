// @ts-check
// Marks the words of the question and ground truth where they occur in a retrieved context, so an
// expert sees at a glance whether a context is about the question. Latin words of 3+ letters match
// whole-word and case-insensitively; Chinese text matches by character pairs (bigrams). A Latin
// word written against Chinese text ("API调用", "RAG系统") is a word like any other: cut into
// letter pairs, it would mark "ap" and "pi" inside every English word of the contexts.
//
// It runs in the browser (an ES module the layout loads): pages send the contexts as plain text and
// mark the elements `data-highlight` with the terms of the elements `data-highlight-terms` (the
// question and ground truth of the one item a page shows), on load and after every htmx swap. On the
// server it cost ~100 µs of every save-and-next under load (bench/README.md, 2026-12-03); in the
// browser it is a fraction of a millisecond per item. Without JavaScript the contexts show unmarked.
// The tests import the same file (test/unit/highlight.test.ts).

/** @typedef {{ text: string, mark: boolean }} Segment */
/** @typedef {{ words: Set<string>, bigrams: Set<string> }} HighlightTerms */

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

/** @param {number} cp @returns {number} */
function classOf(cp) {
  if (cp < 0x10000 && bmpClass[cp] !== 0) return /** @type {number} */ (bmpClass[cp]);
  const c = String.fromCodePoint(cp);
  const k = KNOWN | (LETTER_OR_NUMBER.test(c) ? LETTER : 0) | (HAN.test(c) ? HAN_CHAR : 0);
  if (cp < 0x10000) bmpClass[cp] = k;
  return k;
}

/** The lowercase of one character as a code point, or -1 when it lowercases to several (it then ends no bigram). */
/** @param {number} cp @returns {number} */
function lowerCodePoint(cp) {
  if (cp < 0x10000 && bmpLower[cp] !== -2) return /** @type {number} */ (bmpLower[cp]);
  const l = String.fromCodePoint(cp).toLowerCase();
  const lcp = /** @type {number} */ (l.codePointAt(0));
  const lower = l.length === (lcp > 0xffff ? 2 : 1) ? lcp : -1;
  if (cp < 0x10000) bmpLower[cp] = lower;
  return lower;
}

/** The code point at UTF-16 offset i (a lone surrogate stands for itself); its length is 2 when above 0xffff. */
/** @param {string} text @param {number} i @returns {number} */
function codePointAt(text, i) {
  const hi = text.charCodeAt(i);
  if (hi < 0xd800 || hi > 0xdbff || i + 1 >= text.length) return hi;
  const lo = text.charCodeAt(i + 1);
  return lo < 0xdc00 || lo > 0xdfff ? hi : ((hi - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
}

/** The offset of the character after the one at UTF-16 offset i. */
/** @param {string} text @param {number} i @returns {number} */
function nextAt(text, i) {
  return i + (codePointAt(text, i) > 0xffff ? 2 : 1);
}

/** The end (UTF-16 offset) of the run of characters whose class, under `mask`, is `want`, from offset i. */
/** @param {string} text @param {number} i @param {number} mask @param {number} want @returns {number} */
function runEnd(text, i, mask, want) {
  const n = text.length;
  while (i < n) {
    const cp = codePointAt(text, i);
    if ((classOf(cp) & mask) !== want) break;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

/**
 * The terms of the question and ground truth: their Latin words of 3+ letters (stop words left out) and
 * the character pairs of their Han runs, lowercased.
 * @param {...string} texts
 * @returns {HighlightTerms}
 */
export function highlightTerms(...texts) {
  /** @type {Set<string>} */
  const words = new Set();
  /** @type {Set<string>} */
  const bigrams = new Set();
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
/**
 * @typedef {{ terms: HighlightTerms | null, firsts: Uint32Array, pairFirst: Int32Array, pairSecond: Int32Array, pairMask: number,
 *   words: Set<string>, asciiWordKeys: Uint32Array }} Matcher
 */
const FIRSTS_BITS = 2048;
const MAX_WORD_KEY_LENGTH = 63;
/** @param {number} a @param {number} b @param {number} mask */
const pairSlot = (a, b, mask) => ((Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)) >>> 0) & mask;

// One matcher, rebuilt in place when other terms come (a page marks all contexts of an item with the
// same terms, so it is built once per item): typed arrays of more than a few dozen bytes live
// outside the JS heap, where making each costs microseconds and counts towards the next collection,
// and the workspace would otherwise make four of them for every item it shows. Highlighting is
// synchronous, so nothing else can use the matcher while a text is being marked.
/** @type {Matcher} */
const matcher = {
  terms: null, firsts: new Uint32Array(FIRSTS_BITS / 32), pairFirst: new Int32Array(8), pairSecond: new Int32Array(8), pairMask: -1,
  words: new Set(), asciiWordKeys: new Uint32Array(MAX_WORD_KEY_LENGTH + 1),
};

/** @param {HighlightTerms} terms @returns {Matcher} */
function matcherOf(terms) {
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
    const a = /** @type {number} */ (b.codePointAt(0));
    const second = /** @type {number} */ (b.codePointAt(a > 0xffff ? 2 : 1));
    const word = (a % FIRSTS_BITS) >>> 5;
    firsts[word] = /** @type {number} */ (firsts[word]) | (1 << (a & 31));
    let h = pairSlot(a, second, size - 1);
    while (pairFirst[h] !== -1 && !(pairFirst[h] === a && pairSecond[h] === second)) h = (h + 1) & (size - 1);
    pairFirst[h] = a;
    pairSecond[h] = second;
  }
  // Bit (first letter & 31) of entry min(length, 63), for ASCII words.
  asciiWordKeys.fill(0);
  for (const w of terms.words) {
    if (!/^[\0-\x7f]*$/.test(w)) continue;
    const key = Math.min(w.length, MAX_WORD_KEY_LENGTH);
    asciiWordKeys[key] = /** @type {number} */ (asciiWordKeys[key]) | (1 << (w.charCodeAt(0) & 31));
  }
  m.pairMask = terms.bigrams.size > 0 ? size - 1 : -1;
  m.words = terms.words;
  m.terms = terms;
  return m;
}

/** @param {Matcher} m @param {number} a @param {number} b @returns {boolean} */
function hasPair(m, a, b) {
  if ((/** @type {number} */ (m.firsts[(a % FIRSTS_BITS) >>> 5]) & (1 << (a & 31))) === 0) return false;
  for (let h = pairSlot(a, b, m.pairMask); m.pairFirst[h] !== -1; h = (h + 1) & m.pairMask) {
    if (m.pairFirst[h] === a && m.pairSecond[h] === b) return true;
  }
  return false;
}

/** @param {string} s @returns {string} */
function lowerEach(s) {
  let out = '';
  for (const c of s) out += c.toLowerCase();
  return out;
}

// The marks of the text being marked, reused (and grown) from text to text for the same reason as the matcher.
let scratchMarks = new Uint8Array(1024);

/** The first n entries of the marks buffer, cleared. */
/** @param {number} n @returns {Uint8Array} */
function freshMarks(n) {
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
/** @param {string} text @param {Matcher} m @returns {Uint8Array | null} */
function markUnits(text, m) {
  const n = text.length;
  /** @type {Uint8Array | null} */
  let marks = null;
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
      if (ascii && (/** @type {number} */ (m.asciiWordKeys[Math.min(i - start, MAX_WORD_KEY_LENGTH)]) & (1 << (text.charCodeAt(start) & 31))) === 0) continue;
      const word = ascii ? text.slice(start, i).toLowerCase() : lowerEach(text.slice(start, i));
      if (m.words.has(word)) (marks ??= freshMarks(n)).fill(1, start, i);
    }
  }
  return marks;
}

/** Calls `piece` for each maximal run of marked or unmarked units of the text, in order. */
/** @param {string} text @param {HighlightTerms} terms @param {(start: number, end: number, mark: boolean) => void} piece */
function eachPiece(text, terms, piece) {
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
/** @param {string} text @param {HighlightTerms} terms @returns {Segment[]} */
export function highlight(text, terms) {
  /** @type {Segment[]} */
  const out = [];
  eachPiece(text, terms, (start, end, mark) => out.push({ text: text.slice(start, end), mark }));
  return out;
}

/**
 * Marks every context of the page not marked yet (elements `data-highlight`) with the terms of the
 * page's question and ground truth (elements `data-highlight-terms`): text nodes and `<mark>`
 * elements, never markup parsed from text.
 */
function markContexts() {
  const targets = Array.from(document.querySelectorAll('[data-highlight]:not([data-highlighted])'));
  if (targets.length === 0) return;
  const terms = highlightTerms(...Array.from(document.querySelectorAll('[data-highlight-terms]'), (el) => el.textContent ?? ''));
  for (const el of targets) {
    el.setAttribute('data-highlighted', '');
    const segments = highlight(el.textContent ?? '', terms);
    if (!segments.some((s) => s.mark)) continue;
    el.replaceChildren(...segments.map((s) => {
      if (!s.mark) return document.createTextNode(s.text);
      const mark = document.createElement('mark');
      mark.textContent = s.text;
      return mark;
    }));
  }
}

if (typeof document !== 'undefined') {
  markContexts();
  document.addEventListener('htmx:after:swap', markContexts);
}
