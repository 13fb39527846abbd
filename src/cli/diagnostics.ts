import { ChatfoldError } from '../errors/chatfold-error.ts';

// Everything the CLI says on stderr, in one form (CLI-5): `chatfold: <message> [<code>]` for
// errors, `chatfold: warning: …` and `chatfold: note: …` for the rest. stdout stays the report.

/**
 * The one line an error prints: `chatfold: <message> [<code>]`. Chatfold errors keep their
 * code; a system error its errno code (`EACCES`); anything else is a bug and says so with
 * `E_INTERNAL` (its stack only with `CHATFOLD_DEBUG=1`).
 *
 * @param error - What was thrown.
 * @param env - Where `CHATFOLD_DEBUG` is read (the process environment by default).
 * @returns The text to write to stderr, ending in a newline.
 */
export function formatCliError(
  error: unknown,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  if (ChatfoldError.isInstance(error)) {
    // The library's wording offers library choices ("or pass a client"); the CLI has one fix.
    const { dependency, feature } = error.details as { dependency?: unknown; feature?: unknown };
    if (
      error.code === 'E_MISSING_DEPENDENCY' &&
      typeof dependency === 'string' &&
      typeof feature === 'string'
    ) {
      return `chatfold: ${feature} needs the optional package ${dependency}: npm install ${dependency} [${error.code}]\n`;
    }
    return `chatfold: ${error.message} [${error.code}]\n`;
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z0-9_]+$/.test(code)) return `chatfold: ${message} [${code}]\n`;
  const stack =
    env.CHATFOLD_DEBUG === '1' && error instanceof Error && error.stack !== undefined
      ? `${error.stack}\n`
      : '';
  return `chatfold: ${message} (an unexpected error: please report it; CHATFOLD_DEBUG=1 prints the stack) [E_INTERNAL]\n${stack}`;
}

/** Writes an error to stderr in the CLI's one form. */
export function reportError(error: unknown): void {
  process.stderr.write(formatCliError(error));
}

/** Writes a warning line to stderr (CLI-5: diagnostics never mix with stdout). */
export function warn(message: string): void {
  process.stderr.write(`chatfold: warning: ${message}\n`);
}

/** Writes an informational line to stderr, e.g. why an option changes nothing. */
export function note(message: string): void {
  process.stderr.write(`chatfold: note: ${message}\n`);
}
