import { constants, existsSync, type Stats } from 'node:fs';
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { refusalOfErrno, workspaceRefusal } from './workspace-refusal.ts';
import { isInside, type WorkspaceRoot } from './workspace-root.ts';

// Flags some platforms lack (Windows) count as 0: the verification after opening still holds.
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** A FIFO opened for reading without a writer would block the opening thread forever. */
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
/** A terminal device must never become the process's controlling terminal. */
const O_NOCTTY = constants.O_NOCTTY ?? 0;

/** Flags every read-only open uses. */
export const READ_FLAGS = constants.O_RDONLY | O_NONBLOCK | O_NOCTTY;
const FOLDER_FLAGS = constants.O_RDONLY | O_DIRECTORY | O_NONBLOCK;

/**
 * Linux names what a descriptor is open on in `/proc/self/fd/N`, and a path through it
 * (`/proc/self/fd/N/name`) is resolved from that very directory, as `openat(2)` would: a folder
 * swapped for a symbolic link after it was opened changes nothing. Elsewhere the checks fall
 * back to comparing the opened file with the real path's (narrower, not race-free).
 */
export const HAS_DESCRIPTOR_PATHS: boolean = process.platform === 'linux' && existsSync('/proc/self/fd');

/** A folder opened and verified inside the root; its children are reached through it. */
export interface OpenedFolder {
  /** Relative to the root, `/`-separated (`.` for the root). */
  readonly relative: string;
  /** Path that names this very folder (its descriptor's on Linux), for `readdir`. */
  readonly path: string;
  /** Path of a child, resolved from this folder (never from its name in the parent). */
  child(name: string): string;
  close(): Promise<void>;
}

/** A regular file opened read-only and verified inside the root. */
export interface OpenedFile {
  readonly relative: string;
  readonly handle: FileHandle;
  /** Stats of the open descriptor (not of a path that may have changed since). */
  readonly stats: Stats;
}

const DELETED = ' (deleted)';

/** Where an open descriptor really is, or undefined when that cannot be established. */
async function realPathOf(handle: FileHandle, usedPath: string): Promise<string | undefined> {
  if (HAS_DESCRIPTOR_PATHS) {
    const target = await readlink(`/proc/self/fd/${handle.fd}`);
    // Removed while open: whatever it was, it is gone from the workspace now.
    return target.endsWith(DELETED) ? undefined : target;
  }
  const real = await realpath(usedPath);
  const [now, opened] = await Promise.all([stat(real), handle.stat()]);
  return now.dev === opened.dev && now.ino === opened.ino ? real : undefined;
}

/**
 * Opens a path, then checks what was opened is inside the root (issue 24: open first, verify
 * what was opened). Any failure closes the descriptor and throws the typed refusal.
 */
async function openVerified(
  root: string,
  usedPath: string,
  flags: number,
  relative: string,
): Promise<{ readonly handle: FileHandle; readonly real: string }> {
  let handle: FileHandle;
  try {
    handle = await open(usedPath, flags);
  } catch (error) {
    throw refusalOfErrno(error, relative);
  }
  try {
    const real = await realPathOf(handle, usedPath);
    if (real === undefined || !isInside(root, real)) {
      throw workspaceRefusal(
        'outside-root',
        relative,
        `path ${JSON.stringify(relative)} refused: what it opened is not inside the workspace (a symbolic link, or the path changed while the tool ran); use a path inside the workspace`,
      );
    }
    return { handle, real };
  } catch (error) {
    await handle.close();
    throw workspaceRefusalOf(error, relative);
  }
}

const workspaceRefusalOf = (error: unknown, relative: string): unknown =>
  typeof error === 'object' && error !== null && 'syscall' in error ? refusalOfErrno(error, relative) : error;

function folderOf(handle: FileHandle, real: string, relative: string): OpenedFolder {
  const base = HAS_DESCRIPTOR_PATHS ? `/proc/self/fd/${handle.fd}` : real;
  return {
    relative,
    path: base,
    child: (name) => `${base}/${name}`,
    close: () => handle.close(),
  };
}

const KINDS: readonly [(stats: Stats) => boolean, string][] = [
  [(stats) => stats.isFIFO(), 'a FIFO (named pipe)'],
  [(stats) => stats.isCharacterDevice(), 'a character device'],
  [(stats) => stats.isBlockDevice(), 'a block device'],
  [(stats) => stats.isSocket(), 'a socket'],
];

/** Refuses anything but a regular file (or a folder when `folder`): FIFOs, devices, sockets. */
export function refuseUnlessKind(stats: Stats, relative: string, kind: 'file' | 'folder' | 'any'): void {
  if (stats.isDirectory()) {
    if (kind === 'file') {
      throw workspaceRefusal('is-directory', relative, `${relative} is a directory; use list_directory`);
    }
    return;
  }
  if (kind === 'folder') {
    throw workspaceRefusal('not-a-folder', relative, `${relative} is not a folder; use read_file`);
  }
  if (stats.isFile()) return;
  const what = KINDS.find(([test]) => test(stats))?.[1] ?? 'not a regular file';
  throw workspaceRefusal(
    'not-regular-file',
    relative,
    `${relative} is ${what}; the workspace tools read and write regular files only`,
  );
}

/** An opened folder or regular file, by what the path turned out to be. */
export type OpenedEntry =
  | ({ readonly type: 'file' } & OpenedFile)
  | { readonly type: 'folder'; readonly folder: OpenedFolder };

