import { assertMessages } from '../messages/check-messages.ts';
import { type ToolsInput, toToolDefinitions } from '../messages/tools/to-tool-definitions.ts';
import type { Message } from '../messages/types.ts';
import { createTokenCounter } from './create-token-counter.ts';
import { tokenizerForModel } from './tokenizer-for-model.ts';
import type { CountOptions, TokenCount, TokenCounter } from './types.ts';

const counters = new Map<string, TokenCounter>();

/**
 * Stand-ins for tokenizers that load asynchronously (`open:*`: the models' own tokenizers, from
 * `createOpenModelTokenCounter` in `chatfold/open-models`, TOK-3). Llama 3's vocabulary extends
 * cl100k_base, and ai-tokenizer measured Qwen closest to it; DeepSeek closest to o200k_base;
 * gpt-oss's vocabulary is o200k's (its harmony format adds a preamble the estimate lacks);
 * Gemma 3 and the Gemini package's Gemma vocabulary get the Gemini estimate. Until the real
 * tokenizer is loaded the count is a calibrated estimate.
 */
const SYNCHRONOUS_STAND_IN: Readonly<Record<string, string>> = {
  'open:llama3': 'estimate:cl100k_base',
  'open:llama3_1': 'estimate:cl100k_base',
  'open:qwen3': 'estimate:cl100k_base',
  'open:deepseek_v3': 'estimate:o200k_base',
  'open:gptoss': 'estimate:o200k_base',
  'open:gemma3': 'google:gemini',
  'open:gemini': 'google:gemini',
};

/** The shared counter of a tokenizer id (counters cache per message, so sharing them pays). */
export function counterFor(tokenizer: string): TokenCounter {
  const standIn = SYNCHRONOUS_STAND_IN[tokenizer];
  if (standIn !== undefined) return counterFor(standIn);
  let counter = counters.get(tokenizer);
  if (counter === undefined) {
    counter = createTokenCounter({ tokenizer });
    counters.set(tokenizer, counter);
  }
  return counter;
}

/** Options of {@link countTokens}: the model, and what the prompt sends besides messages. */
export interface CountTokensOptions extends Omit<CountOptions, 'tools'> {
  /** Tool definitions in any shape chatfold reads (see `ToolsInput`). */
  readonly tools?: ToolsInput;
  /** Model id; picks the tokenizer. */
  readonly model?: string;
  /** Tokenizer id; overrides the model's. */
  readonly tokenizer?: string;
  /** Use this counter instead. */
  readonly counter?: TokenCounter;
}

/**
 * Counts the tokens of a prompt (RT-1, TOK-1): total, per message, tool definitions, the
 * tokenizer used and whether the count is exact, calibrated or approximate.
 *
 * @throws ChatfoldError for input that is not neutral messages (see `assertMessages`);
 *   `E_INVALID_TOOLS` for tools of no known shape; `E_INVALID_OPTIONS` for a `toolChoice` that
 *   is not one of its forms or names no given tool.
 * @example
 * const { total, accuracy } = countTokens(messages, { model: 'gpt-4o' });
 * countTokens(messages, { model: 'gpt-4o', tools, toolChoice: { name: 'get_weather' } }).tools;
 */
export function countTokens(messages: readonly Message[], options: CountTokensOptions = {}): TokenCount {
  const counter =
    options.counter ??
    counterFor(
      options.tokenizer ?? (options.model === undefined ? 'chars/4' : tokenizerForModel(options.model)),
    );
  const checked = assertMessages(messages, 'countTokens', { cache: counter.cache });
  const { model: _model, tokenizer: _tokenizer, counter: _counter, tools, ...choice } = options;
  return counter.count(
    checked,
    tools === undefined ? choice : { ...choice, tools: toToolDefinitions(tools) },
  );
}
