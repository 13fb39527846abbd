import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** Folders a recursive walk never enters (also the supersede mapping's base filter of `list_directory`). */
export const SKIPPED_FOLDERS: readonly string[] = ['.git', 'node_modules'];

/** One entry of a folder walk. */
export interface FolderEntry {
  /** `/`-separated, relative to the folder walked. */
  readonly relative: string;
  readonly absolute: string;
  readonly entry: Dirent;
}

/**
 * The entries of a folder in name order, depth first when `recursive`: never through a symlink
 * (it is listed, not entered), never into {@link SKIPPED_FOLDERS}; an unreadable subfolder is
 * listed and skipped. Checks `signal` before each folder.
 */
export async function* walkFolder(
  folder: string,
  { recursive, signal }: { readonly recursive: boolean; readonly signal: AbortSignal },
  prefix = '',
): AsyncGenerator<FolderEntry> {
  signal.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const relative = prefix + entry.name;
    const absolute = path.join(folder, entry.name);
    yield { relative, absolute, entry };
    if (recursive && entry.isDirectory() && !SKIPPED_FOLDERS.includes(entry.name)) {
      yield* walkFolder(absolute, { recursive, signal }, `${relative}/`);
    }
  }
}
