/**
 * Converting a Chat Completions history once per message, not once per request (issue 21):
 * clients resend the whole history each turn, and converting 100,000 messages to neutral form
 * takes seconds. The last request of each conversation is remembered (a hash of each wire
 * message and its neutral form); the next request converts only what follows the unchanged
 * prefix — from the assistant turn whose tool calls the new tool results answer, so tool names
 * resolve as in a full conversion. Anything unusual (legacy `function_call`s, a call far back,
 * an error) converts the whole history.
 */
import { LRUCache } from 'lru-cache';
import { contentHash } from '../messages/content-hash.ts';
import { fromOpenAI, type OpenAIMessage } from '../messages/openai.ts';
import type { Message } from '../messages/types.ts';
import { commonPrefixLength } from './conversation-key.ts';

/** Messages before the new ones searched for the calls new tool results answer. */
export const MAX_TOOL_CONTEXT = 256;

interface Converted {
  readonly hashes: readonly string[];
  readonly messages: readonly Message[];
}

type Json = Record<string, unknown>;

/** Converts histories, remembering each conversation's last one. */
export interface OpenAIHistoryCache {
  /**
   * The neutral messages of `wire`, as `fromOpenAI(wire)` gives them (ids aside: ids derived from
   * content count repeats per conversion, and the gateway gives every stored message its own).
   *
   * @param scope Names the conversation (its session header or head fingerprint, and route).
   * @param wire The request's `messages`.
   */
  convert(scope: string, wire: readonly OpenAIMessage[]): Message[];
}

const isLegacy = (message: Json): boolean => message.role === 'function' || message.function_call != null;

/** Where converting must start so the tool results after `from` find their calls; undefined: convert all. */
function contextStart(wire: readonly Json[], from: number): number | undefined {
  const wanted = new Set<string>();
  for (let index = from; index < wire.length; index++) {
    const message = wire[index] as Json;
    if (isLegacy(message)) return undefined;
    if (message.role === 'tool' && typeof message.tool_call_id === 'string') wanted.add(message.tool_call_id);
  }
  // Calls answered inside the new part are found there.
  for (let index = from; index < wire.length; index++) {
    for (const call of ((wire[index] as Json).tool_calls as Json[] | undefined) ?? [])
      wanted.delete(String(call.id));
  }
  let start = from;
  for (let index = from - 1; index >= 0 && wanted.size > 0; index--) {
    if (from - index > MAX_TOOL_CONTEXT) return undefined;
    const message = wire[index] as Json;
    if (isLegacy(message)) return undefined;
    const calls = (message.tool_calls as Json[] | undefined) ?? [];
    if (calls.some((call) => wanted.has(String(call.id)))) {
      for (const call of calls) wanted.delete(String(call.id));
      start = index;
    }
  }
  return wanted.size > 0 ? undefined : start;
}

/**
 * Creates the cache.
 *
 * @param options `maxMessages`: neutral messages kept over all conversations (default 2,000,000).
 */
export function createOpenAIHistoryCache({
  maxMessages = 2_000_000,
}: {
  readonly maxMessages?: number;
} = {}): OpenAIHistoryCache {
  const cache = new LRUCache<string, Converted>({
    maxSize: maxMessages,
    sizeCalculation: (entry) => Math.max(1, entry.messages.length),
  });
  const full = (scope: string, wire: readonly OpenAIMessage[], hashes: readonly string[]): Message[] => {
    const messages = fromOpenAI(wire);
    if (messages.length === wire.length && messages.length <= maxMessages)
      cache.set(scope, { hashes, messages });
    return messages;
  };
  return {
    convert(scope, wire) {
      const hashes = wire.map((message) => contentHash(JSON.stringify(message)));
      const known = cache.get(scope);
      const reuse = known === undefined ? 0 : commonPrefixLength(known.hashes, hashes);
      if (known === undefined || reuse === 0) return full(scope, wire, hashes);
      const start = contextStart(wire as unknown as Json[], reuse);
      if (start === undefined) return full(scope, wire, hashes);
      let converted: Message[];
      try {
        converted = fromOpenAI(wire.slice(start));
      } catch {
        // The error's path must name the request's own index: the whole history says it.
        return full(scope, wire, hashes);
      }
      if (converted.length !== wire.length - start) return full(scope, wire, hashes);
      const messages = known.messages.slice(0, start).concat(converted);
      cache.set(scope, { hashes, messages });
      return messages;
    },
  };
}
