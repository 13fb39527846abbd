import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { refusalOfErrno, workspaceRefusal } from './workspace-refusal.ts';

/** A path inside the workspace, checked (AG-2). */
export interface WorkspacePath {
  /** As the model should see it: relative to the root, `/`-separated (`.` for the root). */
  readonly relative: string;
  /** Absolute real path, every symlink followed (or, for a file not created yet, its real parent + name). */
  readonly real: string;
  /** False when nothing exists there yet (a file `write_file` will create). */
  readonly exists: boolean;
}

/** A directory the workspace tools may touch, and nothing outside it (AG-2). */
export interface WorkspaceRoot {
  /** The root's real path. */
  readonly root: string;
  /**
   * Resolves a path the model gave. Refuses absolute paths, `..` segments and anything whose
   * real path (after following symlinks, including a dangling final one) leaves the root.
   *
   * @throws ChatfoldError `E_WORKSPACE_PATH` saying what was refused and why.
   */
  resolve(requested: unknown): Promise<WorkspacePath>;
}

const refuse = (
  requested: string,
  why: string,
  reason: 'not-relative' | 'outside-root' = 'not-relative',
): ChatfoldError =>
  workspaceRefusal(
    reason,
    requested,
    `path ${JSON.stringify(requested)} refused: ${why}; use a path relative to the workspace root, without ".."`,
  );

/** True when `candidate` (a real path) is `root` or under it. */
export const isInside = (root: string, candidate: string): boolean =>
  candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

const isMissing = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

/** Follows a chain of symlinks whose end does not exist yet, so a dangling link cannot aim outside. */
async function realTarget(absolute: string, hops = 0): Promise<string> {
  if (hops > 40) throw Object.assign(new Error('too many levels of symbolic links'), { code: 'ELOOP' });
  try {
    return await realpath(absolute);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const parent = path.dirname(absolute);
  const realParent = parent === absolute ? parent : await realTarget(parent, hops + 1);
  const joined = path.join(realParent, path.basename(absolute));
  try {
    const stat = await lstat(joined);
    if (stat.isSymbolicLink()) {
      return realTarget(path.resolve(realParent, await readlink(joined)), hops + 1);
    }
  } catch (error) {
    // EINVAL: it stopped being a link between lstat and readlink (swapped meanwhile): look again.
    if ((error as NodeJS.ErrnoException).code === 'EINVAL') return realTarget(absolute, hops + 1);
    if (!isMissing(error)) throw error;
  }
  return joined;
}

/**
 * Opens a workspace rooted at an existing directory (AG-2).
 *
 * @param directory The folder the agent works in (`--workspace`, default: the current folder).
 * @returns A resolver every workspace tool goes through.
 * @throws ChatfoldError `E_WORKSPACE_PATH` when the directory does not exist or is not a folder.
 */
export async function openWorkspaceRoot(directory: string): Promise<WorkspaceRoot> {
  let root: string;
  try {
    root = await realpath(path.resolve(directory));
    if (!(await lstat(root)).isDirectory()) throw new Error('not a directory');
  } catch (cause) {
    throw new ChatfoldError(
      'E_WORKSPACE_PATH',
      `workspace ${JSON.stringify(directory)} is not an existing folder; pass --workspace DIR with a folder that exists`,
      { path: directory },
      { cause },
    );
  }
  return {
    root,
    async resolve(requested) {
      if (typeof requested !== 'string') {
        throw new ChatfoldError(
          'E_WORKSPACE_PATH',
          `path: expected a string relative to the workspace root, received ${requested === null ? 'null' : typeof requested}`,
          { path: requested, reason: 'not-relative' },
        );
      }
      const given = requested.trim() === '' ? '.' : requested;
      if (given.includes('\0')) throw refuse(requested, 'it contains a NUL character');
      if (path.isAbsolute(given) || path.win32.isAbsolute(given) || given.startsWith('~')) {
        throw refuse(requested, 'absolute paths are not allowed');
      }
      if (given.split(/[\\/]+/).includes('..')) throw refuse(requested, '".." is not allowed');
      const absolute = path.resolve(root, given);
      if (!isInside(root, absolute)) throw refuse(requested, 'it is outside the workspace', 'outside-root');
      const relative = path.relative(root, absolute).split(path.sep).join('/') || '.';
      let real: string;
      try {
        real = await realTarget(absolute);
      } catch (error) {
        throw refusalOfErrno(error, relative);
      }
      if (!isInside(root, real)) {
        throw refuse(requested, 'a symbolic link leads outside the workspace', 'outside-root');
      }
      let exists = true;
      try {
        await lstat(real);
      } catch (error) {
        if (!isMissing(error)) throw refusalOfErrno(error, relative);
        exists = false;
      }
      return { relative, real, exists };
    },
  };
}
