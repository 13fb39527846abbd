import type { FakeResponse } from '../server.ts';

/** Google's canonical status per HTTP status (ai.google.dev, "Troubleshooting"). */
const STATUSES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  // Google's APIs answer an oversized payload and a non-JSON body with INVALID_ARGUMENT.
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Google's real error body: `{ error: { code, message, status } }`. */
export function geminiError(status: number, message: string): FakeResponse {
  return { status, body: { error: { code: status, message, status: STATUSES[status] ?? 'UNKNOWN' } } };
}

/** Gemini's context-overflow error, as the API sends it (400 INVALID_ARGUMENT). */
export function geminiContextOverflow(limit: number, actual: number): FakeResponse {
  return geminiError(
    400,
    `The input token count (${actual}) exceeds the maximum number of tokens allowed (${limit}).`,
  );
}
