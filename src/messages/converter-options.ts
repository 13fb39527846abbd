import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { EngineCache } from './engine-cache.ts';
import { describe } from './normalize.ts';

/**
 * What a `toX` converter does with reasoning parts:
 * - `'auto'` (default): send the reasoning the target accepts back (signed Anthropic thinking,
 *   Gemini thought parts, AI SDK reasoning parts) and drop the rest;
 * - `'omit'`: drop all reasoning, e.g. to save tokens where the provider does not require it.
 */
export type ReasoningOutput = 'auto' | 'omit';

/** Options of `toAnthropic`, `toGemini` and `toAiSdk`. */
export interface ToProviderOptions {
  /** Default {@link DEFAULT_REASONING_OUTPUT}. */
  readonly reasoning?: ReasoningOutput;
  /**
   * Remembers checked messages between calls: give the same cache (a conversation's,
   * `createEngineCache()`) when converting the same messages again each turn.
   */
  readonly cache?: EngineCache | undefined;
}

/** Default of the `reasoning` option of every `toX` converter. */
export const DEFAULT_REASONING_OUTPUT = 'auto';

/** Reads the `reasoning` option; throws `E_INVALID_OPTIONS` for a value not in `allowed`. */
export function reasoningOption<T extends string>(
  options: { readonly reasoning?: T } | undefined,
  allowed: readonly T[],
  converter: string,
): T {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `${converter}: options must be an object, received ${describe(options)}`,
      { converter },
    );
  }
  const value = options?.reasoning ?? (DEFAULT_REASONING_OUTPUT as T);
  if (!allowed.includes(value)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `${converter}: options.reasoning must be one of ${allowed.map((v) => `'${v}'`).join(', ')}, received ${JSON.stringify(value)}`,
      { converter, option: 'reasoning' },
    );
  }
  return value;
}
