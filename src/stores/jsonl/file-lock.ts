/**
 * A cross-process lock file (ST-5) for writers sharing a JSONL directory on one machine.
 *
 * The lock is a file created exclusively (a written temp file hard-linked into place) that
 * names its holder (pid, host, boot id, token).
 * A holder that died (SIGKILL, power loss) cannot release it, so waiters check the holder:
 * same host and boot and the pid is gone (or a zombie) → abandoned at once; another host or
 * an unreadable lock → abandoned after `staleMs`. Why not `proper-lockfile`: it judges
 * staleness by mtime only, refreshed by a timer, so after a crash every waiter sits out the
 * stale period (≥ 2 s), and a blocked event loop lets a live lock look stale.
 *
 * Breaking an abandoned lock is serialised by a second lock (`<path>.break`) and only removes
 * the very file judged abandoned (same inode, mtime and content), so two waiters that both saw
 * it abandoned cannot delete a fresh lock that a third process took in between.
 */
import { link, open, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { isRunning, readBootId } from '../shared/process-identity.ts';

/** Defaults of {@link acquireFileLock}, exported so docs and tests can cite them. */
export const FILE_LOCK_DEFAULTS = {
  /** Give up waiting for a live holder after this long (`E_STORE`). */
  timeoutMs: 10_000,
  /** A lock whose holder cannot be checked counts as abandoned after this age. */
  staleMs: 30_000,
} as const;

/** A lock created but not yet written is given this long before it counts as abandoned. */
const UNWRITTEN_LOCK_MS = 1_000;
/** Longest pause between attempts; the first is 1 ms and doubles, with jitter. */
const MAX_BACKOFF_MS = 25;

export interface FileLockOptions {
  readonly timeoutMs?: number;
  readonly staleMs?: number;
}

/** A held lock. `release` is idempotent and never removes a lock that is not its own. */
export interface FileLock {
  readonly path: string;
  release(): Promise<void>;
}

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly boot: string;
  readonly token: string;
}

/** What a waiter saw at the lock path: enough to remove exactly that file later. */
interface Observed {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly content: string;
  readonly holder: Holder | undefined;
}

const host = hostname();
const boot = readBootId();
let tokens = 0;
let temps = 0;

/**
 * Takes the lock at `path` (its folder must exist), waiting while a live process holds it.
 *
 * @param path - The lock file, e.g. `<session folder>/lock`.
 * @returns The held lock; call `release()` in a `finally`.
 * @throws `E_STORE` when a live holder keeps it longer than `timeoutMs`, or on I/O errors.
 */
export async function acquireFileLock(
  path: string,
  { timeoutMs = FILE_LOCK_DEFAULTS.timeoutMs, staleMs = FILE_LOCK_DEFAULTS.staleMs }: FileLockOptions = {},
): Promise<FileLock> {
  const holder: Holder = { pid: process.pid, host, boot, token: `${process.pid}-${Date.now()}-${++tokens}` };
  const content = JSON.stringify(holder);
  const deadline = Date.now() + timeoutMs;
  let backoff = 1;
  for (;;) {
    if (await createExclusive(path, content)) return heldLock(path, content);
    const observed = await observe(path);
    if (observed === undefined) continue; // released in between: try again at once
    if (isAbandoned(observed, staleMs)) {
      await breakAbandoned(path, observed, staleMs);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new ChatfoldError(
        'E_STORE',
        `lock ${path} is held by process ${observed.holder?.pid ?? '(unknown)'} on ${observed.holder?.host ?? '(unknown host)'} for more than ${timeoutMs} ms; if no such process runs, delete the file`,
        { path, holder: observed.holder, timeoutMs },
      );
    }
    await sleep(backoff * (0.5 + Math.random()));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

function heldLock(path: string, content: string): FileLock {
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      // Only our own lock: if someone judged it abandoned and replaced it, theirs stays.
      const now = await readFile(path, 'utf8').catch(ignoreMissing);
      if (now === content) await unlink(path).catch(ignoreMissing);
    },
  };
}

/**
 * Creates `path` holding `content`, or returns false when it exists. The content is written to
 * `<path>.<pid>.<n>.tmp` first and hard-linked into place, so a lock never exists half-written
 * (a writer killed between `open` and `write` would leave an empty lock that waiters could
 * only judge by age). File systems without hard links fall back to an O_EXCL create.
 */
