import type { Message, ToolDefinition } from '../messages/types.ts';
import type { CountAccuracy, TokenCount, TokenCounter } from '../tokens/types.ts';

/** Options of {@link createMockTokenCounter}. */
export interface MockTokenCounterOptions {
  /** Tokens of a text. Default: one token per 4 characters, rounded up. */
  readonly countText?: (text: string) => number;
  /** Tokens added per message. Default 3 (the OpenAI chat format's). */
  readonly perMessage?: number;
  /** Tokens added once per prompt. Default 3. */
  readonly perPrompt?: number;
  readonly tokenizer?: string;
  readonly accuracy?: CountAccuracy;
}

/** A test double for {@link TokenCounter} that records how many texts it counted. */
export interface MockTokenCounter extends TokenCounter {
  /** Texts passed to `countText`, in order. */
  readonly calls: string[];
}

/**
 * A deterministic token counter for tests and examples: text tokens come from a function you
 * pass (default ⌈chars / 4⌉), messages cost their text plus `perMessage`.
 *
 * @example
 * const counter = createMockTokenCounter({ countText: (t) => t.split(' ').length });
 */
export function createMockTokenCounter({
  countText = (text) => Math.ceil(text.length / 4),
  perMessage = 3,
  perPrompt = 3,
  tokenizer = 'mock',
  accuracy = 'exact',
}: MockTokenCounterOptions = {}): MockTokenCounter {
  const calls: string[] = [];
  const text = (value: string): number => {
    calls.push(value);
    return countText(value);
  };
  const countMessage = (message: Message): number => {
    let total = perMessage;
    for (const part of message.parts) {
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
  return {
    calls,
    tokenizer,
    accuracy,
    countText: text,
    countMessage,
    count(
      messages: readonly Message[],
      options?: { readonly tools?: readonly ToolDefinition[] },
    ): TokenCount {
      const perMessageCounts = messages.map(countMessage);
      const tools = (options?.tools ?? []).reduce((sum, tool) => sum + text(JSON.stringify(tool)), 0);
      const total = perMessageCounts.reduce((sum, n) => sum + n, 0) + tools + perPrompt;
      return { total, perMessage: perMessageCounts, tools, overhead: perPrompt, tokenizer, accuracy };
    },
  };
}
