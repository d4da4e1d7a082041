// English messages of the JSON API and of the command line's answers about the user's data (import
// refusals); codes (`error`, `code`) stay as they are in every language.
export const enInterfaces = {
  'api.unauthorized': 'A valid API token is required: Authorization: Bearer <token>.',
  'api.forbidden_viewer': 'This token\'s user may not write (viewer role).',
  'api.no_dataset': 'No such dataset.',
  'api.no_release': 'No release with this tag in the dataset.',
  'api.no_endpoint': 'No such API endpoint.',
  'api.archived': 'The dataset is archived and read-only.',
  'api.invalid_body': 'Send a JSON array of rows, or {"rows": [...]}; each row has question/user_input and answer/response.',
  'api.no_rows': 'No rows.',
  'api.too_many_rows': 'At most {limit} rows per request; send the rest in further requests.',
  'api.no_labels': 'human.<criterion> labels are not accepted through the API.',
  'api.invalid_json': 'The body is not valid JSON.',
  'api.too_deep': 'The body nests more than {limit} levels of arrays and objects.',
  'api.too_large': 'The body is too large.',
  'cli.no_dataset': 'no dataset named "{name}"',
  'import.needs_annotator': 'The file has human.<criterion> label columns: name their author with --annotator EMAIL.',
  'import.score_run_goldset': 'Run "{run}" for {metric} was scored by goldset: import the file\'s scores under another run name.',
  'import.run_name_too_long': 'The run name has {length} characters; the limit is {limit}.',
  'import.nothing_imported': 'Nothing was imported.',
  'import.more_errors': '…and {n} more.',
} as const;
