/**
 * Lets the event loop run once (timers, I/O, other requests) before the caller goes on
 * (NFR-7.5): long reads and counts call it between pages or slices so a server keeps
 * answering while it opens a long conversation. `setImmediate` runs after the loop's I/O
 * phase without the 1 ms floor of `setTimeout(0)`; runtimes without it get `setTimeout`.
 *
 * @returns a promise that settles on a later turn of the event loop.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof globalThis.setImmediate === 'function') globalThis.setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}
