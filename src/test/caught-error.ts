import { ChatfoldError } from '../errors/chatfold-error.ts';

/**
 * The `ChatfoldError` a call throws, for asserting on its code and details; anything else it
 * throws is rethrown, and not throwing at all fails.
 *
 * @example
 * expect(caughtError(() => fromOpenAI(bad)).code).toBe('E_INVALID_MESSAGE');
 */
export function caughtError(run: () => unknown): ChatfoldError {
  try {
    run();
  } catch (caught) {
    if (ChatfoldError.isInstance(caught)) return caught;
    throw caught;
  }
  throw new Error('expected a ChatfoldError');
}
