import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { commands } from './commands/index.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/**
 * Commander's usage errors (`error: unknown option '--x'`) in the CLI's one error form,
 * `chatfold: <message> [E_INVALID_OPTIONS]` (CLI-5).
 */
function usageError(text: string): string {
  const message = text.replace(/^error:\s*/, '').trim();
  return `chatfold: ${message} (--help for usage) [E_INVALID_OPTIONS]\n`;
}

/**
 * Builds the `chatfold` command line program; each command registers itself from its own file.
 * With `argv`, only the command it names is loaded (start-up of a short command is mostly
 * module parsing); help, `--version` and unknown names load every command.
 */
export async function createProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('chatfold')
    .description("Keep long LLM conversations inside the model's context window without losing a message.")
    .version(pkg.version, '-v, --version')
    // Subcommands inherit this: they are registered after it.
    .configureOutput({ outputError: (text, write) => write(usageError(text)) })
    .exitOverride();
  const named = commands.find((command) => command.name === argv[2]);
  const needed = named === undefined ? commands : [named];
  for (const register of await Promise.all(needed.map((command) => command.load()))) register(program);
  return program;
}
