// Tokenisers for the non-LLM text metrics. For the metrics that carry Ragas's names, exactly what
// Ragas's libraries do: sacreBLEU's default '13a' tokenizer (BleuScore) and rouge_score's tokenizer
// with the Porter stemmer (RougeScore). For goldset's Chinese-aware variants: 13a with every CJK
// character its own token (sacreBLEU's 'zh' rules), and letters of every script with every Han
// character its own token.
import { porterStem } from './porter.ts';

// Code-point ranges that sacreBLEU's 'zh' tokenizer splits into single-character tokens
// (Han ideographs, CJK and full-width punctuation, radicals, bopomofo, CJK symbols).
// Deviation: sacreBLEU writes the Extension B / Compatibility Supplement bounds as
// '\u20000' etc., which Python reads as two-character strings, so it really splits
// U+2001–U+2A6D (general punctuation, arrows, maths symbols) and never Extension B.
// We split the intended planes instead and leave U+2001–U+2A6D to the 13a rules, so
// English text with curly quotes tokenises exactly as under 13a.
const CJK_RANGES: readonly (readonly [number, number])[] = [
  [0x2e80, 0x2eff], // CJK radicals supplement
  [0x2f00, 0x2fdf], // Kangxi radicals
  [0x2ff0, 0x2fff], // ideographic description characters
  [0x3000, 0x303f], // CJK symbols and punctuation (。、「」 and U+3000 ideographic space)
  [0x3100, 0x312f], // bopomofo
  [0x31a0, 0x31bf], // bopomofo extended
  [0x31c0, 0x31ef], // CJK strokes
  [0x3200, 0x32ff], // enclosed CJK letters and months
  [0x3300, 0x33ff], // CJK compatibility
  [0x3400, 0x4db5], // extension A
  [0x4e00, 0x9fbb], // unified ideographs (sacreBLEU's two ranges, joined)
  [0xf900, 0xfa2d], // compatibility ideographs
  [0xfa30, 0xfa6a],
  [0xfa70, 0xfad9],
  [0xfe10, 0xfe1f], // vertical forms
  [0xfe30, 0xfe4f], // CJK compatibility forms
  [0xff00, 0xffef], // full-width ASCII and punctuation (，！？：；（）), half-width forms
  [0x2600, 0x26ff], // miscellaneous symbols (in sacreBLEU's list)
  [0x2700, 0x27bf], // dingbats (in sacreBLEU's list)
  [0x20000, 0x2a6d6], // extension B
  [0x2f800, 0x2fa1d], // compatibility ideographs supplement
];

export function isBleuCjk(codePoint: number): boolean {
  for (const [lo, hi] of CJK_RANGES) if (codePoint >= lo && codePoint <= hi) return true;
  return false;
}

// Python's str.split()/rstrip() whitespace (str.isspace), which is wider than JS \s in
// \x1c–\x1f and \x85 and narrower in U+FEFF.
const PY_SPACE = '\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_SPLIT = new RegExp(`[${PY_SPACE}]+`, 'u');
const PY_RSTRIP = new RegExp(`[${PY_SPACE}]+$`, 'u');

// mteval-v13a punctuation rules as in sacreBLEU's TokenizerRegexp, in order:
// split { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ /
const PUNCT = /([\x7b-\x7e\x5b-\x60\x20-\x26\x28-\x2b\x3a-\x40\x2f])/gu;
// period and comma, unless preceded by a digit ...
const PERIOD_COMMA_AFTER_NON_DIGIT = /([^0-9])([.,])/gu;
// ... or followed by a digit
const PERIOD_COMMA_BEFORE_NON_DIGIT = /([.,])([^0-9])/gu;
// dash after a digit
const DASH_AFTER_DIGIT = /([0-9])(-)/gu;

function splitWhitespace(text: string): string[] {
  return text.split(PY_SPLIT).filter((t) => t !== '');
}

/** sacreBLEU's segment preparation: right-strip, then 13a's language-independent replacements. */
function prepare13a(text: string): string {
  return text.replace(PY_RSTRIP, '')
    .replaceAll('<skipped>', '')
    .replaceAll('-\n', '')
    .replaceAll('\n', ' ')
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>');
}

/** 13a's punctuation rules and the final whitespace split. */
function punctuate13a(line: string): string[] {
  return splitWhitespace(` ${line} `
    .replace(PUNCT, ' $1 ')
    .replace(PERIOD_COMMA_AFTER_NON_DIGIT, '$1 $2 ')
    .replace(PERIOD_COMMA_BEFORE_NON_DIGIT, ' $1 $2')
    .replace(DASH_AFTER_DIGIT, '$1 $2 '));
}

/**
 * sacreBLEU's default '13a' tokenizer, what Ragas's BleuScore uses: an unspaced Chinese sentence
 * stays one token, so its BLEU is all or nothing.
 */
export function tokenize13a(text: string): string[] {
  return punctuate13a(prepare13a(text));
}

/**
 * BLEU tokens of the Chinese-aware variant: 13a for Latin text, and every CJK character its own
 * token as under sacreBLEU's 'zh' tokenizer.
 */
export function tokenizeBleuZh(text: string): string[] {
  let spaced = '';
  for (const ch of prepare13a(text)) spaced += isBleuCjk(ch.codePointAt(0)!) ? ` ${ch} ` : ch;
  return punctuate13a(spaced);
}

const NOT_ALPHANUMERIC = /[^a-z0-9]+/gu;
const VALID_TOKEN = /^[a-z0-9]+$/;

/**
 * rouge_score's tokenizer as Ragas's RougeScore runs it (use_stemmer=True): lowercase, every run
 * of characters other than [a-z0-9] becomes a space, tokens longer than 3 characters are Porter
 * stemmed. Every Chinese character is dropped, so ROUGE of Chinese text is 0.
 */
export function tokenizeRougeScore(text: string): string[] {
  const tokens: string[] = [];
  for (const raw of text.toLowerCase().replace(NOT_ALPHANUMERIC, ' ').split(PY_SPLIT)) {
    const token = raw.length > 3 ? porterStem(raw) : raw;
    if (VALID_TOKEN.test(token)) tokens.push(token);
  }
  return tokens;
}

const HAN = /\p{Script=Han}/gu;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * ROUGE tokens of the Chinese-aware variant: lowercase, then maximal runs of letters/digits of
 * every script, with each Han character a token of its own (rouge_score keeps only [a-z0-9] runs,
 * which drops every Chinese character and splits accented words). No stemming.
 */
export function tokenizeRougeZh(text: string): string[] {
  const spaced = text.toLowerCase().replace(HAN, ' $& ');
  return spaced.match(WORD) ?? [];
}
