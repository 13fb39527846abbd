import type { FakeResponse } from '../server.ts';

/** llama.cpp server's error `type` per HTTP status (tools/server, `format_error_response`). */
const TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  500: 'server_error',
  501: 'not_supported_error',
  503: 'unavailable_error',
};

/** llama.cpp server's error body: `{ error: { code, message, type } }`. */
export function llamaCppError(status: number, message: string): FakeResponse {
  return { status, body: { error: { code: status, message, type: TYPES[status] ?? 'server_error' } } };
}
