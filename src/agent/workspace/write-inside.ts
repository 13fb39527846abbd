import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { childRelative, type OpenedFolder, openChildFolderForWrite, openRootFolder } from './open-inside.ts';
import { refusalOfErrno, workspaceRefusal } from './workspace-refusal.ts';
import { isInside, type WorkspaceRoot } from './workspace-root.ts';

/** Symbolic links followed (inside the root) from the path given to the file written. */
const MAX_LINK_HOPS = 8;

const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Opens (creating what is missing) each folder of `segments` from the verified root, one at a time. */
async function openFolders(workspace: WorkspaceRoot, segments: readonly string[]): Promise<OpenedFolder> {
  let folder = await openRootFolder(workspace);
  try {
    for (const name of segments) {
      // Created through the opened parent: a parent swapped for a link meanwhile is not followed.
      try {
        await mkdir(folder.child(name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw refusalOfErrno(error, childRelative(folder, name));
        }
      }
      const next = await openChildFolderForWrite(folder, name, workspace.root);
      await folder.close();
      folder = next;
    }
    return folder;
  } catch (error) {
    await folder.close();
    throw error;
  }
}

/** Writes `content` to a new temporary file in `folder` and renames it over `name` (never through a link). */
async function replaceFile(
  folder: OpenedFolder,
  name: string,
  content: string,
  existing: Stats | undefined,
  relative: string,
): Promise<void> {
  const temporary = `.chatfold-${randomBytes(8).toString('hex')}.tmp`;
  const temporaryPath = folder.child(temporary);
  try {
    const handle = await open(temporaryPath, TEMP_FLAGS, existing === undefined ? 0o666 : 0o600);
    try {
      await handle.writeFile(content, 'utf8');
      if (existing !== undefined) await handle.chmod(existing.mode & 0o7777);
    } finally {
      await handle.close();
    }
    // rename(2) replaces a link swapped in at `name` itself; it never writes where a link points.
    await rename(temporaryPath, folder.child(name));
  } catch (error) {
    await rm(temporaryPath, { force: true });
    throw refusalOfErrno(error, relative);
  }
}

/**
 * Writes a whole file inside the workspace (issue 24): every folder is opened from the verified
 * root one component at a time (missing ones created through their opened parent), and the
 * content goes to a temporary file in that folder renamed over the target. A symbolic link at the
 * target is followed only to a place inside the root; a FIFO, device or folder there is refused.
 *
 * @returns The path written (relative to the root; a link's target when it was one) and whether it is new.
 * @throws ChatfoldError `E_WORKSPACE_PATH` with a refusal reason.
 */
export async function writeInside(
  workspace: WorkspaceRoot,
  requested: unknown,
  content: string,
): Promise<{ readonly relative: string; readonly created: boolean }> {
  let { relative } = await workspace.resolve(requested);
  for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
    const segments = relative === '.' ? [] : relative.split('/');
    const name = segments.at(-1);
    if (name === undefined) {
      throw workspaceRefusal('is-directory', relative, 'the workspace root is a directory; name a file');
    }
    const folder = await openFolders(workspace, segments.slice(0, -1));
    try {
      const target = folder.child(name);
      let existing: Stats | undefined;
      try {
        existing = await lstat(target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw refusalOfErrno(error, relative);
      }
      if (existing?.isSymbolicLink()) {
        relative = await linkTarget(workspace, target, relative);
        continue;
      }
      if (existing?.isDirectory()) {
        throw workspaceRefusal('is-directory', relative, `${relative} is a directory`);
      }
      if (existing !== undefined && !existing.isFile()) {
        throw workspaceRefusal(
          'not-regular-file',
          relative,
          `${relative} is not a regular file (a FIFO, device or socket); the workspace tools write regular files only`,
        );
      }
      await replaceFile(folder, name, content, existing, relative);
      return { relative, created: existing === undefined };
    } finally {
      await folder.close();
    }
  }
  throw workspaceRefusal('symlink-loop', relative, `${relative}: too many levels of symbolic links`);
}

/** Where a link at `target` leads, relative to the root; refused when outside or dangling. */
async function linkTarget(workspace: WorkspaceRoot, target: string, relative: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw workspaceRefusal(
        'not-found',
        relative,
        `${relative} is a symbolic link to nothing; write to the path it should name`,
      );
    }
    throw refusalOfErrno(error, relative);
  }
  if (!isInside(workspace.root, real) || real === workspace.root) {
    throw workspaceRefusal(
      'outside-root',
      relative,
      `path ${JSON.stringify(relative)} refused: a symbolic link leads outside the workspace; use a path relative to the workspace root, without ".."`,
    );
  }
  return path.relative(workspace.root, real).split(path.sep).join('/');
}
