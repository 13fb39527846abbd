/**
 * A one-consumer async queue: producers `push` while the consumer iterates; `close` ends the
 * iteration once everything pushed was read. Events are never dropped.
 */
export interface EventChannel<T> extends AsyncIterable<T> {
  push(event: T): void;
  close(): void;
}

/** Creates an {@link EventChannel}. */
export function createEventChannel<T>(): EventChannel<T> {
  const buffered: T[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  return {
    push(event) {
      if (closed) return;
      buffered.push(event);
      notify();
    },
    close() {
      closed = true;
      notify();
    },
    async *[Symbol.asyncIterator]() {
      while (true) {
        if (buffered.length > 0) {
          yield buffered.shift() as T;
          continue;
        }
        if (closed) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}
