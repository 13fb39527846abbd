import { ChatfoldError } from '../errors/chatfold-error.ts';

interface ApiErrorLike {
  readonly statusCode?: number;
  readonly url?: string;
  readonly message?: string;
  readonly cause?: unknown;
  readonly responseBody?: string;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ECONNRESET',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);

/** The network error code somewhere in a cause chain (`ECONNREFUSED`), if any. */
function connectionCode(error: unknown, depth = 0): string | undefined {
  if (depth > 6 || typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return code;
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = connectionCode(inner, depth + 1);
      if (found) return found;
    }
  }
  return connectionCode((error as { cause?: unknown }).cause, depth + 1);
}

/**
 * One line that says what failed and what to do (CLI-5), and the stable code, for any error a
 * model call can raise: unreachable server, refused key, unknown model, rate limit, overflow.
 */
export function describeProviderError(
  error: unknown,
  label: string,
  keyVariables: readonly string[] = [],
): { code: string | undefined; message: string } {
  if (ChatfoldError.isInstance(error)) return { code: error.code, message: error.message };
  const api = (typeof error === 'object' && error !== null ? error : {}) as ApiErrorLike;
  const where = api.url === undefined ? label : `${label} (${api.url})`;
  const network = connectionCode(error);
  if (network !== undefined) {
    return {
      code: 'E_PROVIDER',
      message: `cannot reach ${where}: ${network}; start the server or check --base-url`,
    };
  }
  const status = api.statusCode;
  if (status === 401 || status === 403) {
    const check = keyVariables.length === 0 ? 'check the API key' : `check ${keyVariables.join(' or ')}`;
    return { code: 'E_PROVIDER', message: `${where} refused the API key (HTTP ${status}); ${check}` };
  }
  if (status === 404) {
    return {
      code: 'E_PROVIDER',
      message: `${where} does not know this model or path (HTTP 404); check --model and --base-url`,
    };
  }
  if (status === 429)
    return { code: 'E_PROVIDER', message: `${where} is rate limiting (HTTP 429); wait and retry` };
  const text = (api.message ?? String(error)).split('\n')[0] ?? '';
  return {
    code: status === undefined ? undefined : 'E_PROVIDER',
    message: status === undefined ? `${label}: ${text}` : `${where} failed (HTTP ${status}): ${text}`,
  };
}
