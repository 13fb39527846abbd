/**
 * Puts logged tool results where the message model (MSG-1, MSG-3) wants them: right after the
 * assistant message that made the call. Agent logs write results in the order tools finish,
 * sometimes between the records of the very response that made the calls; importers merge
 * those records first and then call this.
 */
import type { MessageInput, Part, ToolCallPart, ToolResultPart } from './types.ts';

/** Text of the result chatfold writes for a call that never got one (see {@link pairToolResults}). */
export const INTERRUPTED_TOOL_RESULT =
  '[no result recorded: the tool call was interrupted before it returned]';

/** What {@link pairToolResults} changed. */
export interface ToolResultPairing {
  readonly messages: MessageInput[];
  /** Calls answered with a synthetic error result (`metadata.chatfold.synthetic`). */
  readonly synthetic: number;
  /** Results dropped because no earlier message makes their call. */
  readonly orphans: number;
  /** Results dropped because their call already had one. */
  readonly duplicates: number;
}

const toolResultMessage = (template: MessageInput, id: string | undefined, parts: Part[]): MessageInput => {
  const { id: _id, ...rest } = template;
  return { ...rest, ...(id === undefined ? {} : { id }), role: 'tool', parts };
};

/**
 * Moves every tool result right after the assistant message that made its call (results of one
 * message keep their logged order), fills in the result's `toolName` from the call, and answers
 * each call that never got a result with a synthetic error result — except the calls of a
 * trailing assistant message, which may still be in flight and stay unanswered. Results whose
 * call no earlier message makes, and second results for one call, are dropped and counted.
 *
 * @param messages Messages in logged order; assistant messages already hold all their calls.
 * @returns The reordered messages and counts of what was synthesized or dropped.
 */
export function pairToolResults(messages: readonly MessageInput[]): ToolResultPairing {
  // Pass 1: which assistant message (by position) made each call, and which results belong to it.
  const owner = new Map<string, { at: number; call: ToolCallPart }>();
  const resultsOf = new Map<number, MessageInput[]>();
  // `${message index}\u0000${call id}` of every answered call (ids may repeat across turns).
  const answered = new Set<string>();
  const key = (at: number, callId: string): string => `${at}\u0000${callId}`;
  let orphans = 0;
  let duplicates = 0;
  let lastTurn = -1; // the last assistant message, when nothing but tool messages follow it
  messages.forEach((message, index) => {
    if (message.role === 'assistant') {
      for (const part of message.parts)
        if (part.type === 'tool-call') owner.set(part.id, { at: index, call: part });
      lastTurn = index;
      return;
    }
    if (message.role !== 'tool') {
      lastTurn = -1;
      return;
    }
    const kept: { at: number; part: Part }[] = [];
    for (const part of message.parts) {
      if (part.type !== 'tool-result') continue;
      const made = owner.get(part.callId);
      if (made === undefined) orphans++;
      else if (answered.has(key(made.at, part.callId))) duplicates++;
      else {
        answered.add(key(made.at, part.callId));
        const named: ToolResultPart =
          part.toolName === undefined ? { ...part, toolName: made.call.name } : part;
        kept.push({ at: made.at, part: named });
      }
    }
    const first = kept[0];
    if (first === undefined) return;
    const whole = kept.length === message.parts.length && kept.every((entry) => entry.at === first.at);
    // Normally one message answers calls of one response and stays whole; otherwise split it.
    const pieces = whole
      ? [
          {
            at: first.at,
            message: toolResultMessage(
              message,
              message.id,
              kept.map((entry) => entry.part),
            ),
          },
        ]
      : kept.map((entry) => ({
          at: entry.at,
          message: toolResultMessage(
            message,
            message.id === undefined ? undefined : `${message.id}:${(entry.part as ToolResultPart).callId}`,
            [entry.part],
          ),
        }));
    for (const piece of pieces) {
      const list = resultsOf.get(piece.at);
      if (list === undefined) resultsOf.set(piece.at, [piece.message]);
      else list.push(piece.message);
    }
  });

  // Pass 2: emit in order, each assistant message followed by its results.
  const out: MessageInput[] = [];
  let synthetic = 0;
  messages.forEach((message, index) => {
    if (message.role === 'tool') return;
    out.push(message);
    if (message.role !== 'assistant') return;
    const results = resultsOf.get(index);
    if (results !== undefined) out.push(...results);
    if (index === lastTurn) return; // possibly in flight
    for (const part of message.parts) {
      if (part.type !== 'tool-call' || answered.has(key(index, part.id))) continue;
      synthetic++;
      out.push({
        ...(message.id === undefined ? {} : { id: `${message.id}:${part.id}:interrupted` }),
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: part.id,
            toolName: part.name,
            content: [{ type: 'text', text: INTERRUPTED_TOOL_RESULT }],
            isError: true,
          },
        ],
        ...(message.createdAt === undefined ? {} : { createdAt: message.createdAt }),
        metadata: { chatfold: { synthetic: true } },
      });
    }
  });
  return { messages: out, synthetic, orphans, duplicates };
}
