import { fromGemini } from '../../messages/gemini.ts';
import type { GeminiRequestInput } from '../../messages/gemini-schema.ts';
import { countEndpointTokens } from '../chat-turn.ts';
import type { FakeRoute } from '../server.ts';
import { geminiError } from './errors.ts';
import { geminiTools } from './tools.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Gemini `POST /v1beta/models/{model}:countTokens` (ai.google.dev, "Counting tokens"): body
 * `{ contents }` or `{ generateContentRequest }` → `{ totalTokens }`. Checks what the real API
 * rejects: a missing key (403, as Google answers), no contents, an unknown role, empty parts.
 */
export const geminiCountTokens: FakeRoute = {
  method: 'POST',
  path: /^\/v1(?:beta)?\/models\/(?<model>[^/:]+):countTokens$/,
  error: geminiError,
  handle(request, { behaviour, params }) {
    const { headers, body, query } = request;
    if (headers['x-goog-api-key'] === undefined && !query.has('key'))
      return geminiError(403, "Method doesn't allow unregistered callers. Please use API Key.");
    if (!isObject(body)) return geminiError(400, 'Invalid JSON payload received.');
    const prompt = isObject(body.generateContentRequest) ? body.generateContentRequest : body;
    const contents = prompt.contents;
    if (!Array.isArray(contents) || contents.length === 0)
      return geminiError(400, '* CountTokensRequest.contents: contents is not specified');
    for (const [index, content] of contents.entries()) {
      // `function` is the legacy role of function responses, still accepted.
      if (!isObject(content) || !['user', 'model', 'function', undefined].includes(content.role as string))
        return geminiError(400, `Please use a valid role: user, model. (contents[${index}])`);
      if (!Array.isArray(content.parts) || content.parts.length === 0)
        return geminiError(
          400,
          `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.`,
        );
    }
    return {
      status: 200,
      body: {
        totalTokens: countEndpointTokens(request, behaviour, {
          model: params.model ?? '',
          toMessages: () => fromGemini(prompt as unknown as GeminiRequestInput),
          tools: geminiTools(prompt.tools),
        }),
      },
    };
  },
};
