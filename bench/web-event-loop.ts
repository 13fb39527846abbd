/**
 * The web app's event loop during a long chat's first load (NFR-7.5, issue 23 item 5): p50 /
 * p99 of `GET /api/info` with the server idle and while `GET /api/sessions/:id` opens a
 * 1,000-message session for the first time (the session's agent is built, the history read
 * and counted), over real HTTP on 127.0.0.1 with the SQLite store. Idle windows and loads
 * alternate (interleaved, the order flipping every round), and both are probed the same way:
 * a request every 2 ms that does not wait for the previous answer. Imported by bench/web.ts;
 * `node bench/web-event-loop.ts` runs it alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createAgent } from '../src/agent/create-agent.ts';
import { startFakeProvider } from '../src/fake-provider/index.ts';
import { sqliteStore } from '../src/stores/sqlite/index.ts';
import { createRedactor } from '../src/web/server/redact.ts';
import { startWebServer } from '../src/web/server/start-web-server.ts';

const MESSAGES = 1000;
const PROBE_EVERY_MS = 2;
const LOADS = 8;
/** Probes of one idle window (about as many as one load gets answered). */
const IDLE_PROBES = 40;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const value = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  return Math.round(value * 10) / 10;
}

/** A user or assistant turn of a few hundred words with code, as a long chat has. */
function text(session: number, index: number): string {
  const words = 'the session keeps every message and the gauge counts each token of the prompt'.split(' ');
  // Unique per session and message: no token cache hit from an earlier load.
  const body = Array.from(
    { length: 120 + (index % 7) * 30 },
    (_, i) =>
      `${words[(i + index) % words.length]}${(i * 7919 + index * 104_729 + session * 15_485_863) % 997}`,
  ).join(' ');
  return `Message ${index}: ${body}\n\n\`\`\`ts\nconst value${index} = compute(${index});\n\`\`\``;
}

/** Results of {@link measureInfoDuringFirstLoad}. */
export interface EventLoopResult {
  readonly messages: number;
  readonly loads: number;
  /** Probes while the server had nothing else to do (idle windows between the loads). */
  readonly alone: LatencySummary;
  /** Probes sent while a chat opened for the first time (all loads together). */
  readonly duringLoad: LatencySummary;
  /** `duringLoad` over `alone`, p50 and p99: 1 is flat. */
  readonly ratio: { readonly p50: number; readonly p99: number };
  /** Median time of a chat's first open (view, history, compactions) of a 1,000-message session, while probed. */
  readonly firstLoadMs: number;
  /** The same with no probe running. */
  readonly quietFirstLoadMs: number;
  /**
   * The server thread's CPU time per event-loop turn during the unprobed opens: how long the
   * open held the thread at a stretch, whatever the machine's load (a busy neighbour stretches
   * wall time, not this thread's CPU time).
   */
  readonly quietLoadTurns: {
    readonly turns: number;
    /** The longest turn, and how many turns held the thread 2 ms or more (all opens together). */
    readonly maxCpuMs: number;
    readonly over2Ms: number;
    /**
     * The same turns in wall time: the thread CPU clock of some kernels and VMs advances in
     * scheduler ticks (4 ms here), so one turn's CPU time is 0 or a tick; wall time is exact but
     * includes the time a busy neighbour took the core. p99 and longest, turns of 2 ms or more.
     */
    readonly wallP99Ms: number;
    readonly maxWallMs: number;
    readonly wallOver2Ms: number;
  };
}

/** Thread CPU and wall time of each event-loop turn while `work` runs (a setImmediate chain marks the turns). */
async function cpuPerTurn(work: () => Promise<unknown>): Promise<{ cpuMs: number; wallMs: number }[]> {
  const turns: { cpuMs: number; wallMs: number }[] = [];
  let running = true;
  let last = process.threadCpuUsage();
  let lastWall = performance.now();
  const tick = (): void => {
    const now = process.threadCpuUsage();
    const wall = performance.now();
    turns.push({ cpuMs: (now.user - last.user + now.system - last.system) / 1000, wallMs: wall - lastWall });
    last = now;
    lastWall = wall;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await work();
  } finally {
    running = false;
  }
  return turns;
}

/** Latencies of `GET /api/info` probes, in milliseconds. */
export interface LatencySummary {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly samples: number;
}

const summarize = (values: readonly number[]): LatencySummary => ({
  p50Ms: percentile(values, 50),
  p99Ms: percentile(values, 99),
  maxMs: percentile(values, 100),
  samples: values.length,
});

