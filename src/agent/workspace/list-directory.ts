import type { Dirent } from 'node:fs';
import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import type { AgentTool } from '../types.ts';
import { WORKSPACE_LIMITS, type WorkspaceLimits } from './bounded-output.ts';
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

/** Folders a recursive listing or a search never enters (also what the supersede mapping calls its base filter). */
export const SKIPPED_FOLDERS: readonly string[] = ['.git', 'node_modules'];

interface Entry {
  readonly name: string;
  readonly line: string;
}

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
      const folder = await workspace.resolve(input.path ?? '.');
      if (!folder.exists) return { output: `Error: ${folder.relative} does not exist`, isError: true };
      if (!(await stat(folder.real)).isDirectory()) {
        return { output: `Error: ${folder.relative} is not a folder; use read_file`, isError: true };
      }
      const matches =
        input.pattern === undefined || input.pattern === ''
          ? () => true
          : picomatch(input.pattern, { dot: true });
      const entries: Entry[] = [];
      let total = 0;
      const walk = async (directory: string, prefix: string): Promise<void> => {
        signal.throwIfAborted();
        let items: Dirent[];
        try {
          items = await readdir(directory, { withFileTypes: true });
        } catch {
          return; // unreadable subfolder: listed, not entered
        }
        items.sort((a, b) => a.name.localeCompare(b.name));
        for (const item of items) {
          const relative = prefix + item.name;
          const absolute = path.join(directory, item.name);
          const isFolder = item.isDirectory();
          const shown = isFolder ? `${relative}/` : relative;
          if (matches(relative) || (isFolder && matches(shown))) {
            total++;
            if (entries.length < maxEntries)
              entries.push({ name: relative, line: await describe(absolute, item, shown) });
          }
          if (input.recursive === true && isFolder && !SKIPPED_FOLDERS.includes(item.name)) {
            await walk(absolute, `${relative}/`);
          }
        }
      };
      await walk(folder.real, '');
      const header = `${folder.relative === '.' ? 'workspace root' : `${folder.relative}/`}: ${total.toLocaleString('en-US')} ${total === 1 ? 'entry' : 'entries'}${input.pattern ? ` matching ${input.pattern}` : ''}`;
      const lines = entries.map((entry) => entry.line);
      if (total > entries.length) {
        lines.push(
          `[Output truncated: showing ${entries.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} entries; narrow with pattern or list a subfolder]`,
        );
      }
      return { output: [header, ...lines].join('\n'), truncated: total > entries.length };
    },
  };
}

async function describe(absolute: string, item: Dirent, shown: string): Promise<string> {
  try {
    if (item.isSymbolicLink()) return `${shown} -> ${await readlink(absolute)}`;
    if (item.isDirectory()) return shown;
    const { size } = await lstat(absolute);
    return `${shown}  (${size.toLocaleString('en-US')} bytes)`;
  } catch {
    return shown;
  }
}
