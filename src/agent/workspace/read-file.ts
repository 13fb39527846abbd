import { z } from 'zod';
import type { AgentTool } from '../types.ts';
import { boundText, WORKSPACE_LIMITS, type WorkspaceLimits } from './bounded-output.ts';
import { looksBinary } from './looks-binary.ts';
import { openFileInside, readPrefix } from './open-inside.ts';
import type { WorkspaceRoot } from './workspace-root.ts';

const inputSchema = z.object({
  path: z.string().describe('File path relative to the workspace root'),
  offset: z.number().int().min(1).optional().describe('First line to read (1-based); default 1'),
  limit: z.number().int().min(1).optional().describe('Number of lines to read; default: to the end'),
});

/** Line ranges are cut from files up to this size (the whole file is read to find the lines). */
const MAX_RANGE_READ_BYTES = 64 * 1024 * 1024;

/** Arguments of `read_file`. */
export type ReadFileInput = z.infer<typeof inputSchema>;

/**
 * `read_file` (AG-2): the file's text exactly as stored (so `edit_file` can quote it), or a line
 * range with `offset` / `limit`. Output is capped with a note; the whole file without a range is
 * what `supersede` (STR-1) takes as the file's current content.
 */
export function readFileTool(
  workspace: WorkspaceRoot,
  limits: WorkspaceLimits = {},
): AgentTool<ReadFileInput> {
  const maxChars = limits.readChars ?? WORKSPACE_LIMITS.readChars;
  return {
    description:
      'Read a text file in the workspace. Returns its exact content (use it to quote old_string for edit_file). ' +
      'Optional offset (first line, 1-based) and limit (number of lines) read part of a long file.',
    inputSchema,
    pathOf: (input) => input.path,
    async execute(input) {
      const file = await openFileInside(workspace, input.path);
      const info = file.stats;
      let buffer: Buffer;
      try {
        if (info.size > MAX_RANGE_READ_BYTES && (input.offset !== undefined || input.limit !== undefined)) {
          return {
            output: `Error: ${file.relative} has ${info.size.toLocaleString('en-US')} bytes; line ranges are read from files up to ${MAX_RANGE_READ_BYTES.toLocaleString('en-US')} bytes (use search to find lines)`,
            isError: true,
          };
        }
        // Never load more than needed: a cap's worth of bytes for a plain read of a huge file.
        const whole = input.offset === undefined && input.limit === undefined;
        buffer = await readPrefix(file, whole ? maxChars * 4 + 1 : info.size);
      } finally {
        await file.handle.close();
      }
      if (looksBinary(buffer)) {
        return {
          output: `Error: ${file.relative} is a binary file (${info.size.toLocaleString('en-US')} bytes); not shown`,
          isError: true,
        };
      }
      const partial = info.size > buffer.length;
      let text = buffer.toString('utf8');
      if (input.offset !== undefined || input.limit !== undefined) {
        const lines = text.split('\n');
        const start = (input.offset ?? 1) - 1;
        if (start >= lines.length) {
          return {
            output: `Error: ${file.relative} has ${lines.length} lines; offset ${input.offset} is past the end`,
            isError: true,
          };
        }
        const end = input.limit === undefined ? lines.length : start + input.limit;
        text = lines.slice(start, end).join('\n');
      }
      if (text === '') return { output: '(empty file)' };
      if (partial) {
        const cut = text.slice(0, maxChars);
        return {
          output: `${cut}\n[Output truncated: showing the first ${maxChars.toLocaleString('en-US')} characters of a ${info.size.toLocaleString('en-US')}-byte file; read the rest with offset and limit]`,
          truncated: true,
        };
      }
      const bounded = boundText(text, maxChars, 'read the rest with offset and limit');
      return { output: bounded.text, truncated: bounded.truncated };
    },
  };
}
