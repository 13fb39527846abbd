/**
 * Repairs a history whose tool rounds are interleaved (issue 24 §5): two turns of one session
 * that ran at the same time (two servers before turns were leased, a store written by another
 * tool) can leave `user A, call a1, user B, call b1, result a1, result b1` in the log. Sent as
 * it is, every provider refuses it ("tool result is missing for tool call …"). This is the last
 * line before a projection is sent: pure, O(n), it changes nothing in the store, and a history
 * that is already well formed comes back as the same array.
 *
 * - Each tool result moves right after the assistant message that made its call, with only tool
 *   messages between (results of one message keep their order); a tool message answering calls
 *   of two messages is split.
 * - A result whose call no earlier message makes, or a second result for one call, is left out.
 * - A call without a result is held back — left out of this projection — unless it belongs to
 *   the last message, or the last assistant message with only tool messages after it (a round
 *   still in flight, which its own turn completes); an assistant message left with nothing is
 *   left out. Nothing is invented: when the result is stored
 *   later, the next projection shows the round whole.
 */
import type { Message, Part, ToolResultPart } from './types.ts';

/** What {@link repairToolRounds} did. */
export interface ToolRoundRepair {
  /** The repaired messages; the input array itself when nothing needed repair. */
  readonly messages: readonly Message[];
  /** Tool results moved up to their call. */
  readonly moved: number;
  /** Calls held back because no result follows them (another turn's unfinished round). */
  readonly heldBack: number;
  /** Results left out: no earlier call, or a second result for one call. */
  readonly dropped: number;
}

const VISIBLE = /\S/;

/** Whether an assistant message still says something once its unanswered calls are held back. */
function hasContent(parts: readonly Part[]): boolean {
  return parts.some(
    (part) =>
      part.type === 'tool-call' ||
      part.type === 'attachment' ||
      ((part.type === 'text' || part.type === 'reasoning') &&
        (VISIBLE.test(part.text) ||
          (part.type === 'reasoning' && (part.signature !== undefined || part.redactedData !== undefined)))),
  );
}

/**
 * Puts every tool round of `messages` back together for sending (see the module comment).
 *
 * @param messages A projection, oldest first (checked messages).
 * @returns The repaired messages and counts of what was moved, held back and left out.
 *
 * @example
 * const { messages: sendable, heldBack } = repairToolRounds(prompt);
 * if (heldBack > 0) log.warn('an unfinished tool round of another turn was held back');
 */
export function repairToolRounds(messages: readonly Message[]): ToolRoundRepair {
  // Pass 1: the assistant message (by index) that made each call, the results of each, and
  // whether each result sits in its call's turn (after it, before any user or system message).
  const owner = new Map<string, number>();
  const resultsOf = new Map<number, { part: ToolResultPart; from: number }[]>();
  const answered = new Set<string>();
  const key = (at: number, callId: string): string => `${at}\u0000${callId}`;
  let dropped = 0;
  let moved = 0;
  let lastAssistant = -1; // the assistant message tool messages here follow; -1 after a user or system message
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role === 'assistant') {
      lastAssistant = index;
      for (const part of message.parts) if (part.type === 'tool-call') owner.set(part.id, index);
      continue;
    }
    if (message.role !== 'tool') {
      lastAssistant = -1;
      continue;
    }
    for (const part of message.parts) {
      if (part.type !== 'tool-result') continue;
      const at = owner.get(part.callId);
      if (at === undefined || answered.has(key(at, part.callId))) {
        dropped++;
        continue;
      }
      answered.add(key(at, part.callId));
      // In place only right after its call's message (every provider accepts that; OpenAI only that).
      if (at !== lastAssistant) moved++;
      const list = resultsOf.get(at);
      if (list === undefined) resultsOf.set(at, [{ part, from: index }]);
      else list.push({ part, from: index });
    }
  }
  // The last assistant message, when only tool messages follow it, may have calls in flight.
  const lastTurn = lastAssistant;
  let heldBack = 0;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role !== 'assistant' || index === lastTurn) continue;
    for (const part of message.parts)
      if (part.type === 'tool-call' && !answered.has(key(index, part.id))) heldBack++;
  }
  if (dropped === 0 && moved === 0 && heldBack === 0) return { messages, moved, heldBack, dropped };

  // Pass 2: emit in order, each assistant message followed by its results.
  const out: Message[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role === 'tool') continue;
    if (message.role !== 'assistant') {
      out.push(message);
      continue;
    }
    let kept: Message = message;
    if (index !== lastTurn) {
      const parts = message.parts.filter(
        (part) => part.type !== 'tool-call' || answered.has(key(index, part.id)),
      );
      if (parts.length !== message.parts.length) {
        if (!hasContent(parts)) continue;
        kept = { ...message, parts };
      }
    }
    out.push(kept);
    const results = resultsOf.get(index);
    if (results !== undefined) emitResults(messages, results, out);
  }
  return { messages: out, moved, heldBack, dropped };
}

/**
 * Appends the results of one assistant message, grouped by the tool message they came in: a
 * tool message that answers only these calls is kept whole (the same object), a part of one
 * becomes a message of its own with a derived id.
 */
function emitResults(
  messages: readonly Message[],
  results: readonly { part: ToolResultPart; from: number }[],
  out: Message[],
): void {
  let group: { from: number; parts: ToolResultPart[] } | undefined;
  const flush = (): void => {
    if (group === undefined) return;
    const source = messages[group.from] as Message;
    const { parts } = group;
    const whole = parts.length === source.parts.length && parts.every((part, i) => part === source.parts[i]);
    out.push(
      whole ? source : { ...source, id: `${source.id}:${(parts[0] as ToolResultPart).callId}`, parts },
    );
    group = undefined;
  };
  for (const { part, from } of results) {
    if (group !== undefined && group.from !== from) flush();
    group ??= { from, parts: [] };
    group.parts.push(part);
  }
  flush();
}
