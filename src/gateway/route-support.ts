/**
 * Pieces the gateway's routes share (issue 21): reading a JSON body, passing a stream through
 * while watching its events, and the per-request event.
 */
import type { Context } from 'hono';
import type { GatewayEvent } from './gateway-events.ts';
import { type Forwarded, type GatewayRuntime, isCompacted } from './gateway-runtime.ts';
import { createSseReader, type SseEvent } from './sse-reader.ts';
import type { UpstreamFormat } from './upstream.ts';
import { wireError } from './wire-errors.ts';

/** The request body as JSON, or the error response to send. */
export async function readJsonBody(context: Context, format: UpstreamFormat): Promise<unknown> {
  const text = await context.req.text();
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  } catch {
    // Answered below.
  }
  return wireError(format, 400, 'E_INVALID_FORMAT', 'the request body must be a JSON object');
}

/**
 * The upstream's stream, byte for byte, with every SSE event also given to `onEvent`; when it
 * ends, `onEnd` runs (storing the reply) before the client's stream closes.
 */
export function streamThrough(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: SseEvent) => void,
  onEnd: () => Promise<void>,
  runtime: GatewayRuntime,
  sessionId: string,
): ReadableStream<Uint8Array> {
  const reader = createSseReader((event) => {
    try {
      onEvent(event);
    } catch {
      // A malformed event is passed on; only the stored reply misses it.
    }
  });
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(chunk);
        reader.push(chunk);
      },
      async flush() {
        reader.end();
        try {
          await onEnd();
        } catch {
          runtime.emit({ type: 'reply-not-recorded', sessionId, reason: 'store error' });
        }
      },
    }),
  );
}

/** The `request` event of a forwarded call. */
export function requestEvent({
  format,
  route,
  model,
  stream,
  status,
  forwarded,
  started,
}: {
  readonly format: UpstreamFormat;
  readonly route: string | undefined;
  readonly model: string;
  readonly stream: boolean;
  readonly status: number;
  readonly forwarded: Forwarded;
  readonly started: number;
}): GatewayEvent {
  const { conversation, prepared } = forwarded;
  return {
    type: 'request',
    format,
    ...(route === undefined ? {} : { route }),
    model,
    sessionId: conversation.sessionId,
    ...(conversation.branchedFrom === undefined ? {} : { branchedFrom: conversation.branchedFrom }),
    stream,
    status,
    newMessages: conversation.newMessages,
    tokensBefore: prepared.report.tokensBefore,
    tokensAfter: prepared.tokens,
    compacted: isCompacted(conversation, prepared),
    cachedPrefixTokens: prepared.cachedPrefixTokens,
    gatewayMs: Math.round(forwarded.gatewayMs * 100) / 100,
    durationMs: Math.round((performance.now() - started) * 100) / 100,
  };
}
