import type { Message } from '../messages/types.ts';
import { type ContextOverflow, contextOverflowError, parseContextOverflow } from './overflow.ts';
import type { FitRequest, PromptFitter } from './prompt-fitter.ts';

/** What {@link retryOnOverflow} runs: fit a prompt, send it, and hear about a retry. */
export interface OverflowRetry<P, T> {
  /** The prompt to send: first without an overflow, then against the one the provider reported. */
  readonly prepare: (overflow: ContextOverflow | undefined) => PromiseLike<P>;
  /** Sends a prepared prompt; throws the provider's error (an overflow is recognised by `parseContextOverflow`). */
  readonly send: (prepared: P) => PromiseLike<T>;
  /** The first attempt when the prompt was fitted elsewhere; default `send(await prepare(undefined))`. */
  readonly first?: () => PromiseLike<T>;
  /** Told once, before the retry. */
  readonly onRetry?: (overflow: ContextOverflow) => void;
}

/**
 * The one overflow retry (RT-3) every integration and the agent runtime use: send; when the
 * provider rejects the prompt as too long, compact against the limit it reported and send
 * once more. Errors that are not overflows pass through unchanged.
 *
 * @throws ChatfoldError `E_CONTEXT_OVERFLOW` with `limit`, `actual` and `provider` when the retry
 *   overflows too (the provider's error is the `cause`) or when nothing fits the reported limit
 *   (the `E_BUDGET_IMPOSSIBLE` error is the `cause`).
 */
export async function retryOnOverflow<P, T>({
  prepare,
  send,
  first = async () => send(await prepare(undefined)),
  onRetry,
}: OverflowRetry<P, T>): Promise<T> {
  try {
    return await first();
  } catch (error) {
    const overflow = parseContextOverflow(error);
    if (overflow === undefined) throw error;
    onRetry?.(overflow);
    let prepared: P;
    try {
      prepared = await prepare(overflow);
    } catch (cause) {
      // E_BUDGET_IMPOSSIBLE and the like: nothing chatfold can send fits the reported limit.
      if ((cause as { name?: unknown } | null)?.name === 'AbortError') throw cause;
      throw contextOverflowError(overflow, { cause });
    }
    try {
      return await send(prepared);
    } catch (retryError) {
      const again = parseContextOverflow(retryError);
      if (again === undefined) throw retryError;
      const limit = again.limit ?? overflow.limit;
      throw contextOverflowError(
        { ...again, ...(limit === undefined ? {} : { limit }) },
        { cause: retryError },
      );
    }
  }
}

/**
 * {@link retryOnOverflow} for a prompt fitter (stateless compaction or a session): the AI SDK
 * middleware and the OpenAI wrapper.
 *
 * @param fitter Stateless compaction or a session.
 * @param request The caller's prompt, tools and model, in neutral form.
 * @param send Converts messages to the provider's format and makes the call.
 * @param first The first attempt, when the prompt was fitted elsewhere (the AI SDK middleware's
 *   `transformParams`); default: `send(await fitter.fit(request))`.
 */
export function callWithOverflowRetry<T>(
  fitter: PromptFitter,
  request: FitRequest,
  send: (messages: readonly Message[]) => PromiseLike<T>,
  first?: () => PromiseLike<T>,
): Promise<T> {
  return retryOnOverflow<readonly Message[], T>({
    prepare: (overflow) => (overflow === undefined ? fitter.fit(request) : fitter.refit(request, overflow)),
    send,
    ...(first === undefined ? {} : { first }),
    onRetry: (overflow) =>
      fitter.emit({
        type: 'overflow-retry',
        provider: overflow.provider,
        ...(overflow.limit === undefined ? {} : { limit: overflow.limit }),
        ...(overflow.actual === undefined ? {} : { actual: overflow.actual }),
      }),
  });
}
