import { asObject } from '../chat-turn.ts';
import type { FakeRoute } from '../server.ts';
import { renderFakeChatML } from './fake-tokenizer.ts';
import { llamaCppError } from './llama-cpp-errors.ts';

/**
 * llama.cpp server `POST /apply-template` (tools/server README): body `{ messages, tools? }` in
 * the `/v1/chat/completions` format → `{ prompt }`, the conversation rendered by the model's chat
 * template with the generation prompt, without inference. The fake renders ChatML. Refuses a
 * body without a `messages` array, as the server does.
 */
export const llamaCppApplyTemplate: FakeRoute = {
  method: 'POST',
  path: /^\/apply-template$/,
  error: llamaCppError,
  handle(request) {
    const body = asObject(request.body);
    if (body === undefined) return llamaCppError(400, 'the request body must be a JSON object');
    if (!Array.isArray(body.messages)) return llamaCppError(400, "'messages' is required");
    for (const [index, message] of body.messages.entries()) {
      if (typeof asObject(message)?.role !== 'string')
        return llamaCppError(400, `messages[${index}]: 'role' is required`);
    }
    const generation = body.add_generation_prompt !== false;
    return { status: 200, body: { prompt: renderFakeChatML(body.messages, body.tools, generation) } };
  },
};
