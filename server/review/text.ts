// The review pages' messages, typed by their own catalogue (en-review.ts) so these files type-check on their own.
import type { MessageKey, Params, T } from '../i18n/index.ts';
import type { ReviewKey } from '../i18n/en-review.ts';

export type RT = (key: ReviewKey | MessageKey, params?: Params) => string;

export function reviewText(t: T): RT {
  return (key, params) => t(key as string as MessageKey, params);
}
