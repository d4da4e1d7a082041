// A small structured logger: one JSON line per event on stderr. Callers pass facts, never secrets;
// in case one slips through anyway, every line is scrubbed here, in the one place all logging
// passes: fields named like secrets are dropped, and every string (paths, URLs, messages, stacks)
// goes through redactText (invitation links, API tokens, keys, credentials in URLs).
import { redactValue } from './redact.ts';
import { terminalJson } from './io/terminal-safe.ts';

export type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_KEYS = /pass(word)?|secret|token|api[_-]?key|authorization|cookie/i;

export interface Logger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

/** Drops any field whose name looks like a secret and scrubs secrets out of the rest. */
function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = SECRET_KEYS.test(k) ? '[redacted]' : redactValue(v);
  return out;
}

export function createLogger(level: Level = 'info', write: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const at = (lvl: Exclude<Level, 'silent'>) => (event: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[lvl] < ORDER[level]) return;
    // Read in terminals too: the data's control characters are escaped (io/terminal-safe.ts), the JSON value unchanged.
    write(terminalJson({ t: new Date().toISOString(), level: lvl, event, ...redact(fields) }));
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
