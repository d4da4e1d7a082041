// English counts for the texts that are English only (the CLI's report lines, logs, the import errors'
// fallback text). Apart from the catalogue, so that the import reader's thread does not load it.
const ENGLISH_PLURALS = new Intl.PluralRules('en');

/** A count and its noun in English: "1 row", "2 rows". */
export function englishCount(n: number, one: string, other = `${one}s`): string {
  return `${n} ${ENGLISH_PLURALS.select(n) === 'one' ? one : other}`;
}
