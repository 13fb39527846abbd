import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import type { ApiError, ApiErrorCode, WebErrorCode } from '../api-types.ts';
import type { Redactor } from './redact.ts';

/** An error a route answers with a status and a code (never a stack trace). */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly status: ContentfulStatusCode;
  readonly code: WebErrorCode;

  constructor(status: ContentfulStatusCode, code: WebErrorCode, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** HTTP status of a library error: bad input is the client's fault, the rest is the server's. */
function statusOf(error: ChatfoldError): ContentfulStatusCode {
  switch (error.code) {
    case 'E_INVALID_OPTIONS':
    case 'E_INVALID_MESSAGE':
    case 'E_INVALID_MESSAGES':
    case 'E_INVALID_TEXT':
    case 'E_MESSAGE_TOO_LARGE':
    case 'E_UNKNOWN_ROLE':
      return 400;
    case 'E_STORE_CONFLICT':
      return 409;
    default:
      return 500;
  }
}

/** The JSON body and status for any error a route throws; messages pass through the redactor (WEB-8). */
export function errorResponse(context: Context, error: unknown, redact: Redactor): Response {
  let status: ContentfulStatusCode = 500;
  let code: ApiErrorCode = 'E_INTERNAL';
  let message = 'internal error';
  if (error instanceof HttpError) {
    ({ status, code, message } = error);
  } else if (ChatfoldError.isInstance(error)) {
    status = statusOf(error);
    code = error.code;
    message = error.message;
  } else if (error instanceof Error) {
    message = error.message;
  }
  const body: ApiError = { error: { code, message: redact(message) } };
  return context.json(body, status);
}
