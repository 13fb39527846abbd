import { asObject } from '../chat-turn.ts';
import type { FakeRoute } from '../server.ts';
import { openaiError } from './errors.ts';

/** Models listed when the context limit names none. */
const DEFAULT_MODELS = ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1'];

/**
 * OpenAI `GET /v1/models` (platform.openai.com, "List models"): `{ object: 'list', data: [{ id,
 * object: 'model', created, owned_by }] }`. Lists the models named in a per-model context limit.
 */
export const openaiModels: FakeRoute = {
  method: 'GET',
  path: /^\/v1\/models$/,
  error: openaiError,
  handle(_request, { behaviour }) {
    const named = Object.keys(asObject(behaviour.contextLimit) ?? {}).filter((id) => id !== '*');
    const ids = named.length > 0 ? named : DEFAULT_MODELS;
    return {
      status: 200,
      body: {
        object: 'list',
        data: ids.map((id) => ({ id, object: 'model', created: 1_715_367_049, owned_by: 'chatfold-fake' })),
      },
    };
  },
};
