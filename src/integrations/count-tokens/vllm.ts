import { z } from 'zod';
import type { ExactTokenCounter } from '../../tokens/types.ts';
import {
  chatBody,
  defaultLocalFallback,
  type LocalServerCounterOptions,
  postToLocalServer,
} from './local-server.ts';
import { createProviderTokenCounter } from './provider-counter.ts';

const tokenized = z.object({
  count: z.number().int().nonnegative(),
  max_model_len: z.number().int().optional(),
  tokens: z.array(z.number().int()).optional(),
});

/** Options of {@link createVllmTokenCounter}. */
export type VllmTokenCounterOptions = LocalServerCounterOptions;

/**
 * A token counter whose `countExact` asks a vLLM server how many tokens a prompt is (TOK-3):
 * `POST /tokenize` with `{ model, messages, tools, add_generation_prompt: true }` applies the
 * served model's chat template and tokenizes it, answering `{ count, max_model_len, tokens }`.
 * Like the Anthropic and Gemini count endpoints (TOK-4): cached by content hash, concurrent
 * identical counts shared, bounded by `timeoutMs`, and on any failure (a model the server does
 * not serve is a 404) the local estimate with the reason reported to `onFallback`.
 *
 * @example
 * const counter = createVllmTokenCounter({ baseURL: 'http://127.0.0.1:8000', model: 'Qwen/Qwen3-8B' });
 * const { total } = await counter.countExact(messages);
 */
export function createVllmTokenCounter(options: VllmTokenCounterOptions): ExactTokenCounter {
  const model = options.model;
  return createProviderTokenCounter(
    'vllm:tokenize',
    async (messages, tools, signal) => {
      const { count } = await postToLocalServer(
        options,
        '/tokenize',
        {
          ...(model === undefined ? {} : { model }),
          ...chatBody(messages, tools),
          add_generation_prompt: true,
        },
        tokenized,
        signal,
      );
      return count;
    },
    { ...options, model: model ?? 'vllm', fallback: options.fallback ?? defaultLocalFallback(model) },
  );
}
