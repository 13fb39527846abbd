import { ChatfoldError } from '../errors/chatfold-error.ts';
import { assertMessages } from '../messages/check-messages.ts';
import type { Message, ToolDefinition } from '../messages/types.ts';
import type { TokenCount, TokenCounter } from './types.ts';

/**
 * Where an extended count's per-message numbers live: the counts of the list it started from
 * (read on demand) and the appended counts in one array shared by a chain of extensions. A
 * count whose `length` is the array's length is its tip and extends it in place; extending an
 * older count of the chain copies (a branch), so no count ever sees another's numbers.
 */
interface Chain {
  readonly base: TokenCount;
  readonly appended: number[];
  readonly length: number;
  /** Sum of the base's message counts (total minus overhead and tools). */
  readonly baseSum: number;
  readonly appendedSum: number;
}

/**
 * The chain of a count this function made: a non-enumerable property of that object (a copy
 * does not carry it and starts a new chain), not a module table.
 */
const CHAIN = Symbol('chatfold.count-chain');

/** Options of {@link extendTokenCount}. */
export interface ExtendTokenCountOptions {
  /** The tool definitions of the extended prompt; default: the same tools `previous` counted. */
  readonly tools?: readonly ToolDefinition[];
}

/**
 * The count of a prompt that is `previous`'s messages followed by `appended`, in time
 * proportional to `appended` alone (TOK-6, SPEC §5 "recount after appending one message"): an
 * agent loop keeps its last count and extends it each turn instead of recounting a history
 * that only grew. Works with any {@link TokenCounter} (it adds `countMessage` of each new
 * message); `perMessage` is built only when read.
 *
 * Trust: `previous` must be a count of the messages the new prompt starts with, unchanged —
 * the same promise `count()`'s prefix memo checks by identity, which costs a pointer
 * comparison per message. When earlier messages changed (a compaction), count the new list.
 *
 * @param counter - The counter that made `previous` (its per-message counts are added).
 * @param previous - A count returned by `counter.count()` or by this function.
 * @param appended - The messages after those `previous` counted, oldest first.
 * @throws ChatfoldError `E_INVALID_MESSAGE(S)` for a malformed appended message,
 *   `E_INVALID_OPTIONS` when `previous` is not a token count, `E_TOKENIZER` when it was
 *   counted with another tokenizer.
 *
 * @example
 * let count = counter.count(history);
 * history.push(reply);
 * count = extendTokenCount(counter, count, [reply]); // O(1 message), not O(history)
 */
export function extendTokenCount(
  counter: TokenCounter,
  previous: TokenCount,
  appended: readonly Message[],
  options: ExtendTokenCountOptions = {},
): TokenCount {
  checkPrevious(counter, previous);
  const checked = assertMessages(appended, 'extendTokenCount');
  let chain = (previous as { [CHAIN]?: Chain })[CHAIN];
  if (chain === undefined) {
    chain = {
      base: previous,
      appended: [],
      length: 0,
      baseSum: previous.total - previous.overhead - previous.tools,
      appendedSum: 0,
    };
  }
  // The tip of its chain grows the shared array; an older count branches with a copy.
  const counts =
    chain.appended.length === chain.length ? chain.appended : chain.appended.slice(0, chain.length);
  let appendedSum = chain.appendedSum;
  for (const message of checked) {
    const tokens = counter.countMessage(message);
    counts.push(tokens);
    appendedSum += tokens;
  }
  const tools = options.tools === undefined ? previous.tools : counter.count([], options).tools;
  const next: Chain = { ...chain, appended: counts, length: counts.length, appendedSum };
  const { base, length } = next;
  let perMessage: readonly number[] | undefined;
  const count: TokenCount = {
    total: previous.overhead + tools + next.baseSum + appendedSum,
    // Made on first read, like count()'s (an enumerable getter: spread and JSON see an array).
    get perMessage() {
      perMessage ??= [...base.perMessage, ...counts.slice(0, length)];
      return perMessage;
    },
    tools,
    overhead: previous.overhead,
    tokenizer: previous.tokenizer,
    accuracy: previous.accuracy,
  };
  Object.defineProperty(count, CHAIN, { value: next });
  return count;
}

function checkPrevious(counter: TokenCounter, previous: TokenCount): void {
  const valid =
    typeof previous === 'object' &&
    previous !== null &&
    [previous.total, previous.overhead, previous.tools].every((n) => Number.isFinite(n) && n >= 0) &&
    previous.total >= previous.overhead + previous.tools;
  if (!valid) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      'extendTokenCount: previous must be a TokenCount returned by counter.count() or extendTokenCount()',
      { option: 'previous', where: 'extendTokenCount' },
    );
  }
  if (previous.tokenizer !== counter.tokenizer) {
    throw new ChatfoldError(
      'E_TOKENIZER',
      `extendTokenCount: previous was counted with ${previous.tokenizer}, the counter is ${counter.tokenizer}; counts of different tokenizers cannot be added`,
      { tokenizer: counter.tokenizer },
    );
  }
}
