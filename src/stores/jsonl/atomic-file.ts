import { open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { storeError } from './file-lock.ts';

let temps = 0;

/**
 * Replaces a small file atomically (ST-4): writes a temporary file beside it, then renames it
 * over the old one, so readers and a crash see the old content or the new, never half.
 *
 * @param path - The file to replace.
 * @param content - Its new content.
 * @param options - `fsync`: flush the data and the directory entry before returning.
 */
export async function writeFileAtomic(
  path: string,
  content: string,
  { fsync }: { readonly fsync: boolean },
): Promise<void> {
  const temp = `${path}.${process.pid}.${++temps}.tmp`;
  try {
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(content);
      if (fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined); // best effort: the error below is what matters
    throw storeError(error, path, 'write');
  }
  if (fsync) await fsyncDirectory(dirname(path));
}

/** Flushes a directory entry (a new or renamed file) to disk where the platform allows it. */
export async function fsyncDirectory(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch (error) {
    // Windows and some file systems cannot open or sync a directory; the rename is still atomic.
    const code = (error as { code?: string }).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') {
      throw storeError(error, path, 'sync directory');
    }
  } finally {
    await handle?.close();
  }
}

/** Reads and parses a JSON file; `undefined` when it does not exist. */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw storeError(error, path, 'read');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ChatfoldError(
      'E_STORE',
      `jsonl store: ${path} is not valid JSON (${(error as Error).message}); restore it from a backup`,
      { path },
    );
  }
}
