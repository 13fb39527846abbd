import type { Summarizer, SummarizerOutput, SummaryRequest } from '../summarize/types.ts';
import { answerer, type MockAnswer, wait } from './mock-answer.ts';

/** Options of {@link createMockSummarizer}. */
export interface MockSummarizerOptions {
  /**
   * Stream the summary through `request.onDelta` before returning it, one word (and the space
   * after it) per delta, as a streaming model would. Default `false`.
   */
  readonly stream?: boolean;
  /**
   * Milliseconds to wait before answering (and after each delta when streaming). The wait
   * honours `request.signal`: aborting rejects with the signal's reason. `Infinity` answers
   * only when aborted (a model that hangs). Default 0.
   */
  readonly delayMs?: number;
}

/** A {@link Summarizer} that records the requests it received. */
export interface MockSummarizer extends Summarizer {
  /** Every request, in call order (also the ones that were failed or aborted). */
  readonly calls: SummaryRequest[];
}

/**
 * A summarizer test double (SUM-5): answers with a fixed output, a function of the request, or
 * one output per call; an `Error` answer makes that call fail, so the extractive fallback and
 * the back-off (RT-4) can be tested. Records each {@link SummaryRequest} in `calls`, streams
 * through `onDelta` with `stream: true`, and honours the request's abort signal.
 *
 * @param answer The summary (text or `{ text, model }`), a function of the request, or a
 *   per-call array. A call past the end of the array fails with `E_INVALID_OPTIONS`.
 * @param options Streaming and a delay.
 * @returns The summarizer, with `calls`.
 * @example
 * const summarizer = createMockSummarizer([new Error('503'), { text: 'Fixed the parser.', model: 'mini' }]);
 * const { plan } = await compact(messages, { model: 'gpt-4o', summarizer, mode: 'manual' });
 * expect(summarizer.calls[0]?.prompt.user).toContain('src/parser.ts');
 * @example
 * // A summarizer that hangs until the compaction is aborted.
 * const hanging = createMockSummarizer('never sent', { delayMs: Number.POSITIVE_INFINITY });
 */
export function createMockSummarizer(
  answer: MockAnswer<[request: SummaryRequest], SummarizerOutput>,
  { stream = false, delayMs = 0 }: MockSummarizerOptions = {},
): MockSummarizer {
  const calls: SummaryRequest[] = [];
  const answers = answerer(answer, 'createMockSummarizer');
  const summarizer = async (request: SummaryRequest): Promise<SummarizerOutput> => {
    calls.push(request);
    request.signal.throwIfAborted();
    if (delayMs > 0) await wait(delayMs, request.signal);
    const output = await answers.next([request]);
    if (stream && request.onDelta !== undefined) {
      const text = typeof output === 'string' ? output : output.text;
      for (const delta of text.match(/\S+\s*|\s+/g) ?? []) {
        request.signal.throwIfAborted();
        request.onDelta(delta);
        if (delayMs > 0) await wait(delayMs, request.signal);
      }
    }
    request.signal.throwIfAborted();
    return output;
  };
  return Object.assign(summarizer, { calls });
}
