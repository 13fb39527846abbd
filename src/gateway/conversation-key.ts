/**
 * How the gateway recognises a conversation it has seen (issue 21): clients resend their whole
 * history on every call, so each message gets a content key, and a conversation with no
 * `x-chatfold-session` header is named by a fingerprint of its stable head. Pure.
 */
import { contentHash } from '../messages/content-hash.ts';
import type { Message, Part } from '../messages/types.ts';

/** A part as the key sees it: provider markers left out (a reply echoed back by a client carries other ones). */
function keyedPart(part: Part): unknown {
  const { providerMetadata: _markers, ...rest } = part;
  if (rest.type !== 'tool-result') return rest;
  return { ...rest, content: rest.content.map((inner) => keyedPart(inner)) };
}

/**
 * The content key of one message: role, name and parts, without ids, timestamps, provider
 * markers, empty text or reasoning (OpenAI-compatible servers return `reasoning_content` that
 * most clients do not send back). Two messages with the same key are the same turn.
 *
 * @param message A neutral message.
 * @returns 16 hex characters.
 */
export function messageKey(message: Message): string {
  const parts = message.parts
    .filter((part) => part.type !== 'reasoning' && !(part.type === 'text' && part.text === ''))
    .map((part) => keyedPart(part));
  return contentHash(JSON.stringify([message.role, message.name ?? '', parts]));
}

/**
 * The session id of a conversation without an explicit one: a hash of its stable head — every
 * system message before the first user message, and that user message. A conversation's later
 * turns never change it; a different system prompt or opening question is another conversation.
 *
 * @param messages The request's messages (neutral), in order.
 * @param scope Keeps routes apart: the same opening on two routes is two conversations.
 * @returns `gw-` and 16 hex characters.
 */
export function conversationFingerprint(messages: readonly Message[], scope = ''): string {
  const head: string[] = [scope];
  for (const message of messages) {
    head.push(messageKey(message));
    if (message.role === 'user') break;
  }
  return `gw-${contentHash(head.join('\n'))}`;
}

/** How many leading keys two lists share. */
export function commonPrefixLength(left: readonly string[], right: readonly string[]): number {
  const length = Math.min(left.length, right.length);
  let index = 0;
  while (index < length && left[index] === right[index]) index++;
  return index;
}
