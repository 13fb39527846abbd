import type { AgentTool } from '../types.ts';
import type { WorkspaceLimits } from './bounded-output.ts';
import { editFileTool } from './edit-file.ts';
import { listDirectoryTool } from './list-directory.ts';
import { readFileTool } from './read-file.ts';
import { searchTool } from './search.ts';
import { refusalOutput, scrubRoot } from './workspace-refusal.ts';
import type { WorkspaceRoot } from './workspace-root.ts';
import { writeFileTool } from './write-file.ts';

/** Names of the built-in workspace tools (AG-2), as agent files list them. */
export const WORKSPACE_TOOL_NAMES = [
  'read_file',
  'write_file',
  'edit_file',
  'list_directory',
  'search',
] as const;

/** One of {@link WORKSPACE_TOOL_NAMES}. */
export type WorkspaceToolName = (typeof WORKSPACE_TOOL_NAMES)[number];

/** Options of {@link workspaceTools}. */
export interface WorkspaceToolsOptions {
  /** Which tools; default all five. */
  readonly names?: readonly WorkspaceToolName[];
  readonly limits?: WorkspaceLimits;
}

const FACTORIES: Readonly<
  Record<WorkspaceToolName, (workspace: WorkspaceRoot, limits: WorkspaceLimits) => AgentTool<unknown>>
> = {
  read_file: readFileTool,
  write_file: writeFileTool,
  edit_file: editFileTool,
  list_directory: listDirectoryTool,
  search: searchTool,
};

/**
 * The built-in workspace tools (AG-2) rooted at one folder: `read_file`, `write_file`,
 * `edit_file`, `list_directory`, `search`. Every path goes through the root's checks.
 *
 * @param workspace The root, from `openWorkspaceRoot(dir)`.
 * @param options Which tools and their output caps.
 * @returns Tools by name, for `createAgent({ tools })`.
 * @example
 * const tools = workspaceTools(await openWorkspaceRoot('.'), { names: ['read_file', 'list_directory'] });
 */
export function workspaceTools(
  workspace: WorkspaceRoot,
  { names = WORKSPACE_TOOL_NAMES, limits = {} }: WorkspaceToolsOptions = {},
): Record<string, AgentTool<unknown>> {
  return Object.fromEntries(
    names.map((name) => [name, withTypedRefusals(FACTORIES[name](workspace, limits), workspace.root)]),
  );
}

/**
 * Every failure of a workspace tool reaches the model as one error result (issue 24): a refusal
 * as `Error: … (E_WORKSPACE_PATH: <reason>)`, a file-system error by its errno code with the path
 * the model gave; never the host's absolute paths. An abort still throws, so the run loop reports it.
 */
function withTypedRefusals(tool: AgentTool<unknown>, root: string): AgentTool<unknown> {
  return {
    ...tool,
    async execute(input, options) {
      try {
        const result = await tool.execute(input, options);
        if (typeof result === 'string' || result.isError !== true) return result;
        return { ...result, output: scrubRoot(result.output, root) };
      } catch (error) {
        if (options.signal.aborted) throw error;
        const given = tool.pathOf?.(input);
        return refusalOutput(error, { root, relative: typeof given === 'string' ? given : '.' });
      }
    },
  };
}
