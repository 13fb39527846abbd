import { z } from 'zod';
import type { AgentTool } from '../types.ts';
import { boundText, WORKSPACE_LIMITS, type WorkspaceLimits } from './bounded-output.ts';
import { looksBinary } from './looks-binary.ts';
import { openFileInside, readPrefix } from './open-inside.ts';
import { workspaceRefusal } from './workspace-refusal.ts';
import type { WorkspaceRoot } from './workspace-root.ts';
import { writeInside } from './write-inside.ts';

const inputSchema = z.object({
  path: z.string().describe('File path relative to the workspace root'),
  old_string: z.string().describe('Exact text to replace; must occur exactly once in the file'),
  new_string: z.string().describe('Text to put in its place'),
});

/** Arguments of `edit_file`. */
export type EditFileInput = z.infer<typeof inputSchema>;

/** Lines of context shown around an edit. */
const CONTEXT_LINES = 2;
/** Largest snippet an edit result shows. */
const SNIPPET_CHARS = 4000;

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/**
 * `edit_file` (AG-2): replaces one exact, unique occurrence of `old_string`. Fails (an error
 * result the model sees) when the text is absent or occurs more than once, so an edit never
 * lands in the wrong place. The result shows the changed lines with a little context.
 */
export function editFileTool(
  workspace: WorkspaceRoot,
  limits: WorkspaceLimits = {},
): AgentTool<EditFileInput> {
  const maxChars = limits.writeChars ?? WORKSPACE_LIMITS.writeChars;
  const maxFileBytes = limits.editFileBytes ?? WORKSPACE_LIMITS.editFileBytes;
  return {
    description:
      'Replace one exact occurrence of old_string with new_string in a workspace file. old_string must match ' +
      'the file character for character (read_file first) and occur exactly once; add surrounding lines to make it unique.',
    inputSchema,
    pathOf: (input) => input.path,
    async execute(input) {
      if (input.old_string === '') {
        return { output: 'Error: old_string is empty; use write_file to create a file', isError: true };
      }
      const file = await openFileInside(workspace, input.path);
      let buffer: Buffer;
      try {
        // The size is checked on the open descriptor before anything is read (issue 24).
        if (file.stats.size > maxFileBytes) {
          throw workspaceRefusal(
            'too-large',
            file.relative,
            `${file.relative} has ${file.stats.size.toLocaleString('en-US')} bytes; edit_file edits files up to ${maxFileBytes.toLocaleString('en-US')} bytes (use write_file to replace it whole)`,
          );
        }
        buffer = await readPrefix(file, maxFileBytes);
      } finally {
        await file.handle.close();
      }
      if (looksBinary(buffer)) return { output: `Error: ${file.relative} is a binary file`, isError: true };
      const text = buffer.toString('utf8');
      const count = countOccurrences(text, input.old_string);
      if (count === 0) {
        return {
          output: `Error: old_string was not found in ${file.relative}; read_file it and copy the exact text (whitespace included)`,
          isError: true,
        };
      }
      if (count > 1) {
        return {
          output: `Error: old_string occurs ${count} times in ${file.relative}; include more surrounding lines so it occurs once`,
          isError: true,
        };
      }
      const at = text.indexOf(input.old_string);
      const updated = text.slice(0, at) + input.new_string + text.slice(at + input.old_string.length);
      if (updated.length > maxChars) {
        return {
          output: `Error: the edited file would have ${updated.length.toLocaleString('en-US')} characters; the limit is ${maxChars.toLocaleString('en-US')}`,
          isError: true,
        };
      }
      await writeInside(workspace, file.relative, updated);
      const lines = (updated.endsWith('\n') ? updated.slice(0, -1) : updated).split('\n');
      const first = text.slice(0, at).split('\n').length - 1;
      const last = first + input.new_string.split('\n').length - 1;
      const from = Math.max(0, first - CONTEXT_LINES);
      const to = Math.min(lines.length - 1, last + CONTEXT_LINES);
      const width = String(to + 1).length;
      const snippet = lines
        .slice(from, to + 1)
        .map((line, i) => `${String(from + i + 1).padStart(width)}  ${line}`)
        .join('\n');
      const shown = boundText(snippet, SNIPPET_CHARS, 'read_file shows the whole file');
      return {
        output: `Edited ${file.relative}: replaced 1 occurrence (lines ${first + 1}-${last + 1} now read):\n${shown.text}`,
      };
    },
  };
}
