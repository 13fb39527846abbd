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
