import { readFile, stat } from 'node:fs/promises';
import picomatch from 'picomatch';
import { z } from 'zod';
import type { AgentTool } from '../types.ts';
import { WORKSPACE_LIMITS, type WorkspaceLimits } from './bounded-output.ts';
import { existingPath, isToolOutput } from './existing-path.ts';
import { looksBinary } from './looks-binary.ts';
import { walkFolder } from './walk-folder.ts';
import type { WorkspaceRoot } from './workspace-root.ts';

const inputSchema = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression searched line by line'),
  path: z.string().optional().describe('File or folder to search, relative to the root; default "."'),
  glob: z
    .string()
    .optional()
    .describe('Only files whose path (relative to the searched folder) matches, e.g. "**/*.ts"'),
  ignoreCase: z.boolean().optional().describe('Case-insensitive match (default false)'),
});

/** Arguments of `search`. */
export type SearchInput = z.infer<typeof inputSchema>;

/** Lines longer than this are tested on their first this-many characters only (bounds regex time). */
const MAX_TESTED_LINE = 10_000;

/**
 * `search` (AG-2): a regular expression over the workspace's text files, line by line, printed
 * as `path:line: text`. Bounded: matches, characters per line, file size; binary files, `.git`
 * and `node_modules` skipped; symlinks never followed.
 */
export function searchTool(workspace: WorkspaceRoot, limits: WorkspaceLimits = {}): AgentTool<SearchInput> {
  const maxMatches = limits.searchMatches ?? WORKSPACE_LIMITS.searchMatches;
  const lineChars = limits.searchLineChars ?? WORKSPACE_LIMITS.searchLineChars;
  const maxBytes = limits.searchFileBytes ?? WORKSPACE_LIMITS.searchFileBytes;
  return {
    description:
      'Search the workspace files for a regular expression (JavaScript syntax), line by line. Returns ' +
      '"path:line: text" for each match. Optional path (file or folder), glob file filter, ignoreCase.',
    inputSchema,
    pathOf: (input) => input.path ?? '.',
    async execute(input, { signal }) {
      let regex: RegExp;
      try {
        regex = new RegExp(input.pattern, input.ignoreCase === true ? 'i' : '');
      } catch (error) {
        return {
          output: `Error: pattern is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`,
          isError: true,
        };
      }
      const start = await existingPath(workspace, input.path ?? '.', 'any');
      if (isToolOutput(start)) return start;
      const matchesGlob = input.glob ? picomatch(input.glob, { dot: true }) : () => true;
      const found: string[] = [];
      let total = 0;
      let skipped = 0;
      const prefix = start.relative === '.' ? '' : `${start.relative}/`;
      const searchFile = async (absolute: string, shown: string): Promise<void> => {
        const info = await stat(absolute);
        if (info.size > maxBytes) {
          skipped++;
          return;
        }
        const buffer = await readFile(absolute);
        if (looksBinary(buffer)) return;
        const lines = buffer.toString('utf8').split('\n');
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i] as string;
          if (!regex.test(line.length > MAX_TESTED_LINE ? line.slice(0, MAX_TESTED_LINE) : line)) continue;
          total++;
          if (found.length < maxMatches) {
            const text = line.length > lineChars ? `${line.slice(0, lineChars)}…` : line;
            found.push(`${shown}:${i + 1}: ${text}`);
          }
        }
      };
      if (start.stats.isDirectory()) {
        for await (const { relative, absolute, entry } of walkFolder(start.real, {
          recursive: true,
          signal,
        })) {
          if (entry.isFile() && matchesGlob(relative)) await searchFile(absolute, prefix + relative);
        }
      } else {
        await searchFile(start.real, start.relative);
      }
      const lines = [
        `${total.toLocaleString('en-US')} ${total === 1 ? 'match' : 'matches'} for /${input.pattern}/${input.ignoreCase ? 'i' : ''}`,
        ...found,
      ];
      if (total > found.length) {
        lines.push(
          `[Output truncated: showing ${found.length} of ${total.toLocaleString('en-US')} matches; narrow with path, glob or a more specific pattern]`,
        );
      }
      if (skipped > 0)
        lines.push(`(${skipped} files over ${maxBytes.toLocaleString('en-US')} bytes not searched)`);
      return { output: lines.join('\n'), truncated: total > found.length };
    },
  };
}
