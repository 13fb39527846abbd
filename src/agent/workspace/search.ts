import picomatch from 'picomatch';
import { z } from 'zod';
import type { AgentTool, AgentToolOutput } from '../types.ts';
import { WORKSPACE_LIMITS, type WorkspaceLimits } from './bounded-output.ts';
import { startLineMatcher } from './line-matcher.ts';
import { looksBinary } from './looks-binary.ts';
import { type OpenedFile, openChildFile, openInside, readPrefix } from './open-inside.ts';
import { walkFolder } from './walk-folder.ts';
import { refusalOutput, workspaceRefusal } from './workspace-refusal.ts';
import type { WorkspaceRoot } from './workspace-root.ts';

/** Longest pattern accepted (characters). */
const MAX_PATTERN_CHARS = 1000;

const inputSchema = z.object({
  pattern: z
    .string()
    .min(1)
    .max(MAX_PATTERN_CHARS)
    .describe('Regular expression (RE2 syntax: no lookaround or backreferences) searched line by line'),
  path: z.string().optional().describe('File or folder to search, relative to the root; default "."'),
  glob: z
    .string()
    .optional()
    .describe('Only files whose path (relative to the searched folder) matches, e.g. "**/*.ts"'),
  ignoreCase: z.boolean().optional().describe('Case-insensitive match (default false)'),
});

/** Arguments of `search`. */
export type SearchInput = z.infer<typeof inputSchema>;

/** Why the search worker was stopped when the time budget ran out (told apart from an abort). */
const BUDGET_SPENT = Symbol('search time budget spent');

/**
 * The answer to a pattern RE2 refused: not a regular expression at all, or JavaScript-only
 * syntax (lookaround, backreferences) that would need a backtracking engine (issue 24).
 */
function refusedPattern(pattern: string, why: string, root: string): AgentToolOutput {
  try {
    // Parsing only: V8 compiles a RegExp when it first runs, never here.
    new RegExp(pattern);
  } catch {
    return { output: `Error: pattern is not a valid regular expression (${why})`, isError: true };
  }
  return refusalOutput(
    workspaceRefusal(
      'unsupported-pattern',
      '.',
      `pattern uses syntax the linear-time search engine does not run (${why}); rewrite it without lookaround or backreferences`,
    ),
    { root, relative: '.' },
  );
}

/**
 * `search` (AG-2): a regular expression over the workspace's text files, line by line, printed
 * as `path:line: text`. Bounded: matches, characters per line, file size; binary files, `.git`
 * and `node_modules` skipped; symlinks never followed.
 */
export function searchTool(workspace: WorkspaceRoot, limits: WorkspaceLimits = {}): AgentTool<SearchInput> {
  const maxMatches = limits.searchMatches ?? WORKSPACE_LIMITS.searchMatches;
  const lineChars = limits.searchLineChars ?? WORKSPACE_LIMITS.searchLineChars;
  const maxBytes = limits.searchFileBytes ?? WORKSPACE_LIMITS.searchFileBytes;
  const maxTotalBytes = limits.searchTotalBytes ?? WORKSPACE_LIMITS.searchTotalBytes;
  const maxTimeMs = limits.searchTimeMs ?? WORKSPACE_LIMITS.searchTimeMs;
  return {
    description:
      'Search the workspace files for a regular expression (RE2 syntax, as in ripgrep: no lookaround or backreferences), line by line. Returns ' +
      '"path:line: text" for each match. Optional path (file or folder), glob file filter, ignoreCase.',
    inputSchema,
    pathOf: (input) => input.path ?? '.',
    async execute(input, { signal }) {
      const found: string[] = [];
      let total = 0;
      let skipped = 0;
      let budgetLeft = maxTotalBytes;
      let overBudget = 0;
      let searchedFiles = 0;
      // The pattern is compiled and run on RE2 in a worker thread: the event loop (all of
      // `serve`) only waits. An abort or the time budget terminates the worker wherever it is.
      const matcher = startLineMatcher(input.pattern, input.ignoreCase === true);
      const onAbort = (): void => matcher.stop(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      let isOutOfTime = false;
      const budget = setTimeout(() => {
        isOutOfTime = true;
        matcher.stop(BUDGET_SPENT);
      }, maxTimeMs);
      // Reads and matches one opened file, then closes it.
      const searchFile = async (file: OpenedFile, shown: string): Promise<void> => {
        let buffer: Buffer;
        try {
          if (file.stats.size > maxBytes) {
            skipped++;
            return;
          }
          if (file.stats.size > budgetLeft) {
            overBudget++;
            return;
          }
          budgetLeft -= file.stats.size;
          buffer = await readPrefix(file, maxBytes);
        } finally {
          await file.handle.close();
        }
        if (looksBinary(buffer)) return;
        const matches = await matcher.match(buffer, { maxShown: maxMatches - found.length, lineChars });
        searchedFiles++;
        total += matches.total;
        for (const { line, text } of matches.shown) found.push(`${shown}:${line}: ${text}`);
      };
      try {
        const refused = await matcher.compile();
        if (refused !== undefined) return refusedPattern(input.pattern, refused, workspace.root);
        const opened = await openInside(workspace, input.path ?? '.', 'any');
        if (opened.type === 'file') {
          await searchFile(opened, opened.relative);
        } else {
          const { folder } = opened;
          const matchesGlob = input.glob ? picomatch(input.glob, { dot: true }) : () => true;
          const prefix = folder.relative === '.' ? '' : `${folder.relative}/`;
          try {
            for await (const { relative, entry, parent } of walkFolder(folder, {
              recursive: true,
              signal,
              root: workspace.root,
            })) {
              if (isOutOfTime) break;
              if (!entry.isFile() || !matchesGlob(relative)) continue;
              // Opened through its folder without following a link; a FIFO or device is skipped.
              const file = await openChildFile(parent, entry.name, workspace.root);
              if (file !== undefined) await searchFile(file, prefix + relative);
            }
          } finally {
            await folder.close();
          }
        }
      } catch (error) {
        if (!isOutOfTime || signal.aborted) throw error;
      } finally {
        clearTimeout(budget);
        signal.removeEventListener('abort', onAbort);
        matcher.stop(new Error('search finished'));
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
      if (isOutOfTime)
        lines.push(
          `[Search stopped after ${(maxTimeMs / 1000).toLocaleString('en-US')} s with ${searchedFiles.toLocaleString('en-US')} files searched; narrow with path or glob, or simplify the pattern]`,
        );
      if (overBudget > 0)
        lines.push(
          `(${overBudget} files not searched: one search reads at most ${maxTotalBytes.toLocaleString('en-US')} bytes; narrow with path or glob)`,
        );
      return { output: lines.join('\n'), truncated: total > found.length || isOutOfTime };
    },
  };
}
