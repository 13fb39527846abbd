import { extractiveSummary } from './extractive.ts';
import { extractLedger } from './ledger.ts';
import { buildSummaryPrompt } from './prompts.ts';
import type { SummarizeSpanOptions, SummaryResult } from './types.ts';

/** An LLM summary shorter than this many characters is treated as a failure (RT-4). */
const MIN_SUMMARY_CHARS = 40;
/** An LLM summary longer than this multiple of `maxTokens` is treated as a failure. */
const MAX_OVERSHOOT = 2;

/**
 * Summarizes a span (STR-5): the ledger is always extracted (SUM-4); a custom summary (HK-1)
 * wins, else the LLM summarizer is called with the prompt and a timeout; a throw, a timeout,
 * or empty / oversized output falls back to the extractive summary with the reason (RT-4).
 */
export async function summarizeSpan(options: SummarizeSpanOptions): Promise<SummaryResult> {
  const {
    messages,
    previousSummary,
    goal,
    summarizer,
    instructions,
    customSummary,
    variant,
    maxTokens,
    timeoutMs,
    counter,
    summarizerWindow,
    summarizerCounter = counter,
    cache,
    signal,
    onDelta,
  } = options;
  signal?.throwIfAborted();
  const ledger = extractLedger(messages, previousSummary?.ledger, undefined, cache);
  const extractive = (fallbackReason?: string): SummaryResult => ({
    text: extractiveSummary({
      messages,
      maxTokens,
      counter,
      ...(previousSummary === undefined ? {} : { previousSummary }),
      ...(goal === undefined ? {} : { goal }),
    }),
    ledger,
    source: 'extractive',
    ...(fallbackReason === undefined ? {} : { fallbackReason }),
  });
  if (customSummary !== undefined && customSummary.trim() !== '') {
    return { text: customSummary.trim(), ledger, source: 'custom' };
  }
  if (summarizer === undefined) return extractive();
  // The request is the prompt plus the answer: both within the summarizer's own window.
  const maxPromptTokens = summarizerWindow === undefined ? undefined : summarizerWindow - maxTokens;
  if (maxPromptTokens !== undefined && maxPromptTokens <= 0) {
    return extractive(
      `the summarizer's window (${summarizerWindow} tokens) leaves no room for a prompt beside a ${maxTokens}-token answer`,
    );
  }
  const { leftOutMessages, ...prompt } = buildSummaryPrompt({
    messages,
    ledger,
    variant,
    maxTokens,
    ...(previousSummary === undefined ? {} : { previousSummary }),
    ...(goal === undefined ? {} : { goal }),
    ...(instructions === undefined ? {} : { instructions }),
    ...(maxPromptTokens === undefined ? {} : { maxPromptTokens, counter: summarizerCounter }),
  });
  if (
    maxPromptTokens !== undefined &&
    summarizerCounter.countText(prompt.system) + summarizerCounter.countText(prompt.user) > maxPromptTokens
  ) {
    return extractive(
      `the summary prompt does not fit the summarizer's window (${summarizerWindow} tokens) even without the messages`,
    );
  }
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`summarizer timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    onAbort = () => {
      controller.abort(signal?.reason);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const output = await Promise.race([
      summarizer({
        messages: leftOutMessages === 0 ? messages : messages.slice(leftOutMessages),
        ledger,
        variant,
        maxTokens,
        prompt,
        signal: controller.signal,
        ...(onDelta === undefined ? {} : { onDelta }),
        ...(previousSummary === undefined ? {} : { previousSummary }),
        ...(goal === undefined ? {} : { goal }),
        ...(instructions === undefined ? {} : { instructions }),
      }),
      stopped,
    ]);
    const text = typeof output === 'string' ? output : output?.text;
    const model = typeof output === 'object' && output !== null ? output.model : undefined;
    if (typeof text !== 'string' || text.trim().length < MIN_SUMMARY_CHARS) {
      return extractive(
        `summarizer returned ${typeof text === 'string' ? `only ${text.trim().length} characters` : typeof text}`,
      );
    }
    const tokens = counter.countText(text);
    if (tokens > maxTokens * MAX_OVERSHOOT) {
      return extractive(`summarizer returned ${tokens} tokens, more than twice the limit of ${maxTokens}`);
    }
    return { text: text.trim(), ledger, source: 'llm', ...(typeof model === 'string' ? { model } : {}) };
  } catch (error) {
    // The caller aborted: that is not a summarizer fault to fall back from.
    if (signal?.aborted) throw signal.reason;
    return extractive(`summarizer failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
}
