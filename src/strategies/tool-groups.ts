import type { Message } from '../messages/types.ts';

/**
 * A span of messages that compaction keeps or removes as a whole: a single message, or an
 * assistant message with tool calls plus the tool messages that answer them (parallel calls
 * included). Splitting such a group is what breaks providers' tool pairing rules (MSG-3).
 */
export interface MessageUnit {
  /** Index of the first message. */
  readonly start: number;
  /** Index after the last message. */
  readonly end: number;
}

/** Splits a conversation into atomic units in one O(n) pass. */
export function groupUnits(messages: readonly Message[]): MessageUnit[] {
  const units: MessageUnit[] = [];
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as Message;
    const start = index;
    index++;
    if (message.role === 'assistant' && message.parts.some((part) => part.type === 'tool-call')) {
      // A set only for messages that call tools (most assistant messages do not).
      const pending = new Set<string>();
      for (const part of message.parts) if (part.type === 'tool-call') pending.add(part.id);
      while (pending.size > 0 && index < messages.length) {
        const next = messages[index] as Message;
        if (next.role !== 'tool') break;
        const answers = next.parts.some((part) => part.type === 'tool-result' && pending.has(part.callId));
        if (!answers) break;
        for (const part of next.parts) if (part.type === 'tool-result') pending.delete(part.callId);
        index++;
      }
    }
    units.push({ start, end: index });
  }
  return units;
}
