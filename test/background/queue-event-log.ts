// Test helper for the compaction queues (issue 13): records a queue's events and waits for one.
import type { CompactionQueueEvent } from '../../src/background/queue-events.ts';

/** A queue's events as they come; `until(test)` resolves once one matches (also an earlier one). */
export function queueEventLog() {
  const events: CompactionQueueEvent[] = [];
  const waiters: { test: (event: CompactionQueueEvent) => boolean; resolve: () => void }[] = [];
  return {
    events,
    onEvent(event: CompactionQueueEvent) {
      events.push(event);
      for (const waiter of [...waiters]) {
        if (waiter.test(event)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    },
    until(test: (event: CompactionQueueEvent) => boolean): Promise<void> {
      if (events.some(test)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
}

/**
 * A job handler that takes `ms` per job and records how many ran at once: `most` is the
 * highest number of handlers that overlapped (the `concurrency` checks of both queues).
 */
export function concurrencyProbe(ms: number) {
  let running = 0;
  let most = 0;
  return {
    get most() {
      return most;
    },
    async handler(): Promise<void> {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running -= 1;
    },
  };
}