/** Measures `/api/info` latency alone and during first loads of 1,000-message sessions. */
export async function measureInfoDuringFirstLoad(): Promise<EventLoopResult> {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-bench-web-loop-'));
  const fake = await startFakeProvider({});
  const store = sqliteStore(join(dir, 'bench.db'));
  const ids: string[] = [];
  // LOADS opened while probed, LOADS opened with nothing else going on, one for the warm-up.
  for (let load = 0; load < 2 * LOADS + 1; load++) {
    const id = `s-bench-${load}`;
    await store.ensureSession(id, { title: `Long chat ${load}` });
    await store.append(
      id,
      Array.from({ length: MESSAGES }, (_, index) => ({
        message: {
          id: `${id}-m${index}`,
          role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
          parts: [{ type: 'text' as const, text: text(load, index) }],
          createdAt: new Date(1_700_000_000_000 + index * 1000).toISOString(),
        },
      })),
    );
    ids.push(id);
  }
  const server = await startWebServer({
    host: '127.0.0.1',
    port: 0,
    store,
    agent: {
      name: 'bench',
      model: {
        provider: 'openai-compatible',
        name: 'gpt-4o',
        baseURL: `${fake.url}/v1`,
        apiKey: 'bench-key',
        maxInputTokens: 128_000,
      },
      instructions: 'You are a benchmark assistant.',
    },
    createAgent,
    modelId: 'gpt-4o',
    modelLabel: 'openai-compatible:gpt-4o',
    clientDir: undefined,
    redact: createRedactor([]),
    version: 'bench',
  });
  const info = async (): Promise<number> => {
    const start = performance.now();
    const response = await fetch(`${server.url}/api/info`);
    await response.arrayBuffer();
    return performance.now() - start;
  };
  // The client runs in its own thread (a browser is not on the server's event loop).
  const prober = new Worker(new URL('./web-event-loop-probe.ts', import.meta.url));
  const probed = (): Promise<number[]> =>
    new Promise((resolve, reject) => {
      prober.once('error', reject);
      prober.once('message', (latencies: number[]) => {
        prober.off('error', reject);
        resolve(latencies);
      });
    });
  /** Probes /api/info from the worker until `until` settles or `count` probes were sent. */
  const probe = async ({ until, count }: { until?: Promise<unknown>; count?: number }): Promise<number[]> => {
    const latencies = probed();
    prober.postMessage({
      url: `${server.url}/api/info`,
      everyMs: PROBE_EVERY_MS,
      ...(count === undefined ? {} : { count }),
    });
    await until;
    if (until !== undefined) prober.postMessage('stop');
    return latencies;
  };
  /** The requests the page makes when a chat opens (chat view, full history, compactions). */
  const firstLoad = (id: string): Promise<unknown> =>
    Promise.all(
      [`/api/sessions/${id}`, `/api/sessions/${id}/history`, `/api/sessions/${id}/compactions`].map((path) =>
        fetch(`${server.url}${path}`).then(async (response) => {
          // A failed open is fast: it must not pass for a measurement.
          if (response.status !== 200)
            throw new Error(`${path}: ${response.status} ${await response.text()}`);
          await response.arrayBuffer();
        }),
      ),
    );
  // Warm-up: one first load (JIT, tokenizer tables), and /api/info from both threads.
  await firstLoad(ids[2 * LOADS] as string);
  for (let i = 0; i < 50; i++) await info();
  await probe({ count: 50 });
  const alone: number[] = [];
  const during: number[] = [];
  const loadTimes: number[] = [];
  const quietLoadTimes: number[] = [];
  const quietTurns: { cpuMs: number; wallMs: number }[] = [];
  /** A first open with no probe running: what the open itself costs. */
  const quietLoad = async (id: string): Promise<void> => {
    const start = performance.now();
    quietTurns.push(...(await cpuPerTurn(() => firstLoad(id))));
    quietLoadTimes.push(performance.now() - start);
  };
  const idleWindow = async (): Promise<void> => {
    alone.push(...(await probe({ count: IDLE_PROBES })));
  };
  const loadWindow = async (id: string): Promise<void> => {
    const start = performance.now();
    const load = firstLoad(id).then(() => loadTimes.push(performance.now() - start));
    during.push(...(await probe({ until: load })));
  };
  // Interleaved, the order rotating every round (a busy neighbour hits all three alike).
  for (let round = 0; round < LOADS; round++) {
    const steps = [
      idleWindow,
      () => loadWindow(ids[round] as string),
      () => quietLoad(ids[LOADS + round] as string),
    ];
    for (let i = 0; i < steps.length; i++) await steps[(i + round) % steps.length]?.();
  }
  await prober.terminate();
  await server.close();
  await store.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    messages: MESSAGES,
    loads: LOADS,
    alone: summarize(alone),
    duringLoad: summarize(during),
    ratio: {
      p50: Math.round((percentile(during, 50) / percentile(alone, 50)) * 10) / 10,
      p99: Math.round((percentile(during, 99) / percentile(alone, 99)) * 10) / 10,
    },
    firstLoadMs: percentile(loadTimes, 50),
    quietFirstLoadMs: percentile(quietLoadTimes, 50),
    quietLoadTurns: {
      turns: quietTurns.length,
      maxCpuMs: percentile(
        quietTurns.map((turn) => turn.cpuMs),
        100,
      ),
      over2Ms: quietTurns.filter((turn) => turn.cpuMs >= 2).length,
      wallP99Ms: percentile(
        quietTurns.map((turn) => turn.wallMs),
        99,
      ),
      maxWallMs: percentile(
        quietTurns.map((turn) => turn.wallMs),
        100,
      ),
      wallOver2Ms: quietTurns.filter((turn) => turn.wallMs >= 2).length,
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await measureInfoDuringFirstLoad(), null, 2));
}
