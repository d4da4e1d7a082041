// What the labelling flow refuses: a bad value or text, and edits that crossed someone else's.
import type { MessageKey } from '../i18n/index.ts';
import type { AdjudicationRow, AnnotationRow } from './queries.ts';

export class LabelError extends Error {
  constructor(readonly key: MessageKey, readonly field = '_form', readonly params: Record<string, string | number> = {}) { super(key); }
}

/** Someone saved this annotation or adjudication since the form was loaded. */
export class LabelConflict extends Error {
  constructor(readonly current: AnnotationRow | AdjudicationRow | null) { super('conflict'); }
}

/** The dataset's settings or assignment changed since the assignment form was read. */
export class AssignmentConflict extends Error {
  constructor() { super('conflict'); }
}
