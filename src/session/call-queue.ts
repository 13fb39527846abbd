/**
 * Runs a session's calls one at a time, in call order (a session is a single writer of its
 * in-memory projection). A call whose signal aborts while it waits leaves the queue at once.
 */
export class CallQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const start = (): Promise<T> => {
      signal?.throwIfAborted();
      return task();
    };
    const run = this.#tail.then(start, start);
    this.#tail = run.then(
      () => undefined,
      () => undefined,
    );
    if (signal === undefined) return run;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      run.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}
