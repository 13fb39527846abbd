import type { Message } from '../messages/types.ts';
import { contextOverflowError, parseContextOverflow } from './overflow.ts';
import type { FitRequest, PromptFitter } from './prompt-fitter.ts';

/**
 * Fits the prompt and sends it; when the provider rejects it as too long (RT-3), compacts against
 * the limit the error reported and sends once more. Errors that are not overflows pass through
 * unchanged.
 *
 * @param fitter Stateless compaction or a session.
 * @param request The caller's prompt, tools and model, in neutral form.
 * @param send Converts messages to the provider's format and makes the call.
 * @param first The first attempt, when the prompt was fitted elsewhere (the AI SDK middleware's
 *   `transformParams`); default: `send(await fitter.fit(request))`.
 * @returns What `send` (or `first`) returned.
 * @throws ChatfoldError `E_CONTEXT_OVERFLOW` with `limit`, `actual` and `provider` when the retry
 *   overflows too (the provider's error is the `cause`) or when nothing fits the reported limit
 *   (the `E_BUDGET_IMPOSSIBLE` error is the `cause`).
 */
export async function callWithOverflowRetry<T>(
  fitter: PromptFitter,
  request: FitRequest,
  send: (messages: readonly Message[]) => PromiseLike<T>,
  first: () => PromiseLike<T> = async () => send(await fitter.fit(request)),
): Promise<T> {
  try {
    return await first();
  } catch (error) {
    const overflow = parseContextOverflow(error);
    if (overflow === undefined) throw error;
    fitter.emit({
      type: 'overflow-retry',
      provider: overflow.provider,
      ...(overflow.limit === undefined ? {} : { limit: overflow.limit }),
      ...(overflow.actual === undefined ? {} : { actual: overflow.actual }),
    });
    let messages: readonly Message[];
    try {
      messages = await fitter.refit(request, overflow);
    } catch (cause) {
      // E_BUDGET_IMPOSSIBLE and the like: nothing chatfold can send fits the reported limit.
      throw contextOverflowError(overflow, { cause });
    }
    try {
      return await send(messages);
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
