import { ChatfoldError } from '../errors/chatfold-error.ts';

/**
 * What a test double answers, in the style of the AI SDK's `ai/test` mocks: one answer for
 * every call, a function of the call's arguments (sync or async), or one answer per call in
 * order. An `Error` given as an answer is thrown (rejected) instead of returned.
 *
 * @example
 * createMockSummarizer('One summary for every call');
 * createMockSummarizer((request) => `Summary of ${request.messages.length} messages`);
 * createMockSummarizer([new Error('503 Service Unavailable'), 'The retry worked']);
 */
export type MockAnswer<Args extends readonly unknown[], T> =
  | T
  | Error
  | ((...args: Args) => T | Error | PromiseLike<T | Error>)
  | readonly (T | Error)[];

/** How a double turns its {@link MockAnswer} into the answer of one call. */
export interface Answerer<Args extends readonly unknown[], T> {
  /** Resolves the answer of the next call; rejects when it is an `Error`. */
  next(args: Args): Promise<T>;
}

/**
 * Reads a {@link MockAnswer}. `exhausted` decides what a call past the end of a per-call array
 * gets: a value (failures: "no more failures scripted") or, without one, an `E_INVALID_OPTIONS`
 * error naming the double, so a test that calls more often than it scripted fails visibly.
 */
export function answerer<Args extends readonly unknown[], T>(
  answer: MockAnswer<Args, T>,
  where: string,
  exhausted?: { readonly value: T },
): Answerer<Args, T> {
  let calls = 0;
  const settle = (value: T | Error): T => {
    if (value instanceof Error) throw value;
    return value;
  };
  return {
    async next(args) {
      const call = calls++;
      if (typeof answer === 'function') return settle(await (answer as (...a: Args) => T | Error)(...args));
      if (!Array.isArray(answer)) return settle(answer as T | Error);
      const list = answer as readonly (T | Error)[];
      if (call < list.length) return settle(list[call] as T | Error);
      if (exhausted !== undefined) return exhausted.value;
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `${where}: call ${call + 1} has no scripted answer (${list.length} given); add one per call or pass a function`,
        { where, call: call + 1, scripted: list.length },
      );
    },
  };
}

/**
 * Waits `ms` milliseconds, or until `signal` aborts (then rejects with its reason, as a model
 * call would). `Infinity` waits for the abort alone.
 */
export function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    function done(): void {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort(): void {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}
