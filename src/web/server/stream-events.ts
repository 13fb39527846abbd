import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { AgentEvent } from '../../agent/types.ts';
import type { CompactionReport } from '../../compaction/types.ts';
import type { ApiErrorCode, Gauge, StreamEvent, WireCompactionResult } from '../api-types.ts';
import type { Redactor } from './redact.ts';
import { MAX_WIRE_TOOL_TEXT, preview } from './wire-message.ts';

/** Characters of the summary shown in the result (FR-2.4.3: the first 200). */
export const SUMMARY_PREVIEW_CHARS = 200;

/** A comment line keeps idle streams (a slow summarizer) open through proxies. */
const KEEPALIVE_MS = 15_000;

/** A compaction report as the browser needs it (no ledger, no plan, bounded text). */
export function toCompactionResult(report: CompactionReport, durationMs: number): WireCompactionResult {
  const summary = report.summary;
  return {
    compacted: report.compacted,
    mode: report.mode,
    reason: report.reason,
    tokensBefore: report.tokensBefore,
    ...(report.tokensBeforeEstimated === true ? { tokensBeforeEstimated: true as const } : {}),
    tokensAfter: report.tokensAfter,
    messagesBefore: report.messagesBefore,
    messagesAfter: report.messagesAfter,
    ...(summary === undefined
      ? {}
      : {
          messagesSummarized: summary.covers.count,
          messagesAdded:
            report.stages.find((stage) => stage.stage === 'summarize')?.summarized ?? summary.covers.count,
          summaryPreview: summary.text.slice(0, SUMMARY_PREVIEW_CHARS),
          summarySource: summary.source,
        }),
    durationMs: Math.round(durationMs),
  };
}

/** One agent event as the browser sees it, or `undefined` for events it does not need. */
export function toStreamEvent(event: AgentEvent): StreamEvent | undefined {
  switch (event.type) {
    case 'step-start':
      return { type: 'step-start', step: event.step, promptTokens: event.promptTokens };
    case 'text-delta':
      return { type: 'text-delta', text: event.text };
    case 'reasoning-delta':
      return { type: 'reasoning-delta', text: event.text };
    case 'tool-call':
      return {
        type: 'tool-call',
        callId: event.callId,
        toolName: event.toolName,
        input: preview(JSON.stringify(event.input) ?? 'null', MAX_WIRE_TOOL_TEXT),
        ...(event.path === undefined ? {} : { path: event.path }),
      };
    case 'tool-result':
      return {
        type: 'tool-result',
        callId: event.callId,
        toolName: event.toolName,
        output: preview(event.output, MAX_WIRE_TOOL_TEXT),
        chars: event.output.length,
        isError: event.isError,
        truncated: event.truncated,
      };
    case 'usage':
      return {
        type: 'usage',
        ...(event.inputTokens === undefined ? {} : { inputTokens: event.inputTokens }),
        ...(event.outputTokens === undefined ? {} : { outputTokens: event.outputTokens }),
      };
    case 'compaction-start':
      return {
        type: 'compaction-start',
        mode: event.mode,
        tokens: event.tokens,
        messages: event.messages,
      };
    case 'compaction-progress':
      // A stage starting is not shown; summary text as it streams is (FR-2.4.2).
      return event.delta === undefined || event.delta === ''
        ? undefined
        : { type: 'compaction-progress', text: event.delta };
    case 'compaction-end':
      return { type: 'compaction-end', result: toCompactionResult(event.report, event.durationMs) };
    case 'compaction-fallback':
      return { type: 'compaction-fallback', reason: event.reason };
    case 'compaction-error':
      return { type: 'compaction-error', message: event.message };
    case 'error':
      // Only the code and the one-line message: the raw error can hold request details. The
      // agent's codes are ChatfoldError codes or the web app's own (typed as string there).
      return {
        type: 'error',
        ...(event.code === undefined ? {} : { code: event.code as ApiErrorCode }),
        message: event.message,
      };
    case 'message':
    case 'done':
    // The gauge reads status().underReport; the turn itself needs no event.
    case 'usage-under-reported':
      return undefined;
  }
}

/** Options of {@link streamAgentEvents}. */
export interface StreamAgentEventsOptions {
  /** Starts the run with the stream's abort signal (closed tab, Stop button). */
  readonly run: (signal: AbortSignal) => AsyncIterable<AgentEvent>;
  /** The gauge after the run, sent right before `done` (WEB-2: right after a compaction). */
  readonly gauge: () => Promise<Gauge>;
  readonly redact: Redactor;
  /**
   * Stops the run without closing the stream (`POST …/stop`): what the run produced is stored,
   * then the gauge and `done: aborted` are still sent.
   */
  readonly stop?: AbortSignal;
  /** Called once when the stream ends, whatever the reason; `done` is sent after it settles. */
  readonly onEnd: () => void | Promise<void>;
}

async function send(stream: SSEStreamingApi, event: StreamEvent, redact: Redactor): Promise<void> {
  await stream.writeSSE({ event: event.type, data: redact(JSON.stringify(event)) });
}

/**
 * Streams one turn, summary or regeneration as server-sent events (one stream per turn):
 * text deltas, tool calls, usage, compaction start / progress / end / fallback, then the
 * gauge and `done`. The browser closing the connection aborts the run; messages already
 * produced stay in the session (AG-3).
 */
export function streamAgentEvents(context: Context, options: StreamAgentEventsOptions): Response {
  const { run, gauge, redact, onEnd, stop } = options;
  const controller = new AbortController();
  const request = context.req.raw.signal;
  const abort = (): void => controller.abort(new DOMException('the browser closed the stream', 'AbortError'));
  const stopRun = (): void => controller.abort(stop?.reason);
  if (request.aborted) abort();
  else request.addEventListener('abort', abort, { once: true });
  if (stop?.aborted === true) stopRun();
  else stop?.addEventListener('abort', stopRun, { once: true });
  context.header('Cache-Control', 'no-store');
  context.header('X-Accel-Buffering', 'no');
  return streamSSE(
    context,
    async (stream) => {
      stream.onAbort(abort);
      const keepalive = setInterval(() => {
        void stream.write(': keepalive\n\n').catch(abort);
      }, KEEPALIVE_MS);
      let reason: Extract<StreamEvent, { type: 'done' }>['reason'] = 'stop';
      try {
        for await (const event of run(controller.signal)) {
          if (event.type === 'done') {
            reason = event.reason;
            break;
          }
          const wire = toStreamEvent(event);
          if (wire !== undefined && !stream.aborted) await send(stream, wire, redact);
        }
        if (!stream.aborted) {
          await send(stream, { type: 'gauge', gauge: await gauge() }, redact);
        }
      } catch (error) {
        reason = controller.signal.aborted ? 'aborted' : 'error';
        if (!stream.aborted && reason === 'error') {
          await send(
            stream,
            { type: 'error', message: error instanceof Error ? error.message : String(error) },
            redact,
          );
        }
      } finally {
        clearInterval(keepalive);
        request.removeEventListener('abort', abort);
        stop?.removeEventListener('abort', stopRun);
        // Settled before `done`: a client that sends its next turn on `done` finds the session free.
        await onEnd();
      }
      if (!stream.aborted) await send(stream, { type: 'done', reason }, redact);
    },
    async (error, stream) => {
      await send(stream, { type: 'error', message: redact(error.message) }, redact);
      await send(stream, { type: 'done', reason: 'error' }, redact);
    },
  );
}
