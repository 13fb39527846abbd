#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { commands } from './commands/index.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** Builds the `chatfold` command line program (CLI-5: non-zero exit and stderr on failure). */
export function createProgram(): Command {
  const program = new Command('chatfold')
    .description("Keep long LLM conversations inside the model's context window without losing a message.")
    .version(pkg.version, '-v, --version')
    .showHelpAfterError()
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

async function main(argv: readonly string[]): Promise<number> {
  try {
    await createProgram().parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (ChatfoldError.isInstance(error)) {
      process.stderr.write(`chatfold: ${error.message} [${error.code}]\n`);
      return 1;
    }
    process.stderr.write(
      `chatfold: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

// `chatfold models | head`: a closed pipe is the reader's choice, not an error (CLI-5).
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
process.exitCode = await main(process.argv);
