import type { FakeScript } from '../../src/fake-provider/index.ts';

// Shared by the runtime tests (test/agent) and the terminal tests (test/chat).

/** ~1,300 tokens: a file the agent reads and edits (line N+1 ends in "teh lazy dog N"). */
export const NOTES = `${Array.from({ length: 80 }, (_, i) => `line ${i + 1}: the quick brown fox jumps over teh lazy dog ${i}`).join('\n')}\n`;

/**
 * A scripted tool loop for a prompt containing "fix the typos": six reads of notes.md with an
 * edit between each two (lines 2 to 6), then "Fixed five typos." Every read makes the earlier
 * ones stale (STR-1).
 */
export const EDIT_LOOP_RULE: FakeScript['rules'][number] = {
  match: { lastUserIncludes: 'fix the typos', isSummary: false },
  steps: [
    ...[1, 2, 3, 4, 5].flatMap((line) => [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] },
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: {
              path: 'notes.md',
              old_string: `teh lazy dog ${line}\n`,
              new_string: `the lazy dog ${line}\n`,
            },
          },
        ],
      },
    ]),
    { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] },
    { text: 'Fixed five typos.' },
  ],
};
