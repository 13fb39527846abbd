import { fromAnthropic } from '../../messages/anthropic.ts';
import type { AnthropicRequestInput } from '../../messages/anthropic-schema.ts';
import { countEndpointTokens } from '../chat-turn.ts';
import type { FakeRoute } from '../server.ts';
import { anthropicError } from './errors.ts';
import { anthropicTools } from './tools.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Anthropic `POST /v1/messages/count_tokens` (docs.anthropic.com, "Count Message tokens"):
 * body `{ model, messages, system?, tools? }` → `{ input_tokens }`. Checks what the real API
 * rejects: a missing key (401), a missing `anthropic-version`, model or messages (400).
 * Counts with chatfold's counter for the model, so it agrees with `/v1/messages` usage.
 */
export const anthropicCountTokens: FakeRoute = {
  method: 'POST',
  path: /^\/v1\/messages\/count_tokens$/,
  error: anthropicError,
  handle(request, { behaviour }) {
    const { headers, body } = request;
    if (headers['x-api-key'] === undefined && headers.authorization === undefined)
      return anthropicError(401, 'x-api-key header is required');
    if (headers['anthropic-version'] === undefined)
      return anthropicError(400, 'anthropic-version: header is required');
    if (!isObject(body)) return anthropicError(400, 'request body must be a JSON object');
    if (typeof body.model !== 'string' || body.model === '')
      return anthropicError(400, 'model: Field required');
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return anthropicError(400, 'messages: at least one message is required');
    for (const [index, message] of body.messages.entries()) {
      if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant'))
        return anthropicError(400, `messages.${index}.role: Input should be 'user' or 'assistant'`);
    }
    return {
      status: 200,
      body: {
        input_tokens: countEndpointTokens(request, behaviour, {
          model: body.model,
          toMessages: () => fromAnthropic(body as unknown as AnthropicRequestInput),
          tools: anthropicTools(body.tools),
        }),
      },
    };
  },
};
