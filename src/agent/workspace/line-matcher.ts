import { Worker } from 'node:worker_threads';
import type { LineMatches } from './match-lines.ts';

// Run from source (`.ts`, Node strips the types) or from the build (`.js`).
const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './search-worker.ts' : './search-worker.js',
  import.meta.url,
);

/** Idle workers kept for the next search (starting one costs tens of milliseconds). */
const MAX_IDLE_WORKERS = 2;
const idleWorkers: Worker[] = [];

function takeWorker(): Worker {
  const reused = idleWorkers.pop();
  if (reused !== undefined) {
    reused.ref();
    return reused;
  }
  const worker = new Worker(WORKER_URL);
  // An idle worker that dies is dropped from the pool.
  worker.on('exit', () => {
    const at = idleWorkers.indexOf(worker);
    if (at !== -1) idleWorkers.splice(at, 1);
  });
  worker.on('error', () => {});
  return worker;
}

function returnWorker(worker: Worker): void {
  if (idleWorkers.length >= MAX_IDLE_WORKERS) {
    void worker.terminate();
    return;
  }
  // Idle workers never keep the process alive.
  worker.unref();
  idleWorkers.push(worker);
}

/** A pattern matched in a worker thread, one file at a time. */
export interface LineMatcher {
  /**
   * Matches one file's bytes (UTF-8) line by line.
   * @throws the reason given to {@link LineMatcher.stop} when stopped meanwhile.
   */
  match(
    bytes: Uint8Array,
    options: { readonly maxShown: number; readonly lineChars: number },
  ): Promise<LineMatches>;
  /**
   * Ends the matcher: a match in progress rejects with `reason` at once and its worker is
   * terminated, however far it got; an idle worker goes back to the pool. Idempotent.
   */
  stop(reason: unknown): void;
}

/**
 * A matcher for one search (issue 24): the pattern runs on RE2 in a worker thread taken from a
 * small pool on the first file, so the event loop only waits for answers.
 *
 * @param pattern A pattern that `RE2JS.compile` accepts (checked by the caller).
 * @param ignoreCase Case-insensitive matching.
 */
export function startLineMatcher(pattern: string, ignoreCase: boolean): LineMatcher {
  let worker: Worker | undefined;
  let pending: { resolve(result: LineMatches): void; reject(reason: unknown): void } | undefined;
  let stopped: { reason: unknown } | undefined;
  const onMessage = (result: LineMatches): void => {
    const waiting = pending;
    pending = undefined;
    waiting?.resolve(result);
  };
  const onError = (error: unknown): void => stop(error);
  const onExit = (code: number): void => stop(new Error(`the search worker exited (code ${code})`));
  const release = (thread: Worker): void => {
    thread.off('message', onMessage);
    thread.off('error', onError);
    thread.off('exit', onExit);
  };
  const stop = (reason: unknown): void => {
    if (stopped !== undefined) return;
    stopped = { reason };
    const thread = worker;
    worker = undefined;
    if (thread !== undefined) {
      release(thread);
      // A worker still matching cannot be interrupted any other way.
      if (pending === undefined) returnWorker(thread);
      else void thread.terminate();
    }
    pending?.reject(reason);
    pending = undefined;
  };
  return {
    match(bytes, { maxShown, lineChars }) {
      if (stopped !== undefined) return Promise.reject(stopped.reason);
      if (worker === undefined) {
        worker = takeWorker();
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', onExit);
      }
      const thread = worker;
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
        thread.postMessage({ pattern, ignoreCase, bytes, maxShown, lineChars });
      });
    },
    stop,
  };
}
