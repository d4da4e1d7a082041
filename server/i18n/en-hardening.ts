// English messages of goldset's limits, permissions, versions and secrets (server/limits.ts,
// server/access/, invitations, sessions).
export const enHardening = {
  'err.too_long_limit': 'This is too long: at most {limit} characters.',
  'err.limit_too_long': 'This is too long: {length} characters, at most {limit}.',
  'err.limit_items': 'Too many items: at most {limit}.',
  'err.limit_item_long': 'Item {item} is too long: at most {limit} characters.',
  'err.nul_character': 'This contains a NUL character (\\0), which goldset does not store.',
  'err.limit_options': 'A criterion can have at most {limit} options ({count} given).',
  'err.limit_option_text': 'Each option can have at most {limit} characters.',
  'err.limit_criteria': 'A dataset can have at most {limit} criteria.',
  'err.too_deep': 'The request nests more than {limit} levels of lists and objects.',
  'err.criterion_conflict': 'Someone else saved “{name}” while you were editing it; what they saved is shown. Your guidelines were: {guidelines}',
  'err.dataset_conflict': 'Someone else changed the settings of “{name}” while you were editing them. Your changes are still in the form; check them against the current settings and save again.',
  'err.assignment_conflict': 'Someone else changed this dataset\'s settings or labellers meanwhile; the current assignment is shown. Make your change again.',
  'err.approve_own_edit': 'You last changed this sample; another expert must approve it.',
  'review.err_conflict': 'Someone else recorded a verdict or set the gold value of this item meanwhile; what they recorded is shown. Your choice is still in the form: save again to replace it.',
} as const;
