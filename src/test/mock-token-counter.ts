import type { Message, ToolDefinition } from '../messages/types.ts';
import type { CountAccuracy, TokenCount, TokenCounter } from '../tokens/types.ts';
import { answerer, type MockAnswer } from './mock-answer.ts';

/** The options `count` takes. */
type CountOptions = { readonly tools?: readonly ToolDefinition[] };
/** The options `countExact` takes. */
type ExactCountOptions = { readonly tools?: readonly ToolDefinition[]; readonly signal?: AbortSignal };

/** Options of {@link createMockTokenCounter}. */
export interface MockTokenCounterOptions {
  /**
   * Tokens of a text: one number for every text, or a function of the text. Default: one token
   * per 4 characters, rounded up. (Not a per-call array: strategies count in loops, so the n-th
   * count is no stable thing to script.)
   */
  readonly countText?: number | ((text: string) => number);
  /** Tokens added per message. Default 3 (the OpenAI chat format's). */
  readonly perMessage?: number;
  /** Tokens added once per prompt. Default 3. */
  readonly perPrompt?: number;
  /** Default `mock`. */
  readonly tokenizer?: string;
  /** How far the local counts can be trusted. Default `exact`. */
  readonly accuracy?: CountAccuracy;
  /**
   * Gives the counter a `countExact` (a provider's count endpoint, TOK-1) answering the exact
   * total of a prompt: a number (or a whole `TokenCount`) for every call, a function of the
   * call, or one per call; an `Error` rejects that call (compaction then falls back to the
   * estimate). A number keeps the local count's other fields. Default: no `countExact`.
   */
  readonly countExact?: MockAnswer<
    [messages: readonly Message[], options: ExactCountOptions | undefined],
    number | TokenCount
  >;
}

/** Calls of a {@link MockTokenCounter}, by method; counts a method makes itself are not listed. */
export interface MockTokenCounterCalls {
  readonly countText: string[];
  readonly countMessage: Message[];
  readonly count: [messages: readonly Message[], options: CountOptions | undefined][];
  readonly countExact: [messages: readonly Message[], options: ExactCountOptions | undefined][];
}

/** A {@link TokenCounter} test double that records its calls. */
export interface MockTokenCounter extends TokenCounter {
  readonly calls: MockTokenCounterCalls;
}

/**
 * A deterministic token counter for tests and examples: text tokens come from a number or a
 * function you pass (default ⌈chars / 4⌉), a message costs its text plus `perMessage`, a prompt
 * its messages, tools and `perPrompt`. Records every call by method; with `countExact` it also
 * stands in for a provider count endpoint.
 *
 * @param options How texts, messages and prompts are counted; an optional `countExact`.
 * @returns The counter, with `calls`.
 * @example
 * const counter = createMockTokenCounter({ countText: (text) => text.split(' ').length });
 * counter.countText('one two three'); // 3
 * @example
 * // A provider endpoint that finds the prompt 10 % bigger than the estimate.
 * const counter = createMockTokenCounter({
 *   accuracy: 'approximate',
 *   countExact: (messages) => Math.round(estimate.count(messages).total * 1.1),
 * });
 */
export function createMockTokenCounter({
  countText = (text) => Math.ceil(text.length / 4),
  perMessage = 3,
  perPrompt = 3,
  tokenizer = 'mock',
  accuracy = 'exact',
  countExact,
}: MockTokenCounterOptions = {}): MockTokenCounter {
  const calls: MockTokenCounterCalls = { countText: [], countMessage: [], count: [], countExact: [] };
  const text = typeof countText === 'number' ? () => countText : countText;
  const message = (value: Message): number => {
    let total = perMessage;
    for (const part of value.parts) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          total += text(part.text);
          break;
        case 'tool-call':
          total += text(part.name) + text(part.arguments);
          break;
        case 'tool-result':
          for (const inner of part.content) total += inner.type === 'text' ? text(inner.text) : 1;
          break;
        case 'attachment':
          total += 1;
          break;
      }
    }
    return total;
  };
  const prompt = (messages: readonly Message[], options: CountOptions | undefined): TokenCount => {
    const perMessageCounts = messages.map(message);
    const tools = (options?.tools ?? []).reduce((sum, tool) => sum + text(JSON.stringify(tool)), 0);
    const total = perMessageCounts.reduce((sum, n) => sum + n, 0) + tools + perPrompt;
    return { total, perMessage: perMessageCounts, tools, overhead: perPrompt, tokenizer, accuracy };
  };
  const counter: MockTokenCounter = {
    calls,
    tokenizer,
    accuracy,
    countText(value) {
      calls.countText.push(value);
      return text(value);
    },
    countMessage(value) {
      calls.countMessage.push(value);
      return message(value);
    },
    count(messages, options) {
      calls.count.push([messages, options]);
      return prompt(messages, options);
    },
  };
  if (countExact === undefined) return counter;
  const exact = answerer(countExact, 'createMockTokenCounter countExact');
  return {
    ...counter,
    async countExact(messages, options) {
      calls.countExact.push([messages, options]);
      options?.signal?.throwIfAborted();
      const answer = await exact.next([messages, options]);
      if (typeof answer !== 'number') return answer;
      return { ...prompt(messages, options), total: answer, accuracy: 'exact' };
    },
  };
}
