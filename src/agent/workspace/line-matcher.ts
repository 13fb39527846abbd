import { Worker } from 'node:worker_threads';
import type { LineMatches } from './match-lines.ts';
import type { SearchWorkerRequest } from './search-worker.ts';

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

/** A search's pattern in a worker thread: compiled once, then matched one file at a time. */
export interface LineMatcher {
  /**
   * Compiles the pattern on RE2 (compiling a long pattern can take seconds, so not here).
   * @returns RE2's message when the pattern is refused, else undefined.
   */
  compile(): Promise<string | undefined>;
  /**
   * Matches one file's bytes (UTF-8) line by line, after a successful {@link LineMatcher.compile}.
   * @throws the reason given to {@link LineMatcher.stop} when stopped meanwhile.
   */
  match(
    bytes: Uint8Array,
    options: { readonly maxShown: number; readonly lineChars: number },
  ): Promise<LineMatches>;
  /**
   * Ends the matcher: a request in progress rejects with `reason` at once and its worker is
   * terminated, however far it got; an idle worker goes back to the pool. Idempotent.
   */
  stop(reason: unknown): void;
}

/**
 * A matcher for one search (issue 24): the pattern is compiled and run on RE2 in a worker
 * thread taken from a small pool, so the event loop only waits for answers.
 *
 * @param pattern The model's pattern.
 * @param ignoreCase Case-insensitive matching.
 */
export function startLineMatcher(pattern: string, ignoreCase: boolean): LineMatcher {
  let worker: Worker | undefined = takeWorker();
  let pending: { resolve(answer: unknown): void; reject(reason: unknown): void } | undefined;
  let stopped: { reason: unknown } | undefined;
  const onMessage = (answer: unknown): void => {
    const waiting = pending;
    pending = undefined;
    waiting?.resolve(answer);
  };
  const onError = (error: unknown): void => stop(error);
  const onExit = (code: number): void => stop(new Error(`the search worker exited (code ${code})`));
  worker.on('message', onMessage);
  worker.on('error', onError);
  worker.on('exit', onExit);
  const stop = (reason: unknown): void => {
    if (stopped !== undefined) return;
    stopped = { reason };
    const thread = worker;
    worker = undefined;
    if (thread !== undefined) {
      thread.off('message', onMessage);
      thread.off('error', onError);
      thread.off('exit', onExit);
      // A worker still busy cannot be interrupted any other way.
      if (pending === undefined) returnWorker(thread);
      else void thread.terminate();
    }
    pending?.reject(reason);
    pending = undefined;
  };
  const ask = (request: SearchWorkerRequest): Promise<unknown> => {
    if (stopped !== undefined || worker === undefined) return Promise.reject(stopped?.reason);
    const thread = worker;
    return new Promise((resolve, reject) => {
      pending = { resolve, reject };
      thread.postMessage(request);
    });
  };
  return {
    async compile() {
      const { error } = (await ask({ type: 'compile', pattern, ignoreCase })) as { error?: string };
      return error;
    },
    match: async (bytes, { maxShown, lineChars }) =>
      (await ask({ type: 'match', bytes, maxShown, lineChars })) as LineMatches,
    stop,
  };
}
