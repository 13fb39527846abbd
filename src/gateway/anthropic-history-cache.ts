/**
 * Converting a Messages history once per turn, not once per request (issue 21): the Anthropic
 * counterpart of the Chat Completions history cache. A turn converts on its own (a tool result
 * names its call by id only), so the next request converts only the turns after the unchanged
 * prefix; the neutral messages of the prefix (a user turn may give a tool message and a user
 * message) are reused. A changed `system` converts the whole request. The result is what
 * `fromAnthropic` gives, ids aside (ids derived from content count repeats per conversion; the
 * gateway gives every stored message an id of its own), and any error is `fromAnthropic`'s own.
 */
import { LRUCache } from 'lru-cache';
import { fromAnthropic } from '../messages/anthropic.ts';
import type { AnthropicRequestInput } from '../messages/anthropic-schema.ts';
import { contentHash } from '../messages/content-hash.ts';
import type { Message } from '../messages/types.ts';
import { commonPrefixLength } from './conversation-key.ts';

interface Converted {
  readonly system: string;
  readonly hashes: readonly string[];
  /** `ends[i]`: neutral messages of the system prompt and the first `i + 1` turns. */
  readonly ends: readonly number[];
  readonly messages: readonly Message[];
}

/** Converts Messages histories, remembering each conversation's last one. */
export interface AnthropicHistoryCache {
  /**
   * The neutral messages of a request, as `fromAnthropic(request)` gives them (ids aside).
   *
   * @param scope Names the conversation.
   * @param request `system` and `messages` of the request.
   */
  convert(scope: string, request: AnthropicRequestInput): Message[];
}

/** Cumulative ends of each turn's messages, after `start` messages. */
function endsOf(start: number, turns: readonly Message[][]): number[] {
  const ends: number[] = [];
  let end = start;
  for (const turn of turns) {
    end += turn.length;
    ends.push(end);
  }
  return ends;
}

/** Neutral messages of each turn on its own (a turn's messages do not depend on other turns). */
const convertTurns = (turns: AnthropicRequestInput['messages']): Message[][] =>
  turns.map((turn) => fromAnthropic({ messages: [turn] }));

/**
 * Creates the cache.
 *
 * @param options `maxMessages`: neutral messages kept over all conversations (default 2,000,000).
 */
export function createAnthropicHistoryCache({
  maxMessages = 2_000_000,
}: {
  readonly maxMessages?: number;
} = {}): AnthropicHistoryCache {
  const cache = new LRUCache<string, Converted>({
    maxSize: maxMessages,
    sizeCalculation: (entry) => Math.max(1, entry.messages.length),
  });
  const remember = (scope: string, entry: Converted): void => {
    if (entry.messages.length <= maxMessages) cache.set(scope, entry);
  };
  const full = (
    scope: string,
    request: AnthropicRequestInput,
    system: string,
    hashes: readonly string[],
  ): Message[] => {
    let head: Message[];
    let perTurn: Message[][];
    try {
      head = request.system === undefined ? [] : fromAnthropic({ system: request.system, messages: [] });
      perTurn = convertTurns(request.messages);
    } catch {
      // The whole request converted at once names the right index in its error.
      return fromAnthropic(request);
    }
    const messages = head.concat(...perTurn);
    remember(scope, { system, hashes, ends: endsOf(head.length, perTurn), messages });
    return messages;
  };
  return {
    convert(scope, request) {
      const system = contentHash(JSON.stringify(request.system ?? null));
      const hashes = request.messages.map((turn) => contentHash(JSON.stringify(turn)));
      const known = cache.get(scope);
      const reuse =
        known === undefined || known.system !== system ? 0 : commonPrefixLength(known.hashes, hashes);
      if (known === undefined || reuse === 0) return full(scope, request, system, hashes);
      let added: Message[][];
      try {
        added = convertTurns(request.messages.slice(reuse));
      } catch {
        return fromAnthropic(request);
      }
      const keep = known.ends[reuse - 1] as number;
      const messages = known.messages.slice(0, keep).concat(...added);
      remember(scope, {
        system,
        hashes,
        ends: known.ends.slice(0, reuse).concat(endsOf(keep, added)),
        messages,
      });
      return messages;
    },
  };
}