async function createExclusive(path: string, content: string): Promise<boolean> {
  const temp = `${path}.${process.pid}.${++temps}.tmp`;
  try {
    await writeFile(temp, content);
  } catch (error) {
    throw storeError(error, temp, 'write lock');
  }
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    const code = codeOf(error);
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP') {
      return createWithExclusiveOpen(path, content);
    }
    throw storeError(error, path, 'create lock');
  } finally {
    await unlink(temp).catch(ignoreMissing);
  }
}

async function createWithExclusiveOpen(path: string, content: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'wx');
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return false;
    throw storeError(error, path, 'create lock');
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return true;
}

async function observe(path: string): Promise<Observed | undefined> {
  try {
    const [info, content] = await Promise.all([stat(path), readFile(path, 'utf8')]);
    return { ino: info.ino, mtimeMs: info.mtimeMs, content, holder: parseHolder(content) };
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw storeError(error, path, 'read lock');
  }
}

function isAbandoned(observed: Observed, staleMs: number): boolean {
  const age = Date.now() - observed.mtimeMs;
  const { holder } = observed;
  if (holder === undefined) return age > UNWRITTEN_LOCK_MS;
  // Past staleMs even a running pid is taken as reused or hung: holders keep the lock for
  // milliseconds, and waiting forever would need a person to delete the file.
  if (age > staleMs) return true;
  if (holder.host !== host) return false;
  if (boot !== '' && holder.boot !== '' && holder.boot !== boot) return true; // left before a reboot
  return !isRunning(holder.pid);
}

/** Removes the observed abandoned lock, under `<path>.break` so only one waiter does it. */
async function breakAbandoned(path: string, observed: Observed, staleMs: number): Promise<void> {
  const breakPath = `${path}.break`;
  const content = JSON.stringify({ pid: process.pid, host, boot, token: `break-${process.pid}-${++tokens}` });
  if (!(await createExclusive(breakPath, content))) {
    // Another waiter is breaking it (microseconds); unless that waiter died doing so.
    const breaker = await observe(breakPath);
    if (breaker !== undefined && isAbandoned(breaker, staleMs)) await unlink(breakPath).catch(ignoreMissing);
    else await sleep(1);
    return;
  }
  try {
    const now = await observe(path);
    if (
      now !== undefined &&
      now.ino === observed.ino &&
      now.mtimeMs === observed.mtimeMs &&
      now.content === observed.content
    ) {
      await unlink(path).catch(ignoreMissing);
      await removeAbandonedTemps(path);
    }
  } finally {
    await unlink(breakPath).catch(ignoreMissing);
  }
}

/** Removes `<lock>[.break].<pid>.<n>.tmp` files of processes that died before linking them. */
async function removeAbandonedTemps(path: string): Promise<void> {
  const pattern = new RegExp(
    `^${basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:\\.break)?\\.(\\d+)\\.\\d+\\.tmp$`,
  );
  const names = await readdir(dirname(path)).catch(ignoreMissing);
  for (const name of names ?? []) {
    const pid = pattern.exec(name)?.[1];
    if (pid !== undefined && !isRunning(Number(pid)))
      await unlink(join(dirname(path), name)).catch(ignoreMissing);
  }
}

function parseHolder(content: string): Holder | undefined {
  try {
    const value: unknown = JSON.parse(content);
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, host, boot, token } = value as Record<string, unknown>;
    if (typeof pid !== 'number' || typeof host !== 'string' || typeof boot !== 'string') return undefined;
    if (typeof token !== 'string') return undefined;
    return { pid, host, boot, token };
  } catch {
    return undefined; // created but not yet written (or torn by a crash): judged by age
  }
}

function ignoreMissing(error: unknown): undefined {
  if (codeOf(error) === 'ENOENT') return undefined;
  throw error;
}

function codeOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/** Wraps a file-system error as `E_STORE` with the path and operation. */
export function storeError(error: unknown, path: string, operation: string): ChatfoldError {
  if (ChatfoldError.isInstance(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new ChatfoldError(
    'E_STORE',
    `jsonl store: cannot ${operation} ${path}: ${reason}`,
    {
      path,
      operation,
      code: codeOf(error),
    },
    { cause: error },
  );
}
