import type { FakeResponse } from '../server.ts';

/** OpenAI's error `type` and `code` per HTTP status (platform.openai.com, "Error codes"). */
const ERROR_KINDS: Readonly<Record<number, { type: string; code: string | null }>> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  413: { type: 'invalid_request_error', code: 'request_too_large' },
  415: { type: 'invalid_request_error', code: null },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
};

let requestCounter = 0;

/** OpenAI's real error body `{ error: { message, type, param, code } }` with an `x-request-id`. */
export function openaiError(
  status: number,
  message: string,
  detail: { readonly param?: string | null; readonly code?: string | null; readonly type?: string } = {},
): FakeResponse {
  requestCounter += 1;
  const kind = ERROR_KINDS[status] ?? { type: 'server_error', code: null };
  return {
    status,
    headers: { 'x-request-id': `req_fake${String(requestCounter).padStart(8, '0')}` },
    body: {
      error: {
        message,
        type: detail.type ?? kind.type,
        param: detail.param ?? null,
        code: detail.code === undefined ? kind.code : detail.code,
      },
    },
  };
}

/**
 * OpenAI's context-overflow error, byte for byte as the API sends it (400,
 * `code: 'context_length_exceeded'`; openai/openai-python issues and the Chat Completions docs).
 */
export function openaiContextOverflow(limit: number, actual: number): FakeResponse {
  return openaiError(
    400,
    `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${actual} tokens. Please reduce the length of the messages.`,
    { param: 'messages', code: 'context_length_exceeded' },
  );
}
