/**
 * `chatfold_recall` on streamed requests (issue 21). The upstream's stream goes to the client as
 * it arrives, except what the client must not see: the recall calls (the client does not know
 * the tool) and the round's closing events (finish reason, usage, `[DONE]` / `message_stop`),
 * which are held back. When a round ends having called only `chatfold_recall`, the gateway
 * answers from the session's full history, asks the upstream again (streamed) with the calls
 * and their results after the projection, and goes on streaming that answer into the same
 * client stream; the last round's closing events end it. The client sees one answer.
 */
import { MAX_RECALL_ROUNDS, type RecallRounds, sendRecallRound } from './openai-recall.ts';
import { createSseReader, type SseEvent } from './sse-reader.ts';
import { UpstreamError, type UpstreamFormat } from './upstream.ts';

type Json = Record<string, unknown>;

/** One round of a streamed answer as a wire format sees it. */
export interface StreamRound {
  /** One upstream event: the events to send the client now (none when held back or hidden). */
  push(event: SseEvent): readonly SseEvent[];
  /** At the round's end: the next round's turns when it called only recall, else undefined. */
  next(): Promise<{ readonly calls: number; readonly turns: readonly Json[] } | undefined>;
  /** The held-back closing events, sent when this round is the last one. */
  closing(): readonly SseEvent[];
}

/** How one wire format streams recall rounds. */
export interface StreamRecallDialect {
  readonly format: UpstreamFormat;
  readonly path: string;
  /** A round's reader; `index` counts from 0. */
  readonly round: (index: number) => StreamRound;
  /** The request body carrying the projection and the rounds so far (streamed). */
  readonly body: (exchange: readonly Json[]) => string;
}

/** An event as SSE text: `event:` when it has a name, its `data:` lines, a blank line. */
export function sseText({ event, data }: SseEvent): string {
  const lines = data.split('\n').map((line) => `data: ${line}`);
  return `${event === '' ? '' : `event: ${event}\n`}${lines.join('\n')}\n\n`;
}

/** What a failed round is reported as: the upstream's status, or the error's code or name. */
export function recallFailureReason(error: unknown): string {
  if (error instanceof UpstreamError) return `upstream status ${error.status}`;
  if (error instanceof Error) return (error as { code?: unknown }).code?.toString() ?? error.name;
  return typeof error;
}

/**
 * The client's stream of a streamed request offered `chatfold_recall`: the upstream's answer
 * with recall rounds answered by the gateway in between (at most {@link MAX_RECALL_ROUNDS}).
 * A round that fails (the upstream refuses or cannot be reached) ends the stream with what was
 * sent so far and the last closing events, and emits `recall-failed`.
 *
 * @param options The runtime, the conversation, the request's headers and signal, and the
 *   first upstream response's body.
 * @returns The stream to send the client.
 */
export function streamRecallRounds(
  options: Pick<RecallRounds, 'runtime' | 'conversation' | 'incoming' | 'signal'> & {
    readonly first: ReadableStream<Uint8Array>;
  },
  dialect: StreamRecallDialect,
): ReadableStream<Uint8Array> {
  const { runtime, conversation, first } = options;
  const sessionId = conversation.sessionId;
  const encoder = new TextEncoder();
  async function* rounds(): AsyncGenerator<Uint8Array> {
    const exchange: Json[] = [];
    let body = first;
    for (let index = 0; ; index++) {
      const round = dialect.round(index);
      const ready: SseEvent[] = [];
      const parser = createSseReader((event) => ready.push(...round.push(event)));
      const reader = body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.push(value);
          if (ready.length > 0) yield encoder.encode(ready.splice(0).map(sseText).join(''));
        }
        parser.end();
        if (ready.length > 0) yield encoder.encode(ready.splice(0).map(sseText).join(''));
      } finally {
        // The client went away mid-round: the upstream's stream is cancelled too.
        await reader.cancel().catch(() => undefined);
      }
      let following: ReadableStream<Uint8Array> | undefined;
      try {
        const next = index < MAX_RECALL_ROUNDS ? await round.next() : undefined;
        if (next !== undefined) {
          const response = await sendRecallRound(options, dialect, exchange, next);
          if (response.body === null) throw new Error('the upstream answered without a body');
          following = response.body;
        }
      } catch (error) {
        runtime.emit({ type: 'recall-failed', sessionId, stream: true, reason: recallFailureReason(error) });
      }
      if (following === undefined) {
        yield encoder.encode(round.closing().map(sseText).join(''));
        return;
      }
      body = following;
    }
  }
  const iterator = rounds();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return(undefined);
    },
  });
}
