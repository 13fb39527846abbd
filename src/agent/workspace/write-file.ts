import { z } from 'zod';
import type { AgentTool } from '../types.ts';
import { WORKSPACE_LIMITS, type WorkspaceLimits } from './bounded-output.ts';
import type { WorkspaceRoot } from './workspace-root.ts';
import { writeInside } from './write-inside.ts';

const inputSchema = z.object({
  path: z.string().describe('File path relative to the workspace root; missing folders are created'),
  content: z.string().describe('The whole new content of the file'),
});

/** Arguments of `write_file`. */
export type WriteFileInput = z.infer<typeof inputSchema>;

const lineCount = (text: string): number =>
  text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/**
 * `write_file` (AG-2): creates or replaces a whole file. The content is in the call's arguments,
 * so `supersede` (STR-1) takes the write as the file's current content; the result is one line.
 */
export function writeFileTool(
  workspace: WorkspaceRoot,
  limits: WorkspaceLimits = {},
): AgentTool<WriteFileInput> {
  const maxChars = limits.writeChars ?? WORKSPACE_LIMITS.writeChars;
  return {
    description:
      'Create or overwrite a text file in the workspace with the given content (the whole file). ' +
      'Prefer edit_file to change part of an existing file.',
    inputSchema,
    pathOf: (input) => input.path,
    async execute(input) {
      if (input.content.length > maxChars) {
        return {
          output: `Error: content has ${input.content.length.toLocaleString('en-US')} characters; the limit is ${maxChars.toLocaleString('en-US')}`,
          isError: true,
        };
      }
      const file = await writeInside(workspace, input.path, input.content);
      const bytes = Buffer.byteLength(input.content, 'utf8');
      return {
        output: `${file.created ? 'Created' : 'Overwrote'} ${file.relative} (${lineCount(input.content)} lines, ${bytes.toLocaleString('en-US')} bytes)`,
      };
    },
  };
}
