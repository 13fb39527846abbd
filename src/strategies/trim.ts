import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { Message } from '../messages/types.ts';
import type { TokenCounter } from '../tokens/types.ts';

/** Options of {@link trimToTokens}. */
export interface TrimOptions {
  /** Tokens the kept messages (plus the prompt overhead) may use. */
  readonly maxTokens: number;
  /** The counter; its per-message cache makes repeated trims of a growing list cheap. */
  readonly counter: TokenCounter;
  /**
   * What the first kept message after the system prompt must be: `'user'` (default; what
   * Anthropic and Gemini require, and LangChain's `startOn: 'human'`) or `'any'`.
   */
  readonly startOn?: 'user' | 'any';
  /** Keep the leading system messages. Default true. */
  readonly keepSystem?: boolean;
}

/**
 * Keeps the newest messages that fit in `maxTokens` (a drop-in for LangChain's
 * `trimMessages({ strategy: 'last' })`), never splitting an assistant message from the tool
 * results that answer it, dropping orphan tool results, and starting on a user turn, so the
 * result passes `validate` for every provider (MSG-3). Synchronous and O(kept messages) with
 * a warm counter: nothing is copied or re-counted, and older messages are never visited.
 * For summaries, stubs and the other strategies use {@link compact}.
 *
 * @param messages Neutral messages, oldest first.
 * @param options Budget and counter.
 * @returns The kept messages, the same objects, oldest first.
 * @throws ChatfoldError `E_BUDGET_IMPOSSIBLE` when the system prompt alone exceeds `maxTokens`.
 *
 * @example
 * const recent = trimToTokens(messages, { maxTokens: 64_000, counter: counterFor('openai:o200k_base') });
 */
export function trimToTokens(messages: readonly Message[], options: TrimOptions): Message[] {
  const { maxTokens, counter, startOn = 'user', keepSystem = true } = options;
  if (!Array.isArray(messages)) {
    throw new ChatfoldError('E_INVALID_MESSAGES', 'trimToTokens: expected an array of messages', {});
  }
  if (typeof maxTokens !== 'number' || !(maxTokens > 0) || !Number.isFinite(maxTokens)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `maxTokens: expected a positive number, received ${maxTokens}`,
      {
        option: 'maxTokens',
      },
    );
  }
  let head = 0;
  while (head < messages.length && (messages[head] as Message).role === 'system') head++;
  let used = counter.count([]).total;
  if (keepSystem) for (let i = 0; i < head; i++) used += counter.countMessage(messages[i] as Message);
  if (used > maxTokens) {
    throw new ChatfoldError(
      'E_BUDGET_IMPOSSIBLE',
      `the system prompt alone is ${used} tokens, more than maxTokens ${maxTokens}`,
      { budget: maxTokens, actual: used },
    );
  }

  // Walk units newest first: a single message, or an assistant turn with the tool results
  // that answer it. `kept` holds message indices newest first.
  const kept: number[] = [];
  const unit: number[] = [];
  let index = messages.length - 1;
  while (index >= head) {
    unit.length = 0;
    const message = messages[index] as Message;
    if (message.role === 'tool') {
      let call = index;
      while (call >= head && (messages[call] as Message).role === 'tool') call--;
      const owner = call >= head ? (messages[call] as Message) : undefined;
      const ids = owner?.role === 'assistant' ? callIds(owner) : undefined;
      if (ids === undefined) {
        index = call; // orphan tool results: no call to pair with, so never sent
        continue;
      }
      for (let i = index; i > call; i--) if (answers(messages[i] as Message, ids)) unit.push(i);
      unit.push(call);
      index = call - 1;
    } else {
      unit.push(index);
      index--;
    }
    let cost = 0;
    for (const i of unit) cost += counter.countMessage(messages[i] as Message);
    if (used + cost > maxTokens) break;
    used += cost;
    for (const i of unit) kept.push(i);
  }
  // The oldest kept messages must start with a user turn (not a tool result).
  let first = kept.length - 1;
  if (startOn === 'user') {
    while (first >= 0 && !isUserText(messages[kept[first] as number] as Message)) first--;
  }
  const out: Message[] = keepSystem ? messages.slice(0, head) : [];
  for (let i = first; i >= 0; i--) out.push(messages[kept[i] as number] as Message);
  return out;
}

function callIds(message: Message): Set<string> | undefined {
  let ids: Set<string> | undefined;
  for (const part of message.parts) {
    if (part.type !== 'tool-call') continue;
    ids ??= new Set();
    ids.add(part.id);
  }
  return ids;
}

function answers(message: Message, ids: ReadonlySet<string>): boolean {
  return message.parts.some((part) => part.type === 'tool-result' && ids.has(part.callId));
}

function isUserText(message: Message): boolean {
  return message.role === 'user' && message.parts.every((part) => part.type !== 'tool-result');
}
