import type { JsonValue } from '../../messages/types.ts';

/**
 * What a listing shows besides the names of a directory's direct entries. A later listing
 * supersedes an earlier one only if it shows at least as much (STR-1 "equal or more
 * inclusive"): `ls -la src` covers `ls src`, `find src` covers `ls -a src`, `ls src` covers
 * neither `ls -R src` nor `ls -l src`.
 */
export type ListingFeature = 'recursive' | 'hidden' | 'types' | 'details';

/**
 * What a tool call did, as far as superseding is concerned (STR-1). Paths are normalized keys
 * (see {@link normalizePath}); `range` and `filter` are canonical text compared for equality.
 */
export type CallEffect =
  /** A read of a file: all of it, or a part (`range`: offset/limit, view_range, `head -n 20`…). */
  | { readonly kind: 'read'; readonly path: string; readonly range?: string }
  /** The whole content of a file was written (the call's arguments hold the new content). */
  | { readonly kind: 'write'; readonly path: string }
  /**
   * A change to part of a file. Its output holds the whole new file only when the tool says
   * so (`fullContent`); otherwise it is a snippet or a diff, which supersedes nothing.
   */
  | { readonly kind: 'edit'; readonly path: string; readonly fullContent?: boolean }
  /** A directory listing of `path`, showing `shows`, narrowed by `filter` (a glob, find tests, a pipe). */
  | {
      readonly kind: 'list';
      readonly path: string;
      readonly shows: readonly ListingFeature[];
      readonly filter?: string;
    }
  /**
   * A read-only observation keyed by `key` (an identical call, a repeated read-only command):
   * a later one with the same key holds newer output. `rule` names it in stubs and metadata.
   */
  | { readonly kind: 'observation'; readonly key: string; readonly rule?: string };

/** A tool call as rules see it: the name, the parsed arguments and the text of its result. */
export interface ToolCallView {
  readonly name: string;
  readonly args: Readonly<Record<string, JsonValue>>;
  /** All text parts of the result, joined. */
  readonly output: string;
  /** Working directory that relative paths resolve against, when known (option `cwd`). */
  readonly cwd: string | undefined;
}

/**
 * A custom rule: the effect of a call it recognises, or undefined to let the next rule (and
 * finally the built-in tool mappings) decide. Must be pure.
 *
 * @example
 * // `bd show ID` (an issue tracker) prints the current state: a later one is newer.
 * const beadsShow: SupersedeRule = ({ name, args }) => {
 *   const match = name === 'Bash' && typeof args.command === 'string' && /^bd show (\S+)$/.exec(args.command);
 *   return match ? { kind: 'observation', key: `bd show ${match[1]}`, rule: 'beads-issue' } : undefined;
 * };
 */
export type SupersedeRule = (call: ToolCallView) => CallEffect | undefined;
