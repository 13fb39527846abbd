import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeResponse } from './server.ts';

/** Waits `ms`; false when `signal` aborted first (the client left or the server closed). */
async function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms <= 0) return !signal.aborted;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes a route's answer: after `delayMs` (plus the server-wide latency) the status and
 * headers, then the JSON body or the server-sent events, `chunkDelayMs` apart. Stops quietly
 * when `signal` aborts — the client disconnected or the server is closing.
 *
 * @param res - The response.
 * @param answer - What the route answered.
 * @param options - `latencyMs`: added before the first byte; `signal`: stops the writing.
 */
export async function writeResponse(
  res: ServerResponse,
  answer: FakeResponse,
  { latencyMs = 0, signal }: { readonly latencyMs?: number; readonly signal: AbortSignal },
): Promise<void> {
  if (!(await wait(latencyMs + (answer.timing?.delayMs ?? 0), signal)) || res.destroyed) return;
  if (!('events' in answer)) {
    const body = JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...answer.headers,
    });
    res.end(body);
    return;
  }
  res.writeHead(answer.status, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    ...answer.headers,
  });
  res.flushHeaders();
  const chunkDelayMs = answer.timing?.chunkDelayMs ?? 0;
  for (const [index, { event, data }] of answer.events.entries()) {
    if (index > 0 && !(await wait(chunkDelayMs, signal))) return;
    if (res.destroyed) return;
    res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${data}\n\n`);
  }
  res.end();
}
