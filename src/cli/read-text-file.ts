import { readFile } from 'node:fs/promises';
import { ChatfoldError } from '../errors/chatfold-error.ts';

/** Reads a UTF-8 file the user named; a failure is `E_FILE` with the system's reason (`ENOENT`, …). */
export async function readTextFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (cause) {
    throw new ChatfoldError(
      'E_FILE',
      `cannot read ${path}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`,
      { path },
      { cause },
    );
  }
}
