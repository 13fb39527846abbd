import { ChatfoldError } from '../errors/chatfold-error.ts';
import type {
  AnthropicBlock,
  AnthropicMessage,
  AnthropicRequest,
  AnthropicTextBlock,
} from './anthropic-request.ts';

/** Anthropic accepts at most this many `cache_control` breakpoints per request. */
export const ANTHROPIC_MAX_BREAKPOINTS = 4;

/** Options of {@link withCacheBreakpoints}. */
export interface CacheBreakpointOptions {
  /** Cache lifetime: `'5m'` (default, the API's default) or `'1h'` (priced higher). */
  readonly ttl?: '5m' | '1h';
  /**
   * Tool definitions sent with the request: the last one gets a breakpoint (tools come first
   * in Anthropic's cache order). Returned, marked, as `tools`.
   */
  readonly tools?: readonly { readonly name: string; readonly [key: string]: unknown }[];
}

const SUMMARY_PREFIX = '[chatfold summary of ';

type Cacheable = Exclude<AnthropicBlock, { type: 'thinking' | 'redacted_thinking' }> & {
  cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } | null;
};

/**
 * Places Anthropic prompt-cache breakpoints on what stays the same between compactions
 * (RT-5): the last tool definition, the end of the system prompt, the chatfold summary, and
 * the newest message (so the next call reads everything up to it from the cache). At most
 * four, as the API allows; existing `cache_control` marks are kept and count toward the four.
 * The input is not mutated.
 *
 * @param request The output of {@link toAnthropic}.
 * @returns The request with `cache_control` set, and `tools` when tools were given.
 *
 * @example
 * const { system, messages } = withCacheBreakpoints(toAnthropic(prepared.messages));
 */
export function withCacheBreakpoints<T extends AnthropicRequest>(
  request: T,
  options: CacheBreakpointOptions = {},
): T & { tools?: { readonly name: string; readonly [key: string]: unknown }[] } {
  const { ttl, tools } = options;
  if (ttl !== undefined && ttl !== '5m' && ttl !== '1h') {
    throw new ChatfoldError('E_INVALID_OPTIONS', `ttl: expected '5m' or '1h', received ${String(ttl)}`, {
      option: 'ttl',
    });
  }
  const mark = { type: 'ephemeral' as const, ...(ttl === undefined ? {} : { ttl }) };
  let budget = ANTHROPIC_MAX_BREAKPOINTS - countExisting(request);

  let markedTools: { readonly name: string; readonly [key: string]: unknown }[] | undefined;
  if (tools !== undefined) {
    markedTools = [...tools];
    const last = markedTools.at(-1);
    if (last !== undefined && last.cache_control == null && budget > 0) {
      markedTools[markedTools.length - 1] = { ...last, cache_control: mark };
      budget--;
    }
  }

  let system = request.system;
  if (system !== undefined && budget > 0) {
    const blocks: AnthropicTextBlock[] =
      typeof system === 'string' ? [{ type: 'text', text: system }] : [...system];
    const last = blocks.at(-1);
    if (last !== undefined && last.text !== '' && last.cache_control == null) {
      blocks[blocks.length - 1] = { ...last, cache_control: mark };
      system = blocks;
      budget--;
    }
  }

  const messages = [...request.messages];
  const newest = messages.length - 1;
  if (newest >= 0 && budget > 0) {
    const marked = markBlock(messages[newest] as AnthropicMessage, mark, () => true);
    if (marked !== undefined) {
      messages[newest] = marked;
      budget--;
    }
  }
  // The summary may share a turn with the goal (Anthropic merges consecutive user turns):
  // mark its own block, so the cached prefix ends right after it.
  const isSummary = (block: AnthropicBlock): boolean =>
    block.type === 'text' && block.text.startsWith(SUMMARY_PREFIX);
  const summaryAt = messages.findIndex((message) =>
    typeof message.content === 'string'
      ? message.content.startsWith(SUMMARY_PREFIX)
      : message.content.some(isSummary),
  );
  if (summaryAt >= 0 && summaryAt !== newest && budget > 0) {
    const marked = markBlock(messages[summaryAt] as AnthropicMessage, mark, isSummary);
    if (marked !== undefined) {
      messages[summaryAt] = marked;
      budget--;
    }
  }
  return {
    ...request,
    ...(system === undefined ? {} : { system }),
    messages,
    ...(markedTools === undefined ? {} : { tools: markedTools }),
  };
}

/**
 * The message with `cache_control` on its last cacheable block that `which` accepts;
 * undefined when there is none or it is already marked.
 */
function markBlock(
  message: AnthropicMessage,
  mark: { type: 'ephemeral'; ttl?: '5m' | '1h' },
  which: (block: AnthropicBlock) => boolean,
): AnthropicMessage | undefined {
  const blocks: AnthropicBlock[] =
    typeof message.content === 'string'
      ? message.content === ''
        ? []
        : [{ type: 'text', text: message.content }]
      : [...message.content];
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i] as AnthropicBlock;
    // Thinking blocks cannot carry cache_control; empty text blocks are rejected by the API.
    if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    if (block.type === 'text' && block.text === '') continue;
    if (!which(block)) continue;
    const cacheable = block as Cacheable;
    if (cacheable.cache_control != null) return undefined;
    blocks[i] = { ...cacheable, cache_control: mark } as AnthropicBlock;
    // A system turn's blocks are text blocks, marked or not.
    return { ...message, content: blocks } as AnthropicMessage;
  }
  return undefined;
}

function countExisting(request: AnthropicRequest): number {
  let count = 0;
  const blocks = (content: string | readonly AnthropicBlock[] | undefined): void => {
    if (content === undefined || typeof content === 'string') return;
    for (const block of content) if ((block as Cacheable).cache_control != null) count++;
  };
  blocks(request.system);
  for (const message of request.messages) blocks(message.content);
  return count;
}
