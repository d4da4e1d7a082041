// The command line in this process: what `npm run goldset -- ARGS` prints and exits with, through the
// runCli that server/cli.ts runs, on a terminal of the test's own. Tests of the process itself (its
// exit status, standard input, signals, the environment's language) start the real one
// (test/http/cli.test.ts, and the killed run in test/http/runs.test.ts); the others use this, which
// saves each command the second a new process spends loading goldset.
import { runCli } from '../server/cli-run.ts';

export interface CliResult { code: number; stdout: string; stderr: string; json(): any }

export async function goldsetCli(args: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<CliResult> {
  let stdout = '', stderr = '';
  const input = options.input;
  const code = await runCli(args, {
    env: { ...process.env, ...options.env },
    async *stdin() { if (input !== undefined) yield input; },
    stdout: (text) => { stdout += `${text}\n`; },
    stderr: (text) => { stderr += `${text}\n`; },
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}
