/**
 * Errors in the client's own wire format (issue 21): an OpenAI client reads
 * `{ error: { message, type, code } }`, an Anthropic client `{ type: 'error', error: { type, message } }`,
 * so a gateway refusal looks like any other API error to the SDK.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { UpstreamFormat } from './upstream.ts';

/** A refusal of the gateway itself (bad body, token, host), with a stable `code`. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const ANTHROPIC_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  502: 'api_error',
  503: 'overloaded_error',
};

/**
 * The response for an error in `format`.
 *
 * @param format The client's wire format.
 * @param status HTTP status.
 * @param code A stable code (`E_INVALID_OPTIONS`, `E_UNAUTHORIZED`, …).
 * @param message What failed and how to fix it.
 */
export function wireError(format: UpstreamFormat, status: number, code: string, message: string): Response {
  const body =
    format === 'anthropic'
      ? { type: 'error', error: { type: ANTHROPIC_TYPES[status] ?? 'api_error', message, code } }
      : {
          error: {
            message,
            type: status < 500 ? 'invalid_request_error' : 'server_error',
            code,
            param: null,
          },
        };
  return Response.json(body, { status });
}

/** Status and code of an error thrown on the request path. */
export function describeError(error: unknown): { status: number; code: string; message: string } {
  if (error instanceof GatewayError)
    return { status: error.status, code: error.code, message: error.message };
  if (ChatfoldError.isInstance(error)) {
    const clientFault = [
      'E_INVALID_OPTIONS',
      'E_INVALID_MESSAGE',
      'E_INVALID_MESSAGES',
      'E_INVALID_TEXT',
      'E_MESSAGE_TOO_LARGE',
      'E_UNKNOWN_ROLE',
      'E_INVALID_TOOL_ARGUMENTS',
      'E_INVALID_TOOLS',
      'E_NESTING_TOO_DEEP',
      'E_INVALID_SESSION_ID',
      'E_BUDGET_IMPOSSIBLE',
      'E_CONTEXT_OVERFLOW',
    ].includes(error.code);
    return { status: clientFault ? 400 : 500, code: error.code, message: error.message };
  }
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 600) {
    return {
      status,
      code: String((error as { code?: unknown }).code ?? 'E_GATEWAY'),
      message: (error as Error).message,
    };
  }
  return { status: 500, code: 'E_INTERNAL', message: 'the gateway failed; see its log' };
}
