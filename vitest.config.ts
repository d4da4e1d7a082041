import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { TEST_ENV } from './test/test-env.ts';

// Two projects: `unit` (pure modules, HTTP tests against the real app, CLI) runs with `npm test`;
// `browser` drives Debian's Chromium through playwright-core and runs with `npm run test:browser`.
// Unit files run two at a time even on 2 cores (vitest's default there is one): many of them wait on
// child processes (the CLI, a 64 MB-heap reader) and on the fake LLM server, and the suite took 5.8 min
// with one worker and 4.5 min with two on the same machine (4.2 min with four, with CPU-bound tests 3× slower).
// Browser files also run two at a time: a file's time is mostly the browser and the app waiting on each
// other, not CPU (3.8 of 10 CPU-minutes used). On a 2-core VM the browser suite took 352 s one file at a
// time, 288 s and 303 s two at a time, and 308 s three at a time.
export default defineConfig({
  test: {
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // The command line answers in the environment's language (server/config.ts cliLocale): the tests that
    // run it read English unless they ask for Chinese themselves, on whatever LANG the machine has.
    // Strict messages: a message rendered without one of its values ("{limit}") throws (server/i18n/index.ts).
    // TEST_ENV: password hashes at the test cost, for the command lines the tests start too.
    env: { GOLDSET_LANG: 'en', GOLDSET_STRICT_MESSAGES: '1', ...TEST_ENV },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts', 'test/**/*.test.tsx'], exclude: ['test/browser/**'], testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        extends: true,
        test: { name: 'browser', include: ['test/browser/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000, maxWorkers: 2 },
      },
    ],
  },
});
