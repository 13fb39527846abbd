/**
 * The client of bench/web-event-loop.ts, in a worker thread: it sends `GET /api/info` every
 * few ms (open loop: a probe does not wait for the previous one) and answers with the
 * latencies. Running apart from the server's thread, it measures how long the server takes
 * to answer, not how long the server's busy thread delays its own client.
 *
 * Messages in: `{ url, everyMs, count }` (send `count` probes), `{ url, everyMs }` (probe
 * until `'stop'`), `'stop'`. Message out: the latencies in milliseconds of one such window.
 */
import { parentPort } from 'node:worker_threads';

interface ProbeWindow {
  readonly url: string;
  readonly everyMs: number;
  readonly count?: number;
}

const port = parentPort;
if (port === null) throw new Error('web-event-loop-probe.ts runs as a worker thread');

let stopped = false;

async function probeWindow({ url, everyMs, count }: ProbeWindow): Promise<number[]> {
  const samples: Promise<number>[] = [];
  stopped = false;
  while (!stopped && (count === undefined || samples.length < count)) {
    const start = performance.now();
    samples.push(
      fetch(url)
        .then((response) => response.arrayBuffer())
        .then(() => performance.now() - start),
    );
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return Promise.all(samples);
}

port.on('message', (message: ProbeWindow | 'stop') => {
  if (message === 'stop') {
    stopped = true;
    return;
  }
  void probeWindow(message).then((latencies) => port.postMessage(latencies));
});
