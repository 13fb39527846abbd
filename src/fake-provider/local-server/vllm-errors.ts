import type { FakeResponse } from '../server.ts';

/** vLLM's error `type` per HTTP status (the name of the HTTP status class it raises). */
const TYPES: Readonly<Record<number, string>> = {
  400: 'BadRequestError',
  401: 'Unauthorized',
  404: 'NotFoundError',
  413: 'BadRequestError',
  415: 'BadRequestError',
  500: 'InternalServerError',
  503: 'ServiceUnavailableError',
};

/**
 * vLLM's OpenAI-compatible error body (vllm/entrypoints/openai, `ErrorResponse`):
 * `{ error: { message, type, param, code } }`.
 */
export function vllmError(status: number, message: string, param: string | null = null): FakeResponse {
  return {
    status,
    body: { error: { message, type: TYPES[status] ?? 'InternalServerError', param, code: status } },
  };
}
