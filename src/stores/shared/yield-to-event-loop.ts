/**
 * The scheduling functions as this module found them. A test that installs fake timers later
 * (`vi.useFakeTimers()`, `@sinonjs/fake-timers`) replaces the globals; reads and counts that
 * yield must still go on, since nothing advances a fake clock for them.
 */
const immediate = typeof globalThis.setImmediate === 'function' ? globalThis.setImmediate : undefined;
const timeout = globalThis.setTimeout;

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
    if (immediate !== undefined) immediate(resolve);
    else timeout(resolve, 0);
  });
}
