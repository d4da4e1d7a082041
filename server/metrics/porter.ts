// The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", Program 14.3, 1980) with
// the departures of NLTK's PorterStemmer in its default mode, NLTK_EXTENSIONS, because that is the
// stemmer rouge_score builds (`porter.PorterStemmer()`, no mode given) when Ragas's RougeScore asks
// for `use_stemmer=True`. Those departures, all kept here:
//   - a table of irregular forms (sky/skies → sky, dying → die, news, proceed, …) bypasses the steps;
//   - words of one or two letters are returned as they are;
//   - step 1a: -ies in a four-letter word → -ie (dies → die);
//   - step 1b: -ied → -ie in a four-letter word, else -i (spied → spi);
//   - *o also holds for a two-letter stem vowel + consonant (so are, eve, ice … keep their -e);
//   - step 1c: y → i only after a consonant that is not the first letter (happy → happi, enjoy stays);
//   - step 2: -alli → -al first and step 2 again; -bli → -ble (not -abli); -fulli → -ful; -logi → -log
//     with the l counted in the stem (geology → geolog);
//   - each step applies the rule of the first suffix that matches, and none if its condition fails.
// Input: a lower-case ASCII word (rouge_score only stems [a-z0-9] tokens longer than 3 characters).

const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ['sky', 'sky'], ['skies', 'sky'], ['dying', 'die'], ['lying', 'lie'], ['tying', 'tie'], ['news', 'news'],
  ['innings', 'inning'], ['inning', 'inning'], ['outings', 'outing'], ['outing', 'outing'],
  ['cannings', 'canning'], ['canning', 'canning'], ['howe', 'howe'],
  ['proceed', 'proceed'], ['exceed', 'exceed'], ['succeed', 'succeed'],
]);

function isVowelLetter(c: string): boolean {
  return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u';
}

/** Porter's consonant: not a, e, i, o, u, and not a y that follows a consonant (digits count as consonants). */
function isConsonant(word: string, i: number): boolean {
  const c = word[i]!;
  if (isVowelLetter(c)) return false;
  if (c === 'y') return i === 0 ? true : !isConsonant(word, i - 1);
  return true;
}

/** m: the number of vowel→consonant transitions in the stem, [C](VC)^m[V]. */
function measure(stem: string): number {
  let m = 0;
  for (let i = 1; i < stem.length; i++) if (!isConsonant(stem, i - 1) && isConsonant(stem, i)) m++;
  return m;
}

function containsVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** *d: ends with a double consonant. */
function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** *o: ends consonant-vowel-consonant, the last not w, x or y; or (NLTK) is a two-letter vowel-consonant stem. */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n >= 3 && isConsonant(word, n - 3) && !isConsonant(word, n - 2) && isConsonant(word, n - 1)) {
    const last = word[n - 1];
    return last !== 'w' && last !== 'x' && last !== 'y';
  }
  return n === 2 && !isConsonant(word, 0) && isConsonant(word, 1);
}

type Condition = (stem: string) => boolean;
/** [suffix, replacement, condition on the stem without the suffix]; suffix '*d' means "a double consonant". */
type Rule = readonly [string, string, Condition | null];

const positive: Condition = (stem) => measure(stem) > 0;
const aboveOne: Condition = (stem) => measure(stem) > 1;

/** The first rule whose suffix matches decides: applied when its condition holds, else the word stays. */
function applyRules(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (suffix === '*d') {
      if (!endsDoubleConsonant(word)) continue;
      const stem = word.slice(0, -2);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
    if (!word.endsWith(suffix)) continue;
    const stem = suffix === '' ? word : word.slice(0, -suffix.length);
    return condition === null || condition(stem) ? stem + replacement : word;
  }
  return word;
}

const STEP1A: readonly Rule[] = [['sses', 'ss', null], ['ies', 'i', null], ['ss', 'ss', null], ['s', '', null]];

function step1a(word: string): string {
  if (word.endsWith('ies') && word.length === 4) return `${word.slice(0, -3)}ie`;
  return applyRules(word, STEP1A);
}

