import type { AgentEvent } from '../../agent/types.ts';
import type { WebErrorCode } from '../api-types.ts';
import type { WebLog } from './web-log.ts';

/** How long a manual summary or a regeneration may take before it fails (FR-5.1.2). */
export const DEFAULT_SUMMARY_TIMEOUT_MS = 120_000;
/**
 * Longest summary text accepted from the summarizer, in characters (about 8,000 tokens): a
 * summarizer that runs on is stopped here and the attempt fails, instead of streaming for
 * minutes. The engine asks for far less (its prompt names a token budget).
 */
export const DEFAULT_MAX_SUMMARY_CHARS = 32_000;

/** The limits of a manual summary (the app's options; tests shorten them). */
export interface SummaryLimits {
  readonly timeoutMs: number;
  readonly maxChars: number;
}

/** Options of {@link manualSummary}. */
export interface ManualSummaryOptions {
  readonly sessionId: string;
  /** `summarize` ("Summarize conversation history") or `regenerate` ("Regenerate summary"). */
  readonly mode: 'summarize' | 'regenerate';
  readonly limits: SummaryLimits;
  readonly log: WebLog;
  /** Starts the agent's summary with the signal that stops it. */
  readonly start: (signal: AbortSignal) => AsyncIterable<AgentEvent>;
  /** Aborted when the browser closes the stream (the dialog's Cancel). */
  readonly signal: AbortSignal;
}

type FailureCode = Extract<WebErrorCode, 'E_SUMMARY_TIMEOUT' | 'E_SUMMARY_TOO_LONG' | 'E_SUMMARY_FAILED'>;

/** Why a summary attempt failed, carried as the abort reason of its own controller. */
class SummaryFailure extends Error {
  override readonly name = 'SummaryFailure';
  readonly code: FailureCode;
  constructor(code: FailureCode, message: string) {
    super(message);
    this.code = code;
  }
}

const done = (reason: 'aborted' | 'error'): AgentEvent => ({
  type: 'done',
  reason,
  steps: 0,
  text: '',
  usage: { inputTokens: undefined, outputTokens: undefined },
});

/**
 * A manual summary or regeneration as the web app runs it (FR-5.1.2, issue 23 item 1):
 * failure is failure.
 *
 * - It has a deadline (`limits.timeoutMs`) and a bounded output (`limits.maxChars` of streamed
 *   summary text); past either, the summary call is aborted through the signal the engine
 *   passes to the summarizer, so no request keeps running.
 * - A summarizer that fails, whether the engine rejects or answers with a plan whose
 *   `fallbacks` are not empty (an extractive text in place of the model's), ends the stream
 *   with one `error` event (`E_SUMMARY_FAILED`, `E_SUMMARY_TIMEOUT`, `E_SUMMARY_TOO_LONG`) and
 *   never with a `compaction-end`: the browser shows the error with Retry, never "Done", and
 *   never presents an extractive text as a model summary.
 * - The browser closing the stream (Cancel) aborts the request too; that ends with
 *   `done: aborted` and no error.
 * - Every failure is logged as one structured line (session, mode, cause).
 */
export async function* manualSummary(options: ManualSummaryOptions): AsyncGenerator<AgentEvent> {
  const { sessionId, mode, limits, log, start, signal } = options;
  const controller = new AbortController();
  const cancel = (): void => controller.abort(signal.reason);
  if (signal.aborted) cancel();
  else signal.addEventListener('abort', cancel, { once: true });
  const timer = setTimeout(() => {
    controller.abort(
      new SummaryFailure(
        'E_SUMMARY_TIMEOUT',
        `the summarizer did not finish within ${Math.round(limits.timeoutMs / 1000).toLocaleString('en-US')} s`,
      ),
    );
  }, limits.timeoutMs);
  let chars = 0;
  let failure: SummaryFailure | undefined;
  const fallbacks: string[] = [];
  try {
    for await (const event of start(controller.signal)) {
      if (event.type === 'done') break;
      if (event.type === 'compaction-progress' && event.delta !== undefined) {
        chars += event.delta.length;
        if (chars > limits.maxChars && !controller.signal.aborted) {
          controller.abort(
            new SummaryFailure(
              'E_SUMMARY_TOO_LONG',
              `the summarizer wrote more than ${limits.maxChars.toLocaleString('en-US')} characters; it was stopped`,
            ),
          );
        }
      }
      if (event.type === 'compaction-fallback') {
        // Kept for the failure's cause; an extractive stand-in is not shown as progress.
        fallbacks.push(event.reason);
        continue;
      }
      if (event.type === 'compaction-end') {
        const report = event.report;
        const reasons = [...fallbacks, ...report.fallbacks.map((fallback) => fallback.reason)];
        if (reasons.length > 0 || report.summary?.source === 'extractive') {
          failure ??= new SummaryFailure(
            'E_SUMMARY_FAILED',
            `the summarizer failed (${reasons[0] ?? 'no model summary was written'})`,
          );
          continue;
        }
      }
      if (event.type === 'error') {
        failure ??= new SummaryFailure('E_SUMMARY_FAILED', event.message);
        continue;
      }
      if (controller.signal.aborted) continue; // after a deadline: nothing more is shown
      yield event;
    }
  } catch (error) {
    if (!controller.signal.aborted)
      failure ??= new SummaryFailure(
        'E_SUMMARY_FAILED',
        error instanceof Error ? error.message : String(error),
      );
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', cancel);
  }
  const reason: unknown = controller.signal.reason;
  if (reason instanceof SummaryFailure) failure = reason;
  if (failure === undefined && controller.signal.aborted) {
    log({ level: 'info', event: 'summary-cancelled', sessionId, mode });
    yield done('aborted');
    return;
  }
  if (failure === undefined) return;
  log({
    level: 'warn',
    event: 'summary-failed',
    sessionId,
    mode,
    code: failure.code,
    cause: failure.message,
    ...(fallbacks.length === 0 ? {} : { fallback: fallbacks.join('; ') }),
  });
  yield { type: 'error', code: failure.code, message: failure.message, error: failure };
  yield done('error');
}
