import { Worker } from 'node:worker_threads';
import type { LineMatches } from './match-lines.ts';

// Run from source (`.ts`, Node strips the types) or from the build (`.js`).
const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './search-worker.ts' : './search-worker.js',
  import.meta.url,
);

/** A pattern compiled in its own worker thread, matching one file at a time. */
export interface LineMatcher {
  /**
   * Matches one file's bytes (UTF-8) line by line.
   * @throws the reason given to {@link LineMatcher.stop} when stopped meanwhile.
   */
  match(
    bytes: Uint8Array,
    options: { readonly maxShown: number; readonly lineChars: number },
  ): Promise<LineMatches>;
  /** Terminates the worker: a match in progress rejects with `reason` at once. Idempotent. */
  stop(reason: unknown): void;
}

/**
 * Starts a worker thread that runs one pattern on RE2 (issue 24): the event loop only waits for
 * its answers, and `stop` ends a match however far it got.
 *
 * @param pattern A pattern that `RE2JS.compile` accepts (checked by the caller).
 * @param ignoreCase Case-insensitive matching.
 */
export function startLineMatcher(pattern: string, ignoreCase: boolean): LineMatcher {
  let worker: Worker | undefined;
  let pending: { resolve(result: LineMatches): void; reject(reason: unknown): void } | undefined;
  let stopped: { reason: unknown } | undefined;
  const fail = (reason: unknown): void => {
    stopped ??= { reason };
    pending?.reject(stopped.reason);
    pending = undefined;
  };
  // Started on the first file, so a search that finds no file starts no thread.
  const started = (): Worker => {
    if (worker !== undefined) return worker;
    worker = new Worker(WORKER_URL, { workerData: { pattern, ignoreCase } });
    worker.on('message', (result: LineMatches) => {
      const waiting = pending;
      pending = undefined;
      waiting?.resolve(result);
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the search worker exited (code ${code})`)));
    return worker;
  };
  return {
    match(bytes, options) {
      if (stopped !== undefined) return Promise.reject(stopped.reason);
      const thread = started();
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
        thread.postMessage({ bytes, ...options });
      });
    },
    stop(reason) {
      fail(reason);
      void worker?.terminate();
    },
  };
}
