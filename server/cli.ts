// The `goldset` command line (npm run goldset -- <command>): the same services as the web app.
// The commands are in cli-run.ts; this file gives them the process's terminal and exit code.
import { runCli } from './cli-run.ts';
import { processIo } from './io/cli-out.ts';

process.exitCode = await runCli(process.argv.slice(2), processIo);
