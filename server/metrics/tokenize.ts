// Tokenisers for the non-LLM text metrics: a sacreBLEU-compatible one for BLEU
// (13a rules for Latin text, one token per character for Chinese) and a
// rouge_score-style one for ROUGE (lowercase, alphanumeric runs, Han per character).

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

/**
 * BLEU tokens. Latin text: identical to sacreBLEU's default '13a' tokenizer (what Ragas's
 * BleuScore uses). Chinese text: every CJK character becomes its own token as under
 * sacreBLEU's 'zh' tokenizer; Ragas's 13a default would leave a whole unspaced Chinese sentence
 * as one token, which makes BLEU all-or-nothing for Chinese.
 */
export function tokenizeBleu(text: string): string[] {
  // sacreBLEU right-strips the segment before tokenising.
  let line = text.replace(PY_RSTRIP, '');
  // 13a language-independent part.
  line = line
    .replaceAll('<skipped>', '')
    .replaceAll('-\n', '')
    .replaceAll('\n', ' ')
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>');
  let spaced = '';
  for (const ch of line) spaced += isBleuCjk(ch.codePointAt(0)!) ? ` ${ch} ` : ch;
  spaced = ` ${spaced} `
    .replace(PUNCT, ' $1 ')
    .replace(PERIOD_COMMA_AFTER_NON_DIGIT, '$1 $2 ')
    .replace(PERIOD_COMMA_BEFORE_NON_DIGIT, ' $1 $2')
    .replace(DASH_AFTER_DIGIT, '$1 $2 ');
  return splitWhitespace(spaced);
}

const HAN = /\p{Script=Han}/gu;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * ROUGE tokens: lowercase, then maximal runs of letters/digits, with each Han character a token
 * of its own. rouge_score keeps only [a-z0-9] runs, which drops every Chinese character (ROUGE
 * would always be 0 for Chinese) and splits accented words; we keep letters and digits of every
 * script instead, so for ASCII text the tokens are the same. Ragas also enables rouge_score's
 * Porter stemmer (English, tokens longer than 3 characters); we do not stem.
 */
export function tokenizeRouge(text: string): string[] {
  const spaced = text.toLowerCase().replace(HAN, ' $& ');
  return spaced.match(WORD) ?? [];
}
