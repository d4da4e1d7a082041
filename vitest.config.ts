import { defineConfig } from 'vitest/config';

// Two projects: `unit` (pure modules, HTTP tests against the real app, CLI) runs with `npm test`;
// `browser` drives Debian's Chromium through playwright-core and runs with `npm run test:browser`.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts', 'test/**/*.test.tsx'], exclude: ['test/browser/**'], testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        extends: true,
        test: { name: 'browser', include: ['test/browser/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000, fileParallelism: false },
      },
    ],
  },
});
