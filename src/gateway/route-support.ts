/**
 * Pieces the gateway's routes share (issue 21): reading a JSON body, passing a stream through
 * while watching its events, the per-request event, and answering the client once forwarded.
 */
import type { Context } from 'hono';
import type { Message } from '../messages/types.ts';
import { forwardErrorResponse } from './forward-errors.ts';
import type { GatewayEvent } from './gateway-events.ts';
import { type Forwarded, type GatewayRuntime, isCompacted } from './gateway-runtime.ts';
import type { UpstreamAnswer } from './openai-recall.ts';
import { recallFailureReason } from './recall-stream.ts';
import { errorCode } from './session-fallbacks.ts';
import { createSseReader, type SseEvent } from './sse-reader.ts';
import { passedResponseHeaders, type UpstreamFormat } from './upstream.ts';
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
        } catch (error) {
          runtime.emit({
            type: 'reply-not-recorded',
            sessionId,
            reason: 'store error',
            code: errorCode(error),
          });
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

/** The upstream's reply in one wire format: its usage and, when there is one, the message. */
export interface WireReply {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/** How one wire format reads its upstream's reply: the only difference between the chat routes once forwarded. */
export interface ReplyReader<R extends WireReply> {
  /** Collects a streamed reply from its SSE events' data. */
  readonly collect: () => { push(data: string): void; result(): R };
  /** The reply of a whole (JSON) answer; throws when it is not one. */
  readonly parse: (json: unknown) => R;
  /** The reply as a neutral message to store, or undefined when there is none or it does not convert. */
  readonly toMessage: (reply: R) => Message | undefined;
}

/**
 * Answers the client once a request was forwarded: the upstream's answer byte for byte with
 * the gateway's headers (a stream passed through — through `streamRecall` when given — the
 * reply stored when it ends), a whole answer first through `recall` when given, its reply
 * stored, the `request` event emitted.
 */
export async function answerForwarded<R extends WireReply>({
  runtime,
  format,
  route,
  model,
  stream,
  started,
  forwarded,
  reader,
  recall,
  streamRecall,
}: {
  readonly runtime: GatewayRuntime;
  readonly format: UpstreamFormat;
  readonly route: string | undefined;
  readonly model: string;
  readonly stream: boolean;
  readonly started: number;
  readonly forwarded: Forwarded;
  readonly reader: ReplyReader<R>;
  /** Answers the gateway's recall tool calls between upstream calls (whole answers). */
  readonly recall?: ((first: UpstreamAnswer) => Promise<UpstreamAnswer>) | undefined;
  /** The same for a streamed answer: the client's stream, recall rounds answered inside it. */
  readonly streamRecall?: ((first: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>) | undefined;
}): Promise<Response> {
  const { response, conversation, prepared } = forwarded;
  const headers = passedResponseHeaders(response.headers);
  for (const [name, value] of Object.entries(runtime.headers(conversation, prepared)))
    headers.set(name, value);
  const report = (status: number) =>
    runtime.emit(requestEvent({ format, route, model, stream, status, forwarded, started }));
  const record = (reply: R | WireReply, message: Message | undefined) =>
    runtime.recordReply(conversation, message, reply);
  if (stream && response.body !== null) {
    const collector = reader.collect();
    report(response.status);
    return new Response(
      streamThrough(
        streamRecall === undefined ? response.body : streamRecall(response.body),
        (event) => collector.push(event.data),
        async () => {
          const reply = collector.result();
          await record(reply, reader.toMessage(reply));
        },
        runtime,
        conversation.sessionId,
      ),
      { status: response.status, headers },
    );
  }
  let answer: UpstreamAnswer = {
    status: response.status,
    headers: response.headers,
    text: await response.text(),
  };
  if (recall !== undefined) {
    try {
      answer = await recall(answer);
    } catch (error) {
      runtime.emit({
        type: 'recall-failed',
        sessionId: conversation.sessionId,
        stream: false,
        reason: recallFailureReason(error),
      });
      return forwardErrorResponse(runtime, format, model, error);
    }
  }
  let reply: R | undefined;
  try {
    reply = reader.parse(JSON.parse(answer.text));
  } catch {
    // Not JSON: passed on as it came; nothing to store.
  }
  try {
    await record(reply ?? {}, reply === undefined ? undefined : reader.toMessage(reply));
  } catch (error) {
    runtime.emit({
      type: 'reply-not-recorded',
      sessionId: conversation.sessionId,
      reason: 'store error',
      code: errorCode(error),
    });
  }
  report(answer.status);
  return new Response(answer.text, { status: answer.status, headers });
}
