// What makes two rows "the same question": the question with compatibility forms (full-width
// letters, digits and punctuation), whitespace runs and case folded. The database keeps a
// fixed-length digest of that folded text, so its unique index stays small and fast however long
// questions are.
import crypto from 'node:crypto';

/** Whitespace that `\s+ → ' '` would change: a run of two or more, or a single non-space one. */
const WHITESPACE_TO_FOLD = /\s{2,}|[^\S ]/g;

/** The question as compared: NFKC, whitespace runs as one space, trimmed, lower case. */
export function foldQuestion(question: string): string {
  return question.normalize('NFKC').replace(WHITESPACE_TO_FOLD, ' ').trim().toLowerCase();
}

/** 22 base64url characters (132 bits) of the SHA-256 of the folded question. */
export function questionKey(question: string): string {
  return crypto.hash('sha256', foldQuestion(question), 'base64url').slice(0, 22);
}
