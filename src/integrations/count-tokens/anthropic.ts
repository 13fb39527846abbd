import { importPeer } from '../../errors/import-peer.ts';
import { toAnthropic } from '../../messages/anthropic.ts';
import type { ToolDefinition } from '../../messages/types.ts';
import { counterFor } from '../../tokens/count-tokens.ts';
import type { ExactTokenCounter, TokenCounter } from '../../tokens/types.ts';
import { createProviderTokenCounter, type ProviderCounterOptions } from './provider-counter.ts';

/** The part of the official `@anthropic-ai/sdk` client chatfold uses. */
export interface AnthropicCountClient {
  readonly messages: {
    countTokens(
      body: {
        readonly model: string;
        readonly messages: readonly unknown[];
        readonly system?: unknown;
        readonly tools?: readonly unknown[];
      },
      options?: { signal?: AbortSignal; maxRetries?: number; timeout?: number },
    ): Promise<{ input_tokens: number }>;
  };
}

/** Options of {@link createAnthropicTokenCounter}. */
export interface AnthropicTokenCounterOptions extends Omit<ProviderCounterOptions, 'fallback'> {
  /** An `Anthropic` client; or pass `apiKey` / `baseURL` and chatfold creates one. */
  readonly client?: AnthropicCountClient;
  /** Default: the SDK reads `ANTHROPIC_API_KEY`. */
  readonly apiKey?: string;
  readonly baseURL?: string;
  /** Local counter when the API cannot answer. Default: the calibrated Claude encoding. */
  readonly fallback?: TokenCounter;
}

const toAnthropicTools = (tools: readonly ToolDefinition[]) =>
  tools.map((tool) => ({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: tool.parameters,
  }));

/**
 * A token counter for Claude models whose `countExact` calls Anthropic's
 * `POST /v1/messages/count_tokens` through the official SDK's `messages.countTokens` (TOK-4):
 * messages converted with `toAnthropic` (system separate), tools included, cached by content
 * hash, bounded by `timeoutMs`, never retried (a fallback is cheaper than a wait), and
 * falling back to the calibrated local Claude estimate with the reason reported to
 * `onFallback`. `@anthropic-ai/sdk` is an optional peer dependency, imported only when no
 * `client` is given.
 *
 * @throws ChatfoldError `E_MISSING_DEPENDENCY` when neither a client nor the SDK is available.
 * @example
 * const counter = await createAnthropicTokenCounter({ model: 'claude-sonnet-4-5' });
 * const { total, accuracy } = await counter.countExact!(messages, { tools });
 */
export async function createAnthropicTokenCounter(
  options: AnthropicTokenCounterOptions,
): Promise<ExactTokenCounter> {
  let client = options.client;
  if (client === undefined) {
    const { default: Anthropic } = await importPeer(
      '@anthropic-ai/sdk',
      () => import('@anthropic-ai/sdk'),
      'createAnthropicTokenCounter',
    );
    client = new Anthropic({
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    }) as unknown as AnthropicCountClient;
  }
  const sdk = client;
  return createProviderTokenCounter(
    'anthropic:count_tokens',
    async (messages, tools, signal) => {
      const request = toAnthropic(messages);
      const response = await sdk.messages.countTokens(
        {
          model: options.model,
          ...request,
          ...(tools.length === 0 ? {} : { tools: toAnthropicTools(tools) }),
        },
        { signal, maxRetries: 0 },
      );
      return response.input_tokens;
    },
    { ...options, fallback: options.fallback ?? counterFor('anthropic:claude') },
  );
}
