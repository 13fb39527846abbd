import type { Message } from '../messages/types.ts';

/** Lists shorter than this are counted message by message (the memo would not pay for its copy). */
const MEMO_MIN_MESSAGES = 64;

/** Per-message counts of a list and their sum. */
export interface ListCount {
  /**
   * The per-message counts as a new array, the caller's to keep. Made on demand: copying a
   * million counts costs more than the whole recount (most callers only want the sum).
   */
  perMessage(): number[];
  readonly sum: number;
}

/**
 * Counts lists of messages, remembering the last list counted (TOK-6): a list that starts
 * with the same message objects — the history plus one new message, as a caller recounts
 * after each turn — reuses their counts after one identity check per message and counts only
 * the messages after the shared prefix. Nothing is trusted but object identity, the same
 * assumption as the counter's per-object cache (messages are immutable values).
 *
 * The memo holds the references of the last list counted (8 bytes a message), never more: the
 * next count replaces or clears it. A recount after one append costs one pointer comparison
 * per message and no allocation.
 *
 * A list that is not an extension of the last one (a stateless caller's history, rebuilt as
 * new objects on every call) is counted message by message, each given the last list's
 * message at the same place (issue 19 §3): the counter reads it against that message's
 * checked copy, and equal content comes back as that copy, counted already.
 *
 * @param countMessage - Counts one message (cached per object and content by the counter),
 *   given the last list's message at its place, if any.
 * @returns A function from a list to its per-message counts and their sum.
 */
export function createPrefixMemo(
  countMessage: (message: Message, previous: Message | undefined) => number,
): (messages: readonly Message[]) => ListCount {
  let memo: { messages: Message[]; perMessage: number[]; sum: number } | undefined;
  return (messages) => {
    if (messages.length < MEMO_MIN_MESSAGES) {
      // Forget the last list: the memo must never keep a history alive that its owner dropped
      // (after a compaction, a session counts only its short projection).
      memo = undefined;
      const perMessage = messages.map((message) => countMessage(message, undefined));
      let sum = 0;
      for (const tokens of perMessage) sum += tokens;
      return { perMessage: () => [...perMessage], sum };
    }
    let shared = 0;
    if (memo !== undefined) {
      const known = memo.messages;
      const limit = Math.min(known.length, messages.length);
      while (shared < limit && messages[shared] === known[shared]) shared++;
    }
    let refs: Message[];
    let perMessage: number[];
    let sum: number;
    // The last list's messages past the shared prefix: each a hint for the message at its place.
    let last: readonly Message[] | undefined;
    if (memo !== undefined && shared === memo.messages.length) {
      // The last list is a prefix: extend it in place (the memo's arrays are never handed out).
      ({ messages: refs, perMessage, sum } = memo);
      // Until the loop below finishes, the memo's arrays are half-extended: a message that
      // throws (a malformed one, MSG-4) must not leave them behind for the next call.
      memo = undefined;
    } else {
      last = memo?.messages;
      // The whole list at once (the loop below only fills counts for it).
      refs = messages.slice();
      perMessage = memo === undefined ? [] : memo.perMessage.slice(0, shared);
      sum = 0;
      for (const tokens of perMessage) sum += tokens;
    }
    for (let i = shared; i < messages.length; i++) {
      const message = messages[i] as Message;
      const tokens = countMessage(message, last !== undefined && i < last.length ? last[i] : undefined);
      if (refs.length === i) refs.push(message);
      perMessage.push(tokens);
      sum += tokens;
    }
    memo = { messages: refs, perMessage, sum };
    // The memo's arrays only ever grow: their first `length` entries stay these counts.
    const length = messages.length;
    const counts = perMessage;
    return { perMessage: () => counts.slice(0, length), sum };
  };
}
