// English messages for per-context calibration: the judge's verdict on each retrieved context against the experts'.
export const enContexts = {
  'import.label_not_a_list': 'Line {line}: criterion {criterion} is about each retrieved context: give a list with one value per context in rank order, e.g. [1, 0, null] (found "{value}").',
  'import.label_unexpected_list': 'Line {line}: criterion {criterion} is about the whole answer: give one value, not a list ({value}).',
  'import.label_list_length': 'Line {line}: criterion {criterion} has {got} values but the answer has {expected} retrieved contexts: give one value per context in rank order (null where a context is not labelled).',
};
