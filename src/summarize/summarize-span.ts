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
  } = options;
  const ledger = extractLedger(messages, previousSummary?.ledger);
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
  const prompt = buildSummaryPrompt({
    messages,
    ledger,
    variant,
    maxTokens,
    ...(previousSummary === undefined ? {} : { previousSummary }),
    ...(goal === undefined ? {} : { goal }),
    ...(instructions === undefined ? {} : { instructions }),
  });
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`summarizer timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    const text = await Promise.race([
      summarizer({
        messages,
        ledger,
        variant,
        maxTokens,
        prompt,
        signal: controller.signal,
        ...(previousSummary === undefined ? {} : { previousSummary }),
        ...(goal === undefined ? {} : { goal }),
        ...(instructions === undefined ? {} : { instructions }),
      }),
      timeout,
    ]);
    if (typeof text !== 'string' || text.trim().length < MIN_SUMMARY_CHARS) {
      return extractive(
        `summarizer returned ${typeof text === 'string' ? `only ${text.trim().length} characters` : typeof text}`,
      );
    }
    const tokens = counter.countText(text);
    if (tokens > maxTokens * MAX_OVERSHOOT) {
      return extractive(`summarizer returned ${tokens} tokens, more than twice the limit of ${maxTokens}`);
    }
    return { text: text.trim(), ledger, source: 'llm' };
  } catch (error) {
    return extractive(`summarizer failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}
