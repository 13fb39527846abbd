/**
 * What the client gets when forwarding fails (issue 21): the upstream's own error response,
 * unchanged, when there is one (also after a failed overflow retry, where it is the `cause`);
 * a 502 when the upstream cannot be reached; otherwise the gateway's error in the client's format.
 */
import type { GatewayRuntime } from './gateway-runtime.ts';
import { passedResponseHeaders, UpstreamError, type UpstreamFormat } from './upstream.ts';
import { describeError, wireError } from './wire-errors.ts';

/** The upstream's error in a chain of causes. */
function upstreamErrorIn(error: unknown): UpstreamError | undefined {
  let node: unknown = error;
  for (let depth = 0; depth < 8 && node !== undefined && node !== null; depth++) {
    if (node instanceof UpstreamError) return node;
    node = (node as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The response for an error thrown while forwarding.
 *
 * @param runtime Where the event goes.
 * @param format The client's wire format.
 * @param model The request's model (for the event).
 * @param error What was thrown.
 */
export function forwardErrorResponse(
  runtime: GatewayRuntime,
  format: UpstreamFormat,
  model: string,
  error: unknown,
): Response {
  if ((error as { name?: unknown } | null)?.name === 'AbortError') {
    return wireError(format, 499, 'E_ABORTED', 'the client closed the request');
  }
  const upstream = upstreamErrorIn(error);
  if (upstream !== undefined) {
    runtime.emit({ type: 'upstream-error', status: upstream.status, model });
    return new Response(upstream.responseBody, {
      status: upstream.status,
      headers: passedResponseHeaders(upstream.headers),
    });
  }
  if (error instanceof TypeError) {
    const reason = String((error.cause as { code?: unknown } | undefined)?.code ?? error.message);
    runtime.emit({ type: 'upstream-unreachable', reason });
    return wireError(
      format,
      502,
      'E_UPSTREAM_UNREACHABLE',
      `the gateway could not reach its upstream (${reason}); check --upstream and that the model server is running`,
    );
  }
  const described = describeError(error);
  if (described.status >= 500) {
    runtime.emit({ type: 'error', where: 'forward', code: described.code });
  }
  return wireError(format, described.status, described.code, described.message);
}
