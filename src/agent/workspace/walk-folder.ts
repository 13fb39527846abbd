import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { type OpenedFolder, openChildFolder } from './open-inside.ts';

/** Folders a recursive walk never enters (also the supersede mapping's base filter of `list_directory`). */
export const SKIPPED_FOLDERS: readonly string[] = ['.git', 'node_modules'];

/**
 * Folders a recursive walk descends at most: each level holds one open descriptor while the walk
 * is below it, so a hostile tree thousands of levels deep cannot use up the process's descriptors.
 */
export const MAX_WALK_DEPTH = 64;

/** One entry of a folder walk. */
export interface FolderEntry {
  /** `/`-separated, relative to the folder walked. */
  readonly relative: string;
  /** The entry's name and its kind when listed (a link is a link: never followed). */
  readonly entry: Dirent;
  /** The opened folder it is in; open the entry through it, and only before the walk moves on. */
  readonly parent: OpenedFolder;
}

/**
 * The entries of an opened folder in name order, depth first when `recursive` (issue 24): each
 * subfolder is opened through its opened parent without following a symbolic link (a link is
 * listed, never entered), never {@link SKIPPED_FOLDERS}; an unreadable subfolder, or one swapped
 * for something else mid-walk, is listed and skipped; nothing below {@link MAX_WALK_DEPTH}
 * levels is entered. Checks `signal` before each folder.
 */
export async function* walkFolder(
  folder: OpenedFolder,
  {
    recursive,
    signal,
    root,
  }: { readonly recursive: boolean; readonly signal: AbortSignal; readonly root: string },
  prefix = '',
  depth = 0,
): AsyncGenerator<FolderEntry> {
  signal.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await readdir(folder.path, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const relative = prefix + entry.name;
    yield { relative, entry, parent: folder };
    if (recursive && depth < MAX_WALK_DEPTH && entry.isDirectory() && !SKIPPED_FOLDERS.includes(entry.name)) {
      const child = await openChildFolder(folder, entry.name, root);
      if (child === undefined) continue;
      try {
        yield* walkFolder(child, { recursive, signal, root }, `${relative}/`, depth + 1);
      } finally {
        await child.close();
      }
    }
  }
}
