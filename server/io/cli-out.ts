// The command line's side of a terminal: where a command reads its environment and standard input,
// and how it answers — text for a person, or one JSON object with --json, and what went wrong on
// standard error — written for a terminal (terminal-safe.ts). server/cli.ts gives it the process's;
// the tests give it their own (test/cli.ts).
import { terminalJson, terminalSafe } from './terminal-safe.ts';

export interface CliIo {
  env: Record<string, string | undefined>;
  stdin(): AsyncIterable<Uint8Array | string>;
  /** One line (or several) of standard output, without its final newline. */
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface Out {
  json: boolean;
  /** A command's result: `text` for a person, `data` as JSON with --json. */
  print(text: string, data: Record<string, unknown>): void;
  /** What the user must fix, on standard error. */
  problem(text: string): void;
}

/** What a command that only answers needs of its Out. */
export type Printer = Pick<Out, 'json' | 'print'>;

export function output(io: CliIo, json: boolean): Out {
  return {
    json,
    print: (text, data) => io.stdout(json ? terminalJson(data) : terminalSafe(text)),
    problem: (text) => io.stderr(terminalSafe(text)),
  };
}

/** The process's own terminal. */
export const processIo: CliIo = {
  env: process.env,
  stdin: () => process.stdin,
  stdout: (text) => { process.stdout.write(`${text}\n`); },
  stderr: (text) => { process.stderr.write(`${text}\n`); },
};
