import type { FakeResponse } from '../server.ts';

/** Anthropic's error `type` per HTTP status (docs.anthropic.com, "Errors"). */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

let requestCounter = 0;

/** Anthropic's real error body: `{ type: 'error', error: { type, message }, request_id }`. */
export function anthropicError(status: number, message: string): FakeResponse {
  requestCounter += 1;
  const requestId = `req_fake${String(requestCounter).padStart(8, '0')}`;
  return {
    status,
    headers: { 'request-id': requestId },
    body: {
      type: 'error',
      error: { type: ERROR_TYPES[status] ?? 'api_error', message },
      request_id: requestId,
    },
  };
}

/** Anthropic's context-overflow error, as the API sends it (400 invalid_request_error). */
export function anthropicContextOverflow(limit: number, actual: number): FakeResponse {
  return anthropicError(400, `prompt is too long: ${actual} tokens > ${limit} maximum`);
}
