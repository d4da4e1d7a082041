// The openai package, loaded when goldset first talks to an endpoint rather than when it starts.
// It is about 290 files: a fifth of the command line's start-up, and most commands (import, export,
// report, release, backup…) and most page views never call a judge.

export type Sdk = typeof import('openai');

let loading: Promise<Sdk> | undefined;

export function loadSdk(): Promise<Sdk> {
  loading ??= import('openai');
  return loading;
}
