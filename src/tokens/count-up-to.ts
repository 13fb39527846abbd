import { cacheTable, type EngineCache } from '../messages/engine-cache.ts';
import type { Message } from '../messages/types.ts';
import { attachmentText } from './message-key.ts';
import type { CountOptions, TokenCounter } from './types.ts';

/** A prompt's tokens as far as a decision needs them. */
export interface BoundedCount {
  /**
   * Tokens of the prompt: the counter's own total when `exact`; otherwise the newest messages
   * counted exactly (already more than the limit) plus an estimate of the older rest.
   */
  readonly total: number;
  /** False when the older messages were estimated; `total` is then certainly above the limit. */
  readonly exact: boolean;
}

/**
 * Where chatfold's byte-pair counters keep a cheap upper bound of `countMessage` (a token is at
 * least one UTF-8 byte): read it with {@link tokensAtMost}. Not part of `TokenCounter`: a
 * counter without it is simply counted.
 */
export const TOKENS_AT_MOST: unique symbol = Symbol('chatfold.tokensAtMost');

/** A counter that may carry {@link TOKENS_AT_MOST}. */
type MaybeBounded = TokenCounter & { readonly [TOKENS_AT_MOST]?: (message: Message) => number };

/**
 * At least `counter.countMessage(message)`, from the message's lengths alone when the counter
 * can say (chatfold's byte-pair counters); otherwise infinity. Lets a stage skip counting a
 * message that certainly fits a limit (issue 19 §3) without changing what it decides.
 */
export function tokensAtMost(counter: TokenCounter, message: Message): number {
  return (counter as MaybeBounded)[TOKENS_AT_MOST]?.(message) ?? Number.POSITIVE_INFINITY;
}

/** The bound of a counter that scales another's counts (monotonically), if the other has one. */
export function scaledBound(
  base: TokenCounter,
  scale: (tokens: number) => number,
): { readonly [TOKENS_AT_MOST]?: (message: Message) => number } {
  const bound = (base as MaybeBounded)[TOKENS_AT_MOST];
  return bound === undefined ? {} : { [TOKENS_AT_MOST]: (message: Message) => scale(bound(message)) };
}

/** Characters a message adds besides its text (role, separators), for the estimate. */
const CHARS_PER_MESSAGE = 16;

/**
 * Counts a prompt only as far as a decision needs (issue 19 §3): the messages newest first,
 * exactly, until their tokens pass `limit`; the older rest is then estimated from its
 * characters at the rate of what was counted. Any comparison with a threshold at or below
 * `limit` gives the answer the exact total would: below the limit the total *is* the
 * counter's (`counter.count`, every message counted), above it the exactly counted part alone
 * already exceeds the threshold. What is sent after a compaction is always counted exactly —
 * it is the newest messages, within the limit.
 *
 * A cold compaction of a long history is mostly counting messages it then summarizes or drops;
 * this counts the newest few hundred and reads only the lengths of the rest — when the rest is
 * the larger part (a smaller one is counted: it costs less than was already spent). Counters
 * that cost no more than reading lengths (`approximate` ones, e.g. characters / 4) count
 * everything.
 *
 * @param counter - The prompt's counter (`count` = overhead + Σ `countMessage`, as the
 *   `TokenCounter` contract says).
 * @param messages - The prompt's messages, oldest first (already checked by the caller).
 * @param limit - The largest threshold the caller compares with.
 * @param options - Tools and tool choice, as for `counter.count`.
 */
export function countUpTo(
  counter: TokenCounter,
  messages: readonly Message[],
  limit: number,
  options?: CountOptions,
): BoundedCount {
  const split = splitAtLimit(counter, messages, limit, options);
  if (split === undefined) return { total: counter.count(messages, options).total, exact: true };
  return { total: split.counted + split.rest, exact: false };
}

/** Where {@link countUpTo} stops counting exactly. */
export interface LimitSplit {
  /** `messages[0, uncounted)` are older than what was counted. */
  readonly uncounted: number;
  /** Tokens of the overhead and of `messages[uncounted, length)`: more than the limit. */
  readonly counted: number;
  /** Tokens per character (as {@link charactersOf} measures) of what was counted. */
  readonly rate: number;
  /** The estimate of `messages[0, uncounted)`: more than `counted`. */
  readonly rest: number;
}

/**
 * Counts newest first until the tokens pass `limit`, and leaves the older rest uncounted when
 * it is larger than what was counted: undefined when the tokens never pass the limit, when the
 * rest is smaller (counting it costs less than was already spent: the prompt is counted
 * exactly), or when the counter is `approximate` or the limit infinite.
 */
export function splitAtLimit(
  counter: TokenCounter,
  messages: readonly Message[],
  limit: number,
  options?: CountOptions,
): LimitSplit | undefined {
  if (counter.accuracy === 'approximate' || !Number.isFinite(limit)) return undefined;
  const overhead = counter.count([], options).total;
  let counted = overhead;
  let index = messages.length - 1;
  for (; index >= 0 && counted <= limit; index--) counted += counter.countMessage(messages[index] as Message);
  if (index < 0) return undefined;
  const characters = charactersIn(counter.cache);
  let countedChars = 0;
  for (let i = index + 1; i < messages.length; i++) countedChars += characters(messages[i] as Message);
  let restChars = 0;
  for (let i = 0; i <= index; i++) restChars += characters(messages[i] as Message);
  const rate = countedChars === 0 ? DEFAULT_RATE : (counted - overhead) / countedChars;
  const rest = Math.ceil(restChars * rate);
  if (rest <= counted) return undefined;
  return { uncounted: index + 1, counted, rate, rest };
}

/**
 * Estimates of the messages a {@link splitAtLimit} left uncounted, by object: for a stage that
 * only needs a size (how much to clip of a message the compaction then summarizes); undefined
 * for every other message, which is counted.
 */
export function estimatesOf(
  messages: readonly Message[],
  split: LimitSplit,
  cache?: EngineCache,
): (message: Message) => number | undefined {
  const uncounted = new Set(messages.slice(0, split.uncounted));
  const characters = charactersIn(cache);
  return (message) => (uncounted.has(message) ? Math.ceil(characters(message) * split.rate) : undefined);
}

/** {@link charactersOf} remembered per message object in `cache` (a warm history is read once). */
const CHARACTERS = cacheTable('count.characters', () => new WeakMap<Message, number>());

function charactersIn(cache: EngineCache | undefined): (message: Message) => number {
  if (cache === undefined) return charactersOf;
  const table = cache.table(CHARACTERS);
  return (message) => {
    let chars = table.get(message);
    if (chars === undefined) {
      chars = charactersOf(message);
      table.set(message, chars);
    }
    return chars;
  };
}

/** Tokens per character assumed when nothing was counted to learn the rate from. */
const DEFAULT_RATE = 0.25;

/** What a message's count grows with: the characters of its text, calls and results. */
export function charactersOf(message: Message): number {
  let chars = CHARS_PER_MESSAGE + (message.name?.length ?? 0);
  for (const part of message.parts) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        chars += part.text.length;
        break;
      case 'tool-call':
        chars += part.name.length + part.arguments.length;
        break;
      case 'tool-result':
        for (const inner of part.content)
          chars += inner.type === 'text' ? inner.text.length : attachmentText(inner).length;
        break;
      case 'attachment':
        chars += attachmentText(part).length;
        break;
    }
  }
  return chars;
}
