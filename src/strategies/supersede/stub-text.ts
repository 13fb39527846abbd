import { formatCount } from '../../projection/chatfold-metadata.ts';
import { SUPERSEDED_PREFIX } from './output-signals.ts';
import type { Supersession } from './supersession.ts';

function sizeOf({ text, lineCount }: Supersession['event']): string {
  return lineCount > 1 ? `${formatCount(lineCount)} lines` : `${formatCount(text.length)} characters`;
}

/** What the newer result holds, in the rule's words. */
const HOLDS: Readonly<Record<string, string>> = {
  'file-content': 'newer content',
  'file-range': 'newer content',
  'directory-listing': 'a newer listing',
};

/**
 * The one-line text that replaces a superseded tool output (STR-1): what it was, how big, the
 * id it is kept under (issue 21: `chatfold_recall` returns it), and which later message holds
 * newer content —
 * `[superseded: Read of src/app.ts (412 lines, id msg_a1) — a later Write of src/app.ts (message 57, msg_abc) holds newer content]`.
 *
 * @param supersession - the stale result, the one that superseded it (its message index and
 *   id are named) and the rule
 */
export function stubText({ event, by, rule }: Supersession): string {
  const holds = HOLDS[rule] ?? 'newer output';
  return `${SUPERSEDED_PREFIX}${event.label} (${sizeOf(event)}, id ${event.messageId}) — a later ${by.label} (message ${by.message}, ${by.messageId}) holds ${holds}]`;
}
