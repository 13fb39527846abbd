/**
 * The atoms `trimToTokens` keeps or drops (MSG-3, STR-9): a single message, or an assistant
 * turn with the tool results that answer it. Results that answer no call of the turn before
 * them (orphans) never reach a unit, and neither do calls left without a result, except the
 * calls of the conversation's last turn (in flight). Units are built lazily from either end,
 * so trimming a long history to its newest messages never visits the older ones.
 */
import type { Message, Part } from '../messages/types.ts';

/** Messages that are kept or dropped together. */
export interface TrimUnit {
  /** Oldest first; the same objects as the input unless orphan parts had to be left out. */
  readonly messages: readonly Message[];
  /** One message without tool calls or results: `allowPartial` may keep part of it. */
  readonly isSplittable: boolean;
}

/** Produces the next unit, or undefined when there are no more. */
export type NextUnit = () => TrimUnit | undefined;

const hasCalls = (message: Message): boolean => message.parts.some((part) => part.type === 'tool-call');

const hasToolParts = (message: Message): boolean =>
  message.parts.some((part) => part.type === 'tool-call' || part.type === 'tool-result');

const single = (message: Message): TrimUnit => ({
  messages: [message],
  isSplittable: !hasToolParts(message),
});

/**
 * The unit of the assistant message at `owner` and the tool messages `owner + 1 … last`.
 * Undefined when nothing of it may be sent (a turn of unanswered calls only).
 */
function toolGroup(messages: readonly Message[], owner: number, last: number): TrimUnit | undefined {
  const assistant = messages[owner] as Message;
  const ids = new Set<string>();
  for (const part of assistant.parts) if (part.type === 'tool-call') ids.add(part.id);
  const results: Message[] = [];
  const answered = new Set<string>();
  for (let i = owner + 1; i <= last; i++) {
    const message = messages[i] as Message;
    const parts = message.parts.filter((part) => part.type === 'tool-result' && ids.has(part.callId));
    if (parts.length === 0) continue; // an orphan: its call is not in this turn
    for (const part of parts) if (part.type === 'tool-result') answered.add(part.callId);
    results.push(parts.length === message.parts.length ? message : { ...message, parts });
  }
  let head = assistant;
  const inFlight = last === messages.length - 1;
  if (!inFlight && answered.size < ids.size) {
    const parts = assistant.parts.filter((part: Part) => part.type !== 'tool-call' || answered.has(part.id));
    if (parts.length === 0) return undefined;
    head = { ...assistant, parts };
  }
  return results.length === 0 ? single(head) : { messages: [head, ...results], isSplittable: false };
}

/** Units newest first, over `messages[from …]`. */
export function unitsFromEnd(messages: readonly Message[], from: number): NextUnit {
  let index = messages.length - 1;
  return () => {
    while (index >= from) {
      const message = messages[index] as Message;
      if (message.role === 'tool') {
        const last = index;
        let owner = index;
        while (owner >= from && (messages[owner] as Message).role === 'tool') owner--;
        const candidate = owner >= from ? (messages[owner] as Message) : undefined;
        if (candidate?.role !== 'assistant' || !hasCalls(candidate)) {
          index = owner; // orphan results: nothing they answer comes before them
          continue;
        }
        index = owner - 1;
        const unit = toolGroup(messages, owner, last);
        if (unit !== undefined) return unit;
        continue;
      }
      index--;
      if (message.role !== 'assistant' || !hasCalls(message)) return single(message);
      const unit = toolGroup(messages, index + 1, index + 1);
      if (unit !== undefined) return unit;
    }
    return undefined;
  };
}

/** Units oldest first, over the whole list. */
export function unitsFromStart(messages: readonly Message[]): NextUnit {
  let index = 0;
  return () => {
    while (index < messages.length) {
      const start = index++;
      const message = messages[start] as Message;
      if (message.role === 'tool') continue; // orphan results: no assistant turn before them
      if (message.role !== 'assistant' || !hasCalls(message)) return single(message);
      while (index < messages.length && (messages[index] as Message).role === 'tool') index++;
      const unit = toolGroup(messages, start, index - 1);
      if (unit !== undefined) return unit;
    }
    return undefined;
  };
}