function step1b(word: string): string {
  if (word.endsWith('ied')) return word.slice(0, -3) + (word.length === 4 ? 'ie' : 'i');
  if (word.endsWith('eed')) {
    const stem = word.slice(0, -3);
    return measure(stem) > 0 ? `${stem}ee` : word;
  }
  let stem: string | null = null;
  for (const suffix of ['ed', 'ing']) {
    if (word.endsWith(suffix) && containsVowel(word.slice(0, -suffix.length))) {
      stem = word.slice(0, -suffix.length);
      break;
    }
  }
  if (stem === null) return word;
  const last = stem[stem.length - 1]!;
  return applyRules(stem, [
    ['at', 'ate', null],
    ['bl', 'ble', null],
    ['iz', 'ize', null],
    ['*d', last, () => last !== 'l' && last !== 's' && last !== 'z'],
    ['', 'e', (s) => measure(s) === 1 && endsCvc(s)],
  ]);
}

function step1c(word: string): string {
  return applyRules(word, [['y', 'i', (stem) => stem.length > 1 && isConsonant(stem, stem.length - 1)]]);
}

const STEP2: readonly Rule[] = [
  ['ational', 'ate', positive], ['tional', 'tion', positive], ['enci', 'ence', positive], ['anci', 'ance', positive],
  ['izer', 'ize', positive], ['bli', 'ble', positive], ['alli', 'al', positive], ['entli', 'ent', positive],
  ['eli', 'e', positive], ['ousli', 'ous', positive], ['ization', 'ize', positive], ['ation', 'ate', positive],
  ['ator', 'ate', positive], ['alism', 'al', positive], ['iveness', 'ive', positive], ['fulness', 'ful', positive],
  ['ousness', 'ous', positive], ['aliti', 'al', positive], ['iviti', 'ive', positive], ['biliti', 'ble', positive],
  ['fulli', 'ful', positive],
];

function step2(word: string): string {
  if (word.endsWith('alli') && measure(word.slice(0, -4)) > 0) return step2(`${word.slice(0, -4)}al`);
  // -logi → -log keeps the l in the stem it measures: word minus "ogi".
  return applyRules(word, [...STEP2, ['logi', 'log', () => measure(word.slice(0, -3)) > 0]]);
}

const STEP3: readonly Rule[] = [
  ['icate', 'ic', positive], ['ative', '', positive], ['alize', 'al', positive], ['iciti', 'ic', positive],
  ['ical', 'ic', positive], ['ful', '', positive], ['ness', '', positive],
];

const STEP4: readonly Rule[] = [
  ['al', '', aboveOne], ['ance', '', aboveOne], ['ence', '', aboveOne], ['er', '', aboveOne], ['ic', '', aboveOne],
  ['able', '', aboveOne], ['ible', '', aboveOne], ['ant', '', aboveOne], ['ement', '', aboveOne], ['ment', '', aboveOne],
  ['ent', '', aboveOne], ['ion', '', (stem) => measure(stem) > 1 && (stem.endsWith('s') || stem.endsWith('t'))],
  ['ou', '', aboveOne], ['ism', '', aboveOne], ['ate', '', aboveOne], ['iti', '', aboveOne], ['ous', '', aboveOne],
  ['ive', '', aboveOne], ['ize', '', aboveOne],
];

/** Step 5a tries both e-rules (m > 1; m = 1 and not *o), unlike the other steps. */
function step5a(word: string): string {
  if (!word.endsWith('e')) return word;
  const stem = word.slice(0, -1);
  const m = measure(stem);
  return m > 1 || (m === 1 && !endsCvc(stem)) ? stem : word;
}

function step5b(word: string): string {
  return applyRules(word, [['ll', 'l', () => measure(word.slice(0, -1)) > 1]]);
}

/** NLTK PorterStemmer().stem(word) for a lower-case word. */
export function porterStem(word: string): string {
  const irregular = IRREGULAR.get(word);
  if (irregular !== undefined) return irregular;
  if (word.length <= 2) return word;
  return step5b(step5a(applyRules(applyRules(step2(step1c(step1b(step1a(word)))), STEP3), STEP4)));
}
