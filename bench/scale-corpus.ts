/**
 * Sessions of any length for bench/scale.ts, built from the recorded agent sessions in
 * `test/fixtures/` (never `../shared`): the goal first, then the recorded sessions' messages
 * repeated as whole tool rounds. Every copy has fresh ids (messages and tool calls) and a
 * per-copy marker in each text, so no content cache can answer a repeat: a message of copy 7
 * never has the same content as its original.
 */
import type { Message, Part } from '../src/messages/types.ts';
import { recordedConversations } from './corpus.ts';

/** The marker appended to every text of copy `copy` (copy 0 is the recording, unmarked). */
export const copyMarker = (copy: number): string => (copy === 0 ? '' : ` [copy ${copy}]`);

function markPart(part: Part, copy: number): Part {
  if (copy === 0) return part;
  const marker = copyMarker(copy);
  const suffix = `~${copy}`;
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { ...part, text: part.text + marker };
    case 'tool-call':
      // Arguments stay valid JSON (other libraries parse them): the marker goes in as a key.
      return {
        ...part,
        id: part.id + suffix,
        arguments:
          part.arguments.startsWith('{') && part.arguments.length > 2
            ? `{"copy":${copy},${part.arguments.slice(1)}`
            : part.arguments,
      };
    case 'tool-result':
      return {
        ...part,
        callId: part.callId + suffix,
        content: part.content.map((inner) =>
          inner.type === 'text' ? { ...inner, text: inner.text + marker } : inner,
        ),
      };
    case 'attachment':
      return part;
  }
}

interface Template {
  readonly goal: Message;
  /** The repeated messages: whole tool rounds, ending with no call left open. */
  readonly body: readonly Message[];
  /** `closed[i]`: no tool call is waiting for its result after `body[i]`. */
  readonly closed: readonly boolean[];
}

let cached: Template | undefined;

/** The recorded sessions with more than 100 messages (the Claude Code agent sessions), goal first. */
function template(): Template {
  if (cached !== undefined) return cached;
  const conversations = recordedConversations()
    .filter((messages) => messages.length > 100)
    .sort((a, b) => b.length - a.length);
  const goal = conversations[0]?.[0];
  if (goal === undefined) throw new Error('no recorded session in test/fixtures');
  const body: Message[] = [];
  for (const messages of conversations) {
    const start = messages[0]?.role === 'system' ? 2 : 1;
    body.push(...closedPrefix(messages.slice(start)));
  }
  const closed: boolean[] = [];
  const open = new Set<string>();
  for (const message of body) {
    for (const part of message.parts) {
      if (part.type === 'tool-call') open.add(part.id);
      if (part.type === 'tool-result') open.delete(part.callId);
    }
    closed.push(open.size === 0);
  }
  cached = { goal, body, closed };
  return cached;
}

/** The longest prefix after which no tool call waits for its result. */
function closedPrefix(messages: readonly Message[]): Message[] {
  const open = new Set<string>();
  let end = 0;
  messages.forEach((message, index) => {
    for (const part of message.parts) {
      if (part.type === 'tool-call') open.add(part.id);
      if (part.type === 'tool-result') open.delete(part.callId);
    }
    if (open.size === 0) end = index + 1;
  });
  return messages.slice(0, end);
}

/** Messages a session of about `count` has: at most `count`, never ending inside a tool round. */
export function scaleLength(count: number): number {
  const { body, closed } = template();
  for (let length = Math.max(1, count); length > 1; length--) {
    if (closed[(length - 2) % body.length]) return length;
  }
  return 1;
}

/**
 * The messages of a session of about `count` messages, one at a time (a million of them do
 * not have to be in memory at once to fill a store). Message `i` is always the same content.
 *
 * @param count - Messages wanted; the session stops at the last whole tool round within it.
 * @param from - First index to yield (resume a stream).
 */
export function* scaleMessages(count: number, from = 0): Generator<Message> {
  const { goal, body } = template();
  const length = scaleLength(count);
  for (let index = from; index < length; index++) {
    if (index === 0) {
      yield JSON.parse(JSON.stringify(goal)) as Message;
      continue;
    }
    const copy = Math.floor((index - 1) / body.length);
    const message = body[(index - 1) % body.length] as Message;
    const marked = {
      ...message,
      id: `${message.id}~${copy}`,
      parts: message.parts.map((part) => markPart(part, copy)),
    };
    // Through JSON, as messages arrive from a store or an HTTP body: flat strings, nothing
    // shared with the template (a concatenated string stays a rope until something flattens it).
    yield JSON.parse(JSON.stringify(marked)) as Message;
  }
}

/** A whole session of about `count` messages as one array (new objects on every call). */
export function scaleSession(count: number): Message[] {
  return [...scaleMessages(count)];
}

/** JSON bytes of the messages (what memory is compared with). */
export function messageBytes(messages: Iterable<Message>): number {
  let bytes = 0;
  for (const message of messages) bytes += Buffer.byteLength(JSON.stringify(message));
  return bytes;
}

/** Every text the raw tokenizer encodes for these messages: the same pieces chatfold counts. */
export function messageTexts(messages: readonly Message[]): string[] {
  const texts: string[] = [];
  for (const message of messages) {
    texts.push(message.role);
    for (const part of message.parts) {
      if (part.type === 'text' || part.type === 'reasoning') texts.push(part.text);
      else if (part.type === 'tool-call') texts.push(part.name, part.arguments);
      else if (part.type === 'tool-result')
        for (const inner of part.content) if (inner.type === 'text') texts.push(inner.text);
    }
  }
  return texts;
}