/**
 * Opens a path the model gave, inside the workspace only (AG-2, issue 24): the root's checks
 * (no `..`, no absolute path, no link leading out), a look at its kind before opening (a FIFO or
 * device is not even opened), then open without blocking and verify the descriptor: its real
 * path is inside the root and it is a regular file or folder. The caller closes what it gets.
 *
 * @throws ChatfoldError `E_WORKSPACE_PATH` with a {@link WorkspaceRefusalReason}.
 */
export async function openInside(
  workspace: WorkspaceRoot,
  requested: unknown,
  kind: 'file' | 'folder' | 'any',
): Promise<OpenedEntry> {
  const resolved = await workspace.resolve(requested);
  const { relative } = resolved;
  if (!resolved.exists) throw workspaceRefusal('not-found', relative, `${relative} does not exist`);
  const absolute = relative === '.' ? workspace.root : path.join(workspace.root, relative);
  let seen: Stats;
  try {
    seen = await stat(absolute);
  } catch (error) {
    throw refusalOfErrno(error, relative);
  }
  refuseUnlessKind(seen, relative, kind);
  const isFolder = seen.isDirectory();
  const { handle, real } = await openVerified(
    workspace.root,
    absolute,
    isFolder ? FOLDER_FLAGS : READ_FLAGS,
    relative,
  );
  try {
    const stats = await handle.stat();
    refuseUnlessKind(stats, relative, isFolder ? 'folder' : 'file');
    return isFolder
      ? { type: 'folder', folder: folderOf(handle, real, relative) }
      : { type: 'file', relative, handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** {@link openInside} for a regular file. */
export async function openFileInside(workspace: WorkspaceRoot, requested: unknown): Promise<OpenedFile> {
  const opened = await openInside(workspace, requested, 'file');
  if (opened.type !== 'file') throw new Error('unreachable: a folder where a file was checked');
  return opened;
}

/** {@link openInside} for a folder. */
export async function openFolderInside(workspace: WorkspaceRoot, requested: unknown): Promise<OpenedFolder> {
  const opened = await openInside(workspace, requested, 'folder');
  if (opened.type !== 'folder') throw new Error('unreachable: a file where a folder was checked');
  return opened.folder;
}

/** Opens the workspace root itself, verified to be the folder the workspace was opened on. */
export async function openRootFolder(workspace: WorkspaceRoot): Promise<OpenedFolder> {
  const { handle, real } = await openVerified(workspace.root, workspace.root, FOLDER_FLAGS, '.');
  if (real !== workspace.root) {
    await handle.close();
    throw workspaceRefusal(
      'outside-root',
      '.',
      'the workspace folder was moved or replaced; restart the agent',
    );
  }
  return folderOf(handle, real, '.');
}

/** A child's path relative to the root. */
export const childRelative = (parent: OpenedFolder, name: string): string =>
  parent.relative === '.' ? name : `${parent.relative}/${name}`;

/**
 * Opens a child folder of an opened folder without following a symbolic link (a walk never
 * leaves through one); undefined when it is not a folder any more (swapped mid-walk).
 */
export async function openChildFolder(
  parent: OpenedFolder,
  name: string,
  root: string,
): Promise<OpenedFolder | undefined> {
  const relative = childRelative(parent, name);
  try {
    const { handle, real } = await openVerified(
      root,
      parent.child(name),
      FOLDER_FLAGS | O_NOFOLLOW,
      relative,
    );
    return folderOf(handle, real, relative);
  } catch {
    return undefined;
  }
}

/**
 * Opens a child folder of an opened folder, following a symbolic link only when it stays inside,
 * for `write_file`'s missing folders; throws the typed refusal otherwise.
 */
export async function openChildFolderForWrite(
  parent: OpenedFolder,
  name: string,
  root: string,
): Promise<OpenedFolder> {
  const relative = childRelative(parent, name);
  try {
    const { handle, real } = await openVerified(root, parent.child(name), FOLDER_FLAGS, relative);
    return folderOf(handle, real, relative);
  } catch (error) {
    if (
      typeof error === 'object' &&
      error !== null &&
      (error as { details?: { reason?: string } }).details?.reason === 'not-found' &&
      (error as { cause?: NodeJS.ErrnoException }).cause?.code === 'ENOTDIR'
    ) {
      throw workspaceRefusal('not-a-folder', relative, `${relative} is not a folder`);
    }
    throw error;
  }
}

/**
 * Opens a regular file in an opened folder without following a symbolic link, for a walk; the
 * open does not block on a FIFO and the kind is checked on the descriptor. Undefined for
 * anything but a regular file inside the root.
 */
export async function openChildFile(
  parent: OpenedFolder,
  name: string,
  root: string,
): Promise<OpenedFile | undefined> {
  const relative = childRelative(parent, name);
  let opened: { readonly handle: FileHandle; readonly real: string };
  try {
    opened = await openVerified(root, parent.child(name), READ_FLAGS | O_NOFOLLOW, relative);
  } catch {
    return undefined;
  }
  let stats: Stats | undefined;
  try {
    stats = await opened.handle.stat();
  } finally {
    if (!stats?.isFile()) await opened.handle.close();
  }
  return stats.isFile() ? { relative, handle: opened.handle, stats } : undefined;
}

/**
 * Reads at most `maxBytes` from the start of an opened file, never more than its size when
 * opened (a file that grows meanwhile is not followed).
 */
export async function readPrefix(file: OpenedFile, maxBytes: number): Promise<Buffer> {
  const size = Math.max(0, Math.min(file.stats.size, maxBytes));
  const buffer = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await file.handle.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
