import { z } from 'zod';
import type { ExactTokenCounter } from '../../tokens/types.ts';
import {
  chatBody,
  defaultLocalFallback,
  type LocalServerCounterOptions,
  postToLocalServer,
} from './local-server.ts';
import { createProviderTokenCounter } from './provider-counter.ts';

const appliedTemplate = z.object({ prompt: z.string() });
const tokenized = z.object({
  tokens: z.array(z.union([z.number().int(), z.object({ id: z.number().int() })])),
});

/** Options of {@link createLlamaCppTokenCounter}. */
export type LlamaCppTokenCounterOptions = LocalServerCounterOptions;

/**
 * A token counter whose `countExact` asks a llama.cpp server (`llama-server`) how many tokens a
 * prompt is (TOK-3): `POST /apply-template` renders the messages with the model's own chat
 * template (tools included), then `POST /tokenize` with `add_special: true` tokenizes the
 * prompt as the server's chat endpoint does (it strips the template's begin-of-text and adds the
 * model's). Like the Anthropic and Gemini count endpoints (TOK-4): cached by content hash,
 * concurrent identical counts shared, bounded by `timeoutMs`, and on any failure the local
 * estimate with the reason reported to `onFallback`.
 *
 * @example
 * const counter = createLlamaCppTokenCounter({ baseURL: 'http://127.0.0.1:8080', model: 'qwen3-8b' });
 * const { total, accuracy } = await counter.countExact(messages, { tools });
 */
export function createLlamaCppTokenCounter(options: LlamaCppTokenCounterOptions): ExactTokenCounter {
  const model = options.model;
  return createProviderTokenCounter(
    'llama.cpp:tokenize',
    async (messages, tools, signal) => {
      const { prompt } = await postToLocalServer(
        options,
        '/apply-template',
        { ...(model === undefined ? {} : { model }), ...chatBody(messages, tools) },
        appliedTemplate,
        signal,
      );
      const { tokens } = await postToLocalServer(
        options,
        '/tokenize',
        { content: prompt, add_special: true, parse_special: true, with_pieces: false },
        tokenized,
        signal,
      );
      return tokens.length;
    },
    { ...options, model: model ?? 'llama.cpp', fallback: options.fallback ?? defaultLocalFallback(model) },
  );
}
