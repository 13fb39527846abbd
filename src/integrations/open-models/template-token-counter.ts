import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { assertMessage, assertMessages } from '../../messages/check-messages.ts';
import { contentHash } from '../../messages/content-hash.ts';
import type { Message, ToolDefinition } from '../../messages/types.ts';
import { createCountCache } from '../../tokens/count-cache.ts';
import { DEFAULT_CACHE_SIZE } from '../../tokens/create-token-counter.ts';
import { attachmentText, messageKey } from '../../tokens/message-key.ts';
import { createPrefixMemo } from '../../tokens/prefix-memo.ts';
import type { CountAccuracy, TokenCount, TokenCounter } from '../../tokens/types.ts';
import type { TemplateShape } from './measure-template.ts';

/** Options of {@link createTemplateTokenCounter}. */
export interface TemplateTokenCounterOptions {
  /** Id reported on counts and part of cache keys, e.g. `open:qwen3`. */
  readonly tokenizer: string;
  /** Tokens of message content (no special tokens added). */
  readonly encode: (text: string) => number;
  /** The chat template's overheads, from `measureTemplate`. */
  readonly shape: TemplateShape;
  /** Tokens of a set of tool definitions as the template renders them. */
  readonly countTools: (tools: readonly ToolDefinition[]) => number;
  /** Default `exact`. */
  readonly accuracy?: CountAccuracy;
  /** Messages whose counts are kept by content hash. Default: the counters' default. */
  readonly cacheSize?: number;
}

/**
 * The text a template receives as a message's content: its text parts (attachments as their
 * metadata, tool results' texts) joined by newlines, as OpenAI-compatible servers join parts.
 */
export function templateContent(message: Message): string {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'attachment') texts.push(attachmentText(part));
    else if (part.type === 'tool-result')
      for (const inner of part.content)
        texts.push(inner.type === 'text' ? inner.text : attachmentText(inner));
  }
  return texts.join('\n');
}

/**
 * A token counter for a model whose chat template was measured (TOK-3): each message counts
 * its role's template overhead plus its content (trimmed when the template trims it) plus its
 * tool calls; a prompt adds the template's preamble and generation prompt, the tool
 * definitions, and the extra tokens of assistant turns after the last user message (Qwen 3).
 * Counts are cached per message object and content hash, and a recount after an append reads
 * only the new messages (TOK-6). Reasoning parts are not counted: the templates drop earlier
 * turns' reasoning.
 */
export function createTemplateTokenCounter({
  tokenizer,
  encode,
  shape,
  countTools,
  accuracy = 'exact',
  cacheSize = DEFAULT_CACHE_SIZE,
}: TemplateTokenCounterOptions): TokenCounter {
  if (!Number.isSafeInteger(cacheSize) || cacheSize < 1) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `createTemplateTokenCounter: cacheSize must be a positive integer, received ${String(cacheSize)}`,
      { option: 'cacheSize', received: String(cacheSize) },
    );
  }
  const byObject = new WeakMap<Message, number>();
  const byContent = createCountCache(cacheSize);
  const trimmed = new Set(shape.trimmedRoles);

  const encodeMessage = (message: Message): number => {
    const content = templateContent(message);
    let tokens = shape.perRole[message.role] + encode(trimmed.has(message.role) ? content.trim() : content);
    for (const part of message.parts) {
      if (part.type === 'tool-call') tokens += shape.perToolCall + encode(part.name) + encode(part.arguments);
    }
    return tokens;
  };
  const countMessage = (message: Message, fn = 'countMessage'): number => {
    const known = byObject.get(message);
    if (known !== undefined) return known;
    assertMessage(message, undefined, fn);
    const tokens = byContent.remember(messageKey(message, false), () => encodeMessage(message));
    byObject.set(message, tokens);
    return tokens;
  };
  const countList = createPrefixMemo((message) => countMessage(message, 'count'));
  const toolsOf = (tools: readonly ToolDefinition[]): number =>
    tools.length === 0
      ? 0
      : byContent.remember(`tools\u0000${contentHash(JSON.stringify(tools))}`, () => countTools(tools));

  return {
    tokenizer,
    accuracy,
    countText: (text) => encode(text),
    countMessage: (message) => countMessage(message),
    count(messages, options = {}): TokenCount {
      if (!Array.isArray(messages)) assertMessages(messages, 'count');
      let counted: ReturnType<typeof countList>;
      try {
        counted = countList(messages);
      } catch (error) {
        // A malformed message: name it by its index.
        if (ChatfoldError.isInstance(error)) assertMessages(messages, 'count');
        throw error;
      }
      // Assistant turns after the last user message (Qwen 3's empty think block).
      const trailing: number[] = [];
      if (shape.perTrailingAssistant !== 0) {
        for (let i = messages.length - 1; i >= 0 && messages[i]?.role !== 'user'; i--)
          if (messages[i]?.role === 'assistant') trailing.push(i);
      }
      const extra = trailing.length * shape.perTrailingAssistant;
      const tools = toolsOf(options.tools ?? []);
      let perMessage: number[] | undefined;
      return {
        total: shape.perPrompt + tools + counted.sum + extra,
        get perMessage() {
          if (perMessage === undefined) {
            perMessage = counted.perMessage();
            for (const index of trailing)
              perMessage[index] = (perMessage[index] ?? 0) + shape.perTrailingAssistant;
          }
          return perMessage;
        },
        tools,
        overhead: shape.perPrompt,
        tokenizer,
        accuracy,
      };
    },
  };
}
