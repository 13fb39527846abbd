import { InvalidArgumentError } from 'commander';
import { CONVERSATION_FORMATS, type ConversationFormat } from './load-conversation.ts';

/** Parses a positive integer option (`--window 32000`). */
export function parsePositiveInteger(value: string): number {
  const n = Number(value.replaceAll('_', ''));
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError(`expected a positive integer, received ${JSON.stringify(value)}`);
  return n;
}

/** Parses a share in (0, 1] (`--target 0.5`). */
export function parseShare(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 1))
    throw new InvalidArgumentError(`expected a number in (0, 1], received ${JSON.stringify(value)}`);
  return n;
}

/** Parses `--format`. */
export function parseFormat(value: string): ConversationFormat {
  if (!(CONVERSATION_FORMATS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(
      `expected one of ${CONVERSATION_FORMATS.join(', ')}, received ${JSON.stringify(value)}`,
    );
  }
  return value as ConversationFormat;
}

/** The model a file's format suggests when `--model` is not given. */
export function defaultModelFor(format: ConversationFormat): string {
  return format === 'claude-code' || format === 'anthropic'
    ? 'claude-sonnet-4-6'
    : format === 'gemini'
      ? 'gemini-2.5-pro'
      : 'gpt-4o';
}

/** Writes a line to stdout. */
export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}
