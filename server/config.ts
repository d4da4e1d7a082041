// goldset's configuration: read from an environment map once, validated with zod, passed down explicitly.
import { z } from 'zod';
import { localeOfEnvironment, type Locale } from './i18n/index.ts';
import { DEFAULT_PASSWORD_COST, MAX_PASSWORD_COST } from './auth/password.ts';

/** Below the default, a password hash is cheaper to guess: only the test suites, with NODE_ENV=test, may ask for that. */
const TEST_PASSWORD_COST = 10;

const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');

const EnvSchema = z.object({
  GOLDSET_DB: z.string().min(1).default('data/goldset.db'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  GOLDSET_SECURE_COOKIES: flag.default(false),
  GOLDSET_SESSION_SECRET: z.string().min(32, 'GOLDSET_SESSION_SECRET must be at least 32 characters').optional(),
  GOLDSET_MAX_UPLOAD_MB: z.coerce.number().positive().max(2048).default(200),
  GOLDSET_SYNCHRONOUS: z.enum(['NORMAL', 'FULL']).default('NORMAL'),
  GOLDSET_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  OPENAI_BASE_URL: z.string().url().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  GOLDSET_JUDGE_MODEL: z.string().min(1).optional(),
  GOLDSET_EMBEDDING_MODEL: z.string().min(1).optional(),
  GOLDSET_LANG: z.enum(['en', 'zh']).optional(),
  GOLDSET_PASSWORD_COST: z.coerce.number().int().min(TEST_PASSWORD_COST).max(MAX_PASSWORD_COST).default(DEFAULT_PASSWORD_COST),
  NODE_ENV: z.string().optional(),
});

export interface Config {
  dbFile: string;
  port: number;
  host: string;
  secureCookies: boolean;
  sessionSecret: string | undefined;
  maxUploadBytes: number;
  synchronous: 'NORMAL' | 'FULL';
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  judge: { baseURL?: string; apiKey?: string; chatModel?: string; embeddingModel?: string };
  /**
   * The command line's language for what it says about the user's data (import refusals, refused
   * releases, estimates, users): GOLDSET_LANG, else the environment's locale (LC_ALL, LC_MESSAGES,
   * LANG: zh_CN.UTF-8 is 简体中文), else English. Its usage text and option errors are English.
   */
  cliLocale: Locale;
  /** scrypt's cost (log2 N) for new password hashes: server/auth/password.ts. */
  passwordCost: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.GOLDSET_PASSWORD_COST < DEFAULT_PASSWORD_COST && e.NODE_ENV !== 'test') {
    throw new ConfigError(`invalid configuration:\n  GOLDSET_PASSWORD_COST: below ${DEFAULT_PASSWORD_COST} makes passwords cheaper to guess; it is for the test suites only (NODE_ENV=test)`);
  }
  return {
    dbFile: e.GOLDSET_DB,
    port: e.PORT,
    host: e.HOST,
    secureCookies: e.GOLDSET_SECURE_COOKIES,
    sessionSecret: e.GOLDSET_SESSION_SECRET,
    maxUploadBytes: Math.round(e.GOLDSET_MAX_UPLOAD_MB * 1024 * 1024),
    synchronous: e.GOLDSET_SYNCHRONOUS,
    logLevel: e.GOLDSET_LOG_LEVEL,
    judge: {
      ...(e.OPENAI_BASE_URL ? { baseURL: e.OPENAI_BASE_URL } : {}),
      ...(e.OPENAI_API_KEY ? { apiKey: e.OPENAI_API_KEY } : {}),
      ...(e.GOLDSET_JUDGE_MODEL ? { chatModel: e.GOLDSET_JUDGE_MODEL } : {}),
      ...(e.GOLDSET_EMBEDDING_MODEL ? { embeddingModel: e.GOLDSET_EMBEDDING_MODEL } : {}),
    },
    cliLocale: e.GOLDSET_LANG ?? localeOfEnvironment(env),
    passwordCost: e.GOLDSET_PASSWORD_COST,
  };
}
