import type { ToolMapping } from '../../strategies/supersede/tool-mappings.ts';

/**
 * How `supersede` (STR-1) reads the workspace tools' calls: the path is the `path` argument;
 * a whole `read_file` or a `write_file` is the file's current content, a ranged read is a
 * range, an `edit_file` result is a snippet (it supersedes nothing, a later read supersedes it).
 * Passed to the session as `strategyOptions.supersede.tools`, merged over the built-ins.
 */
export const WORKSPACE_TOOL_MAPPINGS: Readonly<Record<string, ToolMapping>> = {
  read_file: { kind: 'read', path: ['path'], range: ['offset', 'limit'] },
  write_file: { kind: 'write', path: ['path'] },
  edit_file: { kind: 'edit', path: ['path'] },
  list_directory: {
    kind: 'list',
    path: ['path'],
    shows: ['types', 'hidden'],
    recursive: ['recursive'],
    filter: ['pattern'],
    baseFilter: 'chatfold list_directory',
  },
};

/** Read-only workspace tools whose identical repeated call makes the earlier output stale. */
export const WORKSPACE_IDEMPOTENT_TOOLS: readonly string[] = ['read_file', 'list_directory', 'search'];
