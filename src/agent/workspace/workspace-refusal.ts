import { ChatfoldError } from '../../errors/chatfold-error.ts';
import type { AgentToolOutput } from '../types.ts';

/**
 * Why a workspace tool refused a path (issue 24): the `reason` of an `E_WORKSPACE_PATH` error
 * and the tag the model sees at the end of the error result. Stable across versions.
 */
export const WORKSPACE_REFUSAL_REASONS = [
  /** Not a relative path: absolute, `..`, `~`, a NUL character, not a string. */
  'not-relative',
  /** The path, or what it was when opened, is outside the root (a symbolic link, a swap mid-call). */
  'outside-root',
  'not-found',
  'is-directory',
  'not-a-folder',
  /** A FIFO, a device, a socket: never read, never written. */
  'not-regular-file',
  /** Larger than the tool's limit; refused before reading. */
  'too-large',
  'permission-denied',
  /** Too many levels of symbolic links, or a link where none may be followed. */
  'symlink-loop',
  /** The search pattern is not one the linear-time engine runs. */
  'unsupported-pattern',
  /** Any other failure of the file system, reported by its errno code only. */
  'io-error',
] as const;

/** One of {@link WORKSPACE_REFUSAL_REASONS}. */
export type WorkspaceRefusalReason = (typeof WORKSPACE_REFUSAL_REASONS)[number];

/**
 * The typed error of a refused path: `E_WORKSPACE_PATH` with `details.path` (relative to the
 * root, never a host path) and `details.reason`.
 *
 * @param reason Why, from {@link WORKSPACE_REFUSAL_REASONS}.
 * @param relative The path as the model gave or sees it.
 * @param message What failed and what to do instead; must not contain a host path.
 */
export function workspaceRefusal(
  reason: WorkspaceRefusalReason,
  relative: string,
  message: string,
  cause?: unknown,
): ChatfoldError<'E_WORKSPACE_PATH'> {
  return new ChatfoldError(
    'E_WORKSPACE_PATH',
    message,
    { path: relative, reason },
    cause === undefined ? {} : { cause },
  );
}

const ERRNO_REASONS: Readonly<Record<string, WorkspaceRefusalReason>> = {
  ENOENT: 'not-found',
  ENOTDIR: 'not-found',
  EISDIR: 'is-directory',
  EACCES: 'permission-denied',
  EPERM: 'permission-denied',
  ELOOP: 'symlink-loop',
  ENXIO: 'not-regular-file',
  ENODEV: 'not-regular-file',
  EFBIG: 'too-large',
};

const ERRNO_WORDING: Readonly<Record<WorkspaceRefusalReason, (shown: string) => string>> = {
  'not-relative': (shown) => `${shown} is not a path relative to the workspace root`,
  'outside-root': (shown) => `${shown} leads outside the workspace`,
  'not-found': (shown) => `${shown} does not exist`,
  'is-directory': (shown) => `${shown} is a directory; use list_directory`,
  'not-a-folder': (shown) => `${shown} is not a folder`,
  'not-regular-file': (shown) => `${shown} is not a regular file`,
  'too-large': (shown) => `${shown} is too large`,
  'permission-denied': (shown) => `${shown}: permission denied`,
  'symlink-loop': (shown) => `${shown}: too many levels of symbolic links, or a link where none is followed`,
  'unsupported-pattern': () => 'the pattern is not supported',
  'io-error': (shown) => `${shown} could not be used`,
};

/**
 * Turns a Node file-system error (errno) into the typed refusal, with the path the model gave:
 * Node's own message names the host path, so it is never passed on.
 */
export function refusalOfErrno(error: unknown, relative: string): ChatfoldError<'E_WORKSPACE_PATH'> {
  const code =
    typeof error === 'object' && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
  const reason = (code !== undefined ? ERRNO_REASONS[code] : undefined) ?? 'io-error';
  const wording = ERRNO_WORDING[reason](relative);
  return workspaceRefusal(reason, relative, code === undefined ? wording : `${wording} (${code})`, error);
}

/** True for an error Node's file system raised (it has an errno `code` and a `syscall`). */
export const isErrnoError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';

/**
 * The one shape in which every refusal reaches the model (issue 24): `Error: <message>
 * (E_WORKSPACE_PATH: <reason>)`, with any occurrence of the root's host path replaced by `.`.
 *
 * @param error A thrown value: a chatfold error, an errno error, anything else.
 * @param options The root's real path (scrubbed from the text) and the path the call was about.
 */
export function refusalOutput(
  error: unknown,
  { root, relative }: { readonly root: string; readonly relative: string },
): AgentToolOutput {
  const typed = ChatfoldError.isInstance(error)
    ? error
    : isErrnoError(error)
      ? refusalOfErrno(error, relative)
      : undefined;
  const message =
    typed !== undefined ? typed.message : error instanceof Error ? error.message : String(error);
  const tag =
    typed === undefined
      ? ''
      : ` (${typed.code}${typeof typed.details.reason === 'string' ? `: ${typed.details.reason}` : ''})`;
  return { output: scrubRoot(`Error: ${message}${tag}`, root), isError: true };
}

/** Replaces the root's host path (and anything under it) by workspace-relative text. */
export function scrubRoot(text: string, root: string): string {
  if (root === '' || root === '/') return text;
  return text.split(`${root}/`).join('').split(root).join('.');
}
