import { CommanderError } from 'commander';
import { reportError } from './diagnostics.ts';
import { createProgram } from './program.ts';

/**
 * Runs the CLI on `argv` (CLI-5): errors on stderr as `chatfold: <message> [<code>]` with exit
 * code 1; a command that reports a failed check sets `process.exitCode` itself (`replay` sets 2
 * when an invariant fails), and that code is kept, not overwritten by success.
 *
 * @param argv - `process.argv`.
 * @returns The exit code.
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  // `chatfold models | head`: a closed pipe is the reader's choice, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  try {
    await (await createProgram(argv)).parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    reportError(error);
    return 1;
  }
  const code = Number(process.exitCode ?? 0);
  return Number.isInteger(code) ? code : 1;
}
