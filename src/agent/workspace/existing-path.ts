import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { AgentToolOutput } from '../types.ts';
import type { WorkspacePath, WorkspaceRoot } from './workspace-root.ts';

/** A checked path that exists, with its stats. */
export interface ExistingPath extends WorkspacePath {
  readonly stats: Stats;
}

/**
 * Resolves a path the model gave and checks it exists and is of the expected kind; otherwise
 * the error result the model sees (`Error: notes.md does not exist`). Escapes throw
 * `E_WORKSPACE_PATH` (the run loop reports them the same way).
 */
export async function existingPath(
  workspace: WorkspaceRoot,
  requested: unknown,
  kind: 'file' | 'folder' | 'any',
): Promise<ExistingPath | AgentToolOutput> {
  const resolved = await workspace.resolve(requested);
  if (!resolved.exists) return { output: `Error: ${resolved.relative} does not exist`, isError: true };
  const stats = await stat(resolved.real);
  if (kind === 'file' && stats.isDirectory()) {
    return { output: `Error: ${resolved.relative} is a directory; use list_directory`, isError: true };
  }
  if (kind === 'folder' && !stats.isDirectory()) {
    return { output: `Error: ${resolved.relative} is not a folder; use read_file`, isError: true };
  }
  return { ...resolved, stats };
}

/** True when {@link existingPath} returned an error result instead of a path. */
export const isToolOutput = (value: ExistingPath | AgentToolOutput): value is AgentToolOutput =>
  'output' in value;
