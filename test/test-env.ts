/**
 * What every test instance runs with, in process (test/helpers.ts) and in the command lines the tests
 * start (vitest.config.ts): password hashes at scrypt's test cost, 32 times cheaper than a real
 * instance's (server/auth/password.ts), since a suite makes hundreds of accounts and logins.
 * test/unit/password.test.ts checks the real cost.
 */
export const TEST_ENV = { NODE_ENV: 'test', GOLDSET_PASSWORD_COST: '10' } as const;
