import { describe, expect, it } from 'vitest';
import { porterStem, tokenize13a, tokenizeBleuZh as tokenizeBleu, tokenizeRougeScore, tokenizeRougeZh as tokenizeRouge } from '../../server/metrics/index.ts';

describe('tokenizeBleu (13a for Latin text)', () => {
  it('splits punctuation but keeps apostrophes and decimal numbers', () => {
    expect(tokenizeBleu("Hello, world! It's 3.5 km.")).toEqual(['Hello', ',', 'world', '!', "It's", '3.5', 'km', '.']);
  });

  it('keeps digit-grouping commas and splits a dash after a digit', () => {
    expect(tokenizeBleu('1,000-2,000 items')).toEqual(['1,000', '-', '2,000', 'items']);
    expect(tokenizeBleu('GPT-4 (beta)')).toEqual(['GPT-4', '(', 'beta', ')']);
  });

  it('applies the 13a entity and newline rules', () => {
    expect(tokenizeBleu('a &amp; b &lt;c&gt;')).toEqual(['a', '&', 'b', '<', 'c', '>']);
    expect(tokenizeBleu('hyphen-\nated\nline <skipped>')).toEqual(['hyphenated', 'line']);
  });

  it('leaves curly quotes inside Latin words alone, as 13a does', () => {
    expect(tokenizeBleu('don’t stop')).toEqual(['don’t', 'stop']);
  });

  it('is empty for blank input', () => {
    expect(tokenizeBleu('')).toEqual([]);
    expect(tokenizeBleu(' \n\t ')).toEqual([]);
  });
});

describe('tokenizeBleu (per character for Chinese)', () => {
  it('makes every Han character and CJK punctuation mark a token', () => {
    expect(tokenizeBleu('张伟是教研部的。')).toEqual(['张', '伟', '是', '教', '研', '部', '的', '。']);
  });

  it('mixes with 13a rules for embedded Latin text', () => {
    expect(tokenizeBleu('张伟负责GPT-4课程，对吗？')).toEqual([
      '张', '伟', '负', '责', 'GPT-4', '课', '程', '，', '对', '吗', '？',
    ]);
  });

  it('treats the ideographic space as whitespace and splits Extension B characters', () => {
    expect(tokenizeBleu('张伟\u3000教研')).toEqual(['张', '伟', '教', '研']);
    expect(tokenizeBleu('𠀀𠀁')).toEqual(['𠀀', '𠀁']);
  });
});

describe('tokenizeRouge', () => {
  it('lowercases and keeps alphanumeric runs only', () => {
    expect(tokenizeRouge('Hello, World! cat_dog 3.5')).toEqual(['hello', 'world', 'cat', 'dog', '3', '5']);
  });

  it('makes each Han character a token and drops CJK punctuation', () => {
    expect(tokenizeRouge('张伟123是“教研部”的。')).toEqual(['张', '伟', '123', '是', '教', '研', '部', '的']);
  });

  it('keeps letters of other scripts (rouge_score would drop them)', () => {
    expect(tokenizeRouge('Café über')).toEqual(['café', 'über']);
  });

  it('is empty for blank or punctuation-only input', () => {
    expect(tokenizeRouge('')).toEqual([]);
    expect(tokenizeRouge('?!，。')).toEqual([]);
  });
});

describe('tokenize13a (sacreBLEU default, what Ragas BleuScore uses)', () => {
  it('keeps an unspaced Chinese sentence as one token', () => {
    expect(tokenize13a('张伟是教研部的。')).toEqual(['张伟是教研部的。']);
    expect(tokenize13a('张伟 负责GPT-4课程，对吗？')).toEqual(['张伟', '负责GPT-4课程，对吗？']);
  });

  it('splits Latin punctuation like the zh rules do', () => {
    expect(tokenize13a("Hello, world! It's 3.5 km.")).toEqual(tokenizeBleu("Hello, world! It's 3.5 km."));
  });
});

describe('tokenizeRougeScore (rouge_score with the Porter stemmer)', () => {
  it('keeps [a-z0-9] runs, stems words longer than 3 letters and drops Chinese', () => {
    expect(tokenizeRougeScore('The runners were running, caresses & ponies!')).toEqual(['the', 'runner', 'were', 'run', 'caress', 'poni']);
    expect(tokenizeRougeScore('张伟是教研部的 HR')).toEqual(['hr']);
    expect(tokenizeRougeScore('Café über')).toEqual(['caf', 'ber']);
  });
});

describe('porterStem (NLTK_EXTENSIONS, what rouge_score uses)', () => {
  // Examples of Porter (1980) and of NLTK's departures from it.
  it.each([
    ['caresses', 'caress'], ['ponies', 'poni'], ['ties', 'tie'], ['cats', 'cat'], ['feed', 'feed'], ['agreed', 'agre'],
    ['plastered', 'plaster'], ['motoring', 'motor'], ['sing', 'sing'], ['conflated', 'conflat'], ['hopping', 'hop'],
    ['falling', 'fall'], ['filing', 'file'], ['happy', 'happi'], ['enjoy', 'enjoy'], ['relational', 'relat'],
    ['conditional', 'condit'], ['generalization', 'gener'], ['geology', 'geolog'], ['dying', 'die'], ['skies', 'sky'],
    ['news', 'news'], ['proceed', 'proceed'], ['spied', 'spi'], ['dies', 'die'], ['controlling', 'control'],
    ['radically', 'radic'], ['hopefully', 'hope'], ['adjustment', 'adjust'], ['adoption', 'adopt'], ['be', 'be'],
  ])('%s → %s', (word, stem) => {
    expect(porterStem(word)).toBe(stem);
  });
});
