import type { EngineCache } from '../messages/engine-cache.ts';
import type { Message, ToolDefinition } from '../messages/types.ts';

/**
 * How much a count can be trusted (TOK-1):
 * - `exact`: the model's own tokenizer and chat format, or the provider's count endpoint;
 * - `calibrated`: a local estimate corrected by provider-reported usage (TOK-5) or a
 *   tokenizer measured close to the provider's (Claude, Gemini);
 * - `approximate`: a heuristic such as characters / 4 (TOK-7).
 */
export type CountAccuracy = 'exact' | 'calibrated' | 'approximate';

/**
 * Which tool the model must call, as OpenAI's `tool_choice` says it (TOK-2): it changes the
 * prompt's count. `{ name }` forces one tool (OpenAI's `{ type: 'function', function: { name } }`
 * is accepted as it is).
 */
export type ToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { readonly name: string }
  | { readonly type: 'function'; readonly function: { readonly name: string } };

/** OpenAI's legacy `function_call` request field (requests with `functions` instead of `tools`). */
export type FunctionCallChoice = 'auto' | 'none' | { readonly name: string };

/** What a prompt sends besides its messages. */
export interface CountOptions {
  /** Tool definitions sent with the prompt. */
  readonly tools?: readonly ToolDefinition[];
  /** OpenAI formats count it as the API does; other formats ignore it. Default `'auto'`. */
  readonly toolChoice?: ToolChoice;
  /** The legacy form of `toolChoice` (give one of the two). */
  readonly functionCall?: FunctionCallChoice;
}

/** The result of counting a prompt. */
export interface TokenCount {
  /** Tokens of the whole prompt: messages, chat-format overhead, tool definitions, reply priming. */
  readonly total: number;
  /** Tokens of each message including its per-message overhead, in input order. */
  readonly perMessage: readonly number[];
  /**
   * Tokens the tool definitions add (0 when there are none): the definitions, the tool choice,
   * and for OpenAI formats what they change in the system message.
   */
  readonly tools: number;
  /** Tokens added once per prompt (reply priming, chat template preamble). */
  readonly overhead: number;
  /** Tokenizer id, e.g. `openai:o200k_base`, `anthropic:claude`, `chars/4`. */
  readonly tokenizer: string;
  readonly accuracy: CountAccuracy;
}

/**
 * Counts tokens for one model family (TOK-1). `countMessage` must be fast and synchronous
 * (strategies call it in loops); implementations cache per message (TOK-6).
 */
export interface TokenCounter {
  /** Tokenizer id, stable across versions: part of every cache key. */
  readonly tokenizer: string;
  readonly accuracy: CountAccuracy;
  /** Tokens of plain text, no chat-format overhead. */
  countText(text: string): number;
  /** Tokens one message adds to a prompt, including its chat-format overhead. */
  countMessage(message: Message): number;
  /**
   * Tokens of a whole prompt. chatfold's counters read `tools` in any shape `toToolDefinitions`
   * knows and throw `E_INVALID_TOOLS` for others, `E_INVALID_OPTIONS` for a bad `toolChoice`.
   */
  count(messages: readonly Message[], options?: CountOptions): TokenCount;
  /**
   * The memo tables of the compactions this counter is used for (a session's counter lives as
   * long as the session): `compact` and `planCompaction` reuse them when given this counter.
   * chatfold's counters each own one; a counter without one gets a fresh cache per call.
   */
  readonly cache?: EngineCache;
  /** Optional exact count through the provider (Anthropic / Gemini count-tokens endpoints). */
  countExact?(
    messages: readonly Message[],
    options?: CountOptions & { readonly signal?: AbortSignal },
  ): Promise<TokenCount>;
}

/**
 * A counter that can also count exactly through the provider (TOK-4): what
 * `createAnthropicTokenCounter`, `createGeminiTokenCounter` and `createProviderTokenCounter`
 * return. `compact()` and sessions ask `countExact` near a trigger and let it decide.
 */
export interface ExactTokenCounter extends TokenCounter {
  countExact(
    messages: readonly Message[],
    options?: CountOptions & { readonly signal?: AbortSignal },
  ): Promise<TokenCount>;
}
