import { cacheTable, type EngineCache } from '../../messages/engine-cache.ts';
import type { ToolResultPart } from '../../messages/types.ts';
import { toolResultText } from '../../projection/chatfold-metadata.ts';

/**
 * Notices tools print when they cut their output. A read or listing whose output carries one
 * showed only part of the file or directory, so it cannot stand for the whole of it.
 */
export const TRUNCATION_NOTICES: readonly RegExp[] = [
  /\[\s*[\d,]+ (?:more )?(?:characters|chars|lines|bytes) truncated\s*\]/i, // Claude Code Bash
  /\[Output truncated/i,
  /\(\d+ more lines? (?:below|above)\)/, // SWE-agent's 100-line window
  /Results are truncated/i, // Claude Code Glob (100 files)
  /There are more than [\d,]+ files/i, // Claude Code LS
  /too large to display entirely|abbreviated version of the file/i, // SWE-agent editor, large files
  /<response clipped>/, // Anthropic text editor
  /\[… chatfold clipped [\d,]+ of/, // chatfold's own clip stage
];

/**
 * The notices above as one pattern per flag set, so an output is scanned twice instead of
 * eight times (a first compaction reads every output of the history). A test checks they
 * match exactly where the list does.
 */
const anyOf = (notices: readonly RegExp[], flags: string): RegExp =>
  new RegExp(notices.map((notice) => `(?:${notice.source})`).join('|'), flags);
const NOTICE_CASELESS = anyOf(
  TRUNCATION_NOTICES.filter((notice) => notice.flags.includes('i')),
  'i',
);
const NOTICE_CASED = anyOf(
  TRUNCATION_NOTICES.filter((notice) => !notice.flags.includes('i')),
  '',
);

/** Whether an output carries a truncation notice (any of {@link TRUNCATION_NOTICES}). */
export function hasTruncationNotice(text: string): boolean {
  return NOTICE_CASELESS.test(text) || NOTICE_CASED.test(text);
}
/** Claude Code's Read stops at line 2000 when no limit is given. */
const LINE_2000 = /\n\s*2000(?:→|\t)/;
const LINE_2001 = /\n\s*2001(?:→|\t)/;

/**
 * Outputs that point back at an earlier one instead of holding content: Claude Code's Read
 * answers a re-read of an unchanged file with "File unchanged since last read … refer to
 * that". Such a result must never supersede the output it refers to.
 */
const BACK_REFERENCES: readonly RegExp[] = [/^\s*File unchanged since last read/i];

/** Outputs that report a failure even where the tool did not flag `isError`. */
const FAILURES: readonly RegExp[] = [
  /^\s*<tool_use_error>/,
  /^\s*error\b/i,
  /^\s*(?:the )?(?:file|path|directory) .{0,300}?(?:not found|does not exist|no such file)/i,
  /^[^\n]{0,300}no such file or directory/i,
];

/** What a result's text says about itself, computed once per part. */
export interface OutputSignals {
  readonly text: string;
  readonly isTruncated: boolean;
  readonly isBackReference: boolean;
  /** Failure wording at the start (independent of the program that printed it). */
  readonly looksFailed: boolean;
  /** Already a chatfold stub (a projection compacted before). */
  readonly isStub: boolean;
  /** Lines of text (a trailing newline does not start one). */
  readonly lineCount: number;
}

const SIGNALS = cacheTable('supersede.output-signals', () => new WeakMap<ToolResultPart, OutputSignals>());

/** Prefix of every stub `supersede` writes; a result that starts with it holds no content. */
export const SUPERSEDED_PREFIX = '[superseded: ';

/**
 * The signals of a tool result's text, cached per part object in `cache` (pure: a part's text
 * never changes) so a long session is scanned once, not at every compaction.
 */
export function outputSignals(part: ToolResultPart, cache?: EngineCache): OutputSignals {
  const known = cache?.table(SIGNALS);
  let signals = known?.get(part);
  if (signals === undefined) {
    const text = toolResultText(part);
    signals = {
      text,
      isTruncated:
        hasTruncationNotice(text) ||
        // A plain search first: most outputs have no `2000` at all.
        (text.includes('2000') && LINE_2000.test(text) && !LINE_2001.test(text)),
      isBackReference: BACK_REFERENCES.some((pattern) => pattern.test(text)),
      looksFailed: FAILURES.some((pattern) => pattern.test(text)),
      isStub: text.startsWith(SUPERSEDED_PREFIX),
      lineCount: countLines(text),
    };
    known?.set(part, signals);
  }
  return signals;
}

function countLines(text: string): number {
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

/** Whether a shell program's own error message opens the output (`cat: a.py: No such file…`). */
export function startsWithProgramError(text: string, programs: readonly string[]): boolean {
  const start = text.trimStart();
  return programs.some((program) => start.startsWith(`${program}: `));
}
