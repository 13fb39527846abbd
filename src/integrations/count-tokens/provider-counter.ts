import { contentHash } from '../../messages/content-hash.ts';
import type { Message, ToolDefinition } from '../../messages/types.ts';
import type { ExactTokenCounter, TokenCount, TokenCounter } from '../../tokens/types.ts';

/** Default timeout of one count-tokens request (TOK-4). */
export const DEFAULT_COUNT_TIMEOUT_MS = 5000;
/** Default number of provider counts kept by content hash. */
export const DEFAULT_COUNT_CACHE_SIZE = 1000;

/** Why a provider count fell back to the local estimate (TOK-4). */
export interface CountFallback {
  /** `timed out after 5000 ms`, or the provider's error, e.g. `529 {"type":"error",…}`. */
  readonly reason: string;
  readonly model: string;
  /** Accuracy of the estimate returned instead: `calibrated` or `approximate`. */
  readonly accuracy: TokenCount['accuracy'];
  readonly error?: unknown;
}

/** Options shared by the provider-backed counters. */
export interface ProviderCounterOptions {
  /** Model id sent to the provider, e.g. `claude-sonnet-4-5`. */
  readonly model: string;
  /** Local counter for the synchronous methods and whenever the provider cannot answer. */
  readonly fallback: TokenCounter;
  /** Milliseconds one provider request may take. Default {@link DEFAULT_COUNT_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Provider counts kept by content hash. Default {@link DEFAULT_COUNT_CACHE_SIZE}. */
  readonly cacheSize?: number;
  /** Told whenever a count falls back (the library never writes to the console). */
  readonly onFallback?: (fallback: CountFallback) => void;
}

/** Asks the provider for the input tokens of a prompt; throws on any failure. */
export type ProviderCount = (
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  signal: AbortSignal,
) => Promise<number>;

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Wraps a provider count-tokens call as a `TokenCounter` (TOK-4). The synchronous methods are
 * the local estimate; `countExact` asks the provider — cached by content hash (model, roles,
 * names, parts, tools), concurrent identical requests shared, bounded by a timeout — and
 * reports `exact`. When the provider fails or times out it returns the local estimate, whose
 * `calibrated`/`approximate` accuracy makes `computeBudget` keep a wider safety margin, and
 * calls `onFallback` with the reason. An abort through the caller's own `signal` rejects.
 *
 * @param tokenizer - Id reported on exact counts, e.g. `anthropic:count_tokens`.
 * @param request - The provider call.
 */
export function createProviderTokenCounter(
  tokenizer: string,
  request: ProviderCount,
  {
    model,
    fallback,
    timeoutMs = DEFAULT_COUNT_TIMEOUT_MS,
    cacheSize = DEFAULT_COUNT_CACHE_SIZE,
    onFallback,
  }: ProviderCounterOptions,
): ExactTokenCounter {
  const cache = new Map<string, number>();
  const inFlight = new Map<string, Promise<number>>();

  const ask = (key: string, messages: readonly Message[], tools: readonly ToolDefinition[]) => {
    let pending = inFlight.get(key);
    if (pending === undefined) {
      const signal = AbortSignal.timeout(timeoutMs);
      pending = request(messages, tools, signal)
        .then((total) => {
          if (!Number.isInteger(total) || total < 0)
            throw new Error(`the provider returned ${JSON.stringify(total)} input tokens`);
          if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
          cache.set(key, total);
          return total;
        })
        .catch((error: unknown) => {
          throw signal.aborted ? new Error(`timed out after ${timeoutMs} ms`, { cause: error }) : error;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };

  return {
    tokenizer: fallback.tokenizer,
    accuracy: fallback.accuracy,
    countText: (text) => fallback.countText(text),
    countMessage: (message) => fallback.countMessage(message),
    count: (messages, options) => fallback.count(messages, options),
    async countExact(messages, options = {}): Promise<TokenCount> {
      const tools = options.tools ?? [];
      const estimate = fallback.count(messages, { tools });
      const key = contentHash(
        JSON.stringify([model, messages.map((m) => [m.role, m.name ?? null, m.parts]), tools]),
      );
      let total = cache.get(key);
      if (total === undefined) {
        options.signal?.throwIfAborted();
        try {
          const pending = ask(key, messages, tools);
          total = await (options.signal === undefined ? pending : abortable(pending, options.signal));
        } catch (error) {
          if (options.signal?.aborted === true) throw options.signal.reason;
          onFallback?.({ reason: describeError(error), model, accuracy: estimate.accuracy, error });
          return estimate;
        }
      }
      // The provider returns only a total: spread it over messages in proportion to the estimate.
      const scale = estimate.total > 0 ? total / estimate.total : 1;
      return {
        total,
        perMessage: estimate.perMessage.map((n) => Math.round(n * scale)),
        tools: Math.round(estimate.tools * scale),
        overhead: Math.round(estimate.overhead * scale),
        tokenizer,
        accuracy: 'exact',
      };
    },
  };
}

/** Rejects as soon as `signal` aborts, without cancelling the shared request. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
