/**
 * Summaries written by a model behind the gateway's own upstream (issue 21): a cheaper model
 * on the same OpenAI-compatible server, or the chat model itself. The gateway's compactions
 * (in the background, off the request path) call it; a failure falls back to the extractive
 * summary with an event, never failing a client's request.
 */

import { openaiSummarizer } from '../integrations/openai/summarizer.ts';
import type { OpenAIChatClient } from '../integrations/openai/with-chatfold.ts';
import type { Summarizer } from '../summarize/types.ts';
import { sendUpstream, type UpstreamAuth, upstreamHeaders, upstreamUrl } from './upstream.ts';

/** Options of {@link upstreamSummarizer}. */
export interface UpstreamSummarizerOptions {
  /** Base URL of the OpenAI-compatible upstream. */
  readonly upstream: string;
  /** The summarizer model's id on that server. */
  readonly model: string;
  /** The key to send (`passthrough` has no client here: it sends none). */
  readonly auth: UpstreamAuth;
  readonly fetch?: typeof fetch;
  /** `max_tokens` for servers that do not know `max_completion_tokens` (default `max_tokens`, which every local server reads). */
  readonly maxTokensParameter?: 'max_completion_tokens' | 'max_tokens';
}

/**
 * A summarizer on the upstream's Chat Completions endpoint.
 *
 * @param options Upstream, model and key.
 * @returns A `Summarizer` for `createGateway({ summarizer })`.
 */
export function upstreamSummarizer({
  upstream,
  model,
  auth,
  fetch: fetchImpl,
  maxTokensParameter = 'max_tokens',
}: UpstreamSummarizerOptions): Summarizer {
  const client = {
    chat: {
      completions: {
        create: async (body: unknown, options?: { signal?: AbortSignal | null }) => {
          const response = await sendUpstream({
            url: upstreamUrl(upstream, '/chat/completions'),
            headers: upstreamHeaders(
              new Headers(),
              auth.type === 'passthrough' ? { type: 'none' } : auth,
              'openai',
            ),
            body: JSON.stringify(body),
            ...(options?.signal ? { signal: options.signal } : {}),
            ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
          });
          return response.json();
        },
      },
    },
  } as unknown as OpenAIChatClient;
  return openaiSummarizer(client, { model, maxTokensParameter });
}
