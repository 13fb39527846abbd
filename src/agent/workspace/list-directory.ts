import type { Dirent } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import picomatch from 'picomatch';
import { z } from 'zod';
import type { AgentTool } from '../types.ts';
import { WORKSPACE_LIMITS, type WorkspaceLimits } from './bounded-output.ts';
import { type OpenedFolder, openFolderInside } from './open-inside.ts';
import { walkFolder } from './walk-folder.ts';
import type { WorkspaceRoot } from './workspace-root.ts';

const inputSchema = z.object({
  path: z.string().optional().describe('Folder relative to the workspace root; default "." (the root)'),
  pattern: z
    .string()
    .optional()
    .describe('Glob filter on paths relative to the listed folder, e.g. "*.ts" or "**/*.md"'),
  recursive: z.boolean().optional().describe('List subfolders too (default false)'),
});

/** Arguments of `list_directory`. */
export type ListDirectoryInput = z.infer<typeof inputSchema>;

/**
 * `list_directory` (AG-2): entries of a folder, folders with a trailing `/`, files with their
 * size, symlinks with their target; optional glob filter and recursion (never through a symlink,
 * never into `.git` or `node_modules`). Capped with a note.
 */
export function listDirectoryTool(
  workspace: WorkspaceRoot,
  limits: WorkspaceLimits = {},
): AgentTool<ListDirectoryInput> {
  const maxEntries = limits.listEntries ?? WORKSPACE_LIMITS.listEntries;
  return {
    description:
      'List a folder of the workspace: subfolders end with "/", files show their size. Optional glob pattern ' +
      '(e.g. "**/*.ts" with recursive) and recursive listing.',
    inputSchema,
    pathOf: (input) => input.path ?? '.',
    async execute(input, { signal }) {
      const folder = await openFolderInside(workspace, input.path ?? '.');
      const matches =
        input.pattern === undefined || input.pattern === ''
          ? () => true
          : picomatch(input.pattern, { dot: true });
      const entries: string[] = [];
      let total = 0;
      try {
        for await (const { relative, entry, parent } of walkFolder(folder, {
          recursive: input.recursive === true,
          signal,
          root: workspace.root,
        })) {
          const shown = entry.isDirectory() ? `${relative}/` : relative;
          if (!matches(relative) && !(entry.isDirectory() && matches(shown))) continue;
          total++;
          if (entries.length < maxEntries) entries.push(await describe(parent, entry, shown));
        }
      } finally {
        await folder.close();
      }
      const header = `${folder.relative === '.' ? 'workspace root' : `${folder.relative}/`}: ${total.toLocaleString('en-US')} ${total === 1 ? 'entry' : 'entries'}${input.pattern ? ` matching ${input.pattern}` : ''}`;
      const lines = [...entries];
      if (total > entries.length) {
        lines.push(
          `[Output truncated: showing ${entries.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} entries; narrow with pattern or list a subfolder]`,
        );
      }
      return { output: [header, ...lines].join('\n'), truncated: total > entries.length };
    },
  };
}

/** One listing line; sizes and link targets are read through the opened parent, never following a link. */
async function describe(parent: OpenedFolder, item: Dirent, shown: string): Promise<string> {
  try {
    if (item.isSymbolicLink()) return `${shown} -> ${await readlink(parent.child(item.name))}`;
    if (item.isDirectory()) return shown;
    const { size } = await lstat(parent.child(item.name));
    return `${shown}  (${size.toLocaleString('en-US')} bytes)`;
  } catch {
    return shown;
  }
}
