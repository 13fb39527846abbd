/**
 * The web app's event loop during a long chat's first load (NFR-7.5, issue 23 item 5): p50 /
 * p99 of `GET /api/info` alone, then while `GET /api/sessions/:id` opens a 1,000-message
 * session for the first time (the session's agent is built and the history counted), over
 * real HTTP on 127.0.0.1 with the SQLite store. Imported by bench/web.ts; `node
 * bench/web-event-loop.ts` runs it alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent } from '../src/agent/create-agent.ts';
import { startFakeProvider } from '../src/fake-provider/index.ts';
import { sqliteStore } from '../src/stores/sqlite/index.ts';
import { createRedactor } from '../src/web/server/redact.ts';
import { startWebServer } from '../src/web/server/start-web-server.ts';

const MESSAGES = 1000;
const PROBE_EVERY_MS = 2;
const LOADS = 5;

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
  readonly alone: { readonly p50Ms: number; readonly p99Ms: number; readonly samples: number };
  readonly duringLoad: {
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly maxMs: number;
    readonly samples: number;
  };
  /** Median time of a chat's first open (view, history, compactions) of a 1,000-message session. */
  readonly firstLoadMs: number;
}

/** Measures `/api/info` latency alone and during first loads of 1,000-message sessions. */
export async function measureInfoDuringFirstLoad(): Promise<EventLoopResult> {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-bench-web-loop-'));
  const fake = await startFakeProvider({});
  const store = sqliteStore(join(dir, 'bench.db'));
  const ids: string[] = [];
  for (let load = 0; load < LOADS + 1; load++) {
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
  /**
   * Probes /api/info every few ms (open loop: a probe does not wait for the previous one, as
   * other tabs and the page's own requests do not) until `until` settles; returns latencies.
   */
  const probe = async (until: Promise<unknown>): Promise<number[]> => {
    const samples: Promise<number>[] = [];
    let settled = false;
    void until.finally(() => {
      settled = true;
    });
    while (!settled) {
      samples.push(info());
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
    return Promise.all(samples);
  };
  /** The requests the page makes when a chat opens (chat view, full history, compactions). */
  const firstLoad = (id: string): Promise<unknown> =>
    Promise.all(
      [`/api/sessions/${id}`, `/api/sessions/${id}/history`, `/api/sessions/${id}/compactions`].map((path) =>
        fetch(`${server.url}${path}`).then((response) => response.arrayBuffer()),
      ),
    );
  // Warm-up: one first load (JIT, tokenizer tables), and /api/info.
  await firstLoad(ids[LOADS] as string);
  for (let i = 0; i < 50; i++) await info();
  const alone: number[] = [];
  for (let i = 0; i < 300; i++) alone.push(await info());
  const during: number[] = [];
  const loadTimes: number[] = [];
  for (const id of ids.slice(0, LOADS)) {
    const start = performance.now();
    const load = firstLoad(id).then(() => loadTimes.push(performance.now() - start));
    during.push(...(await probe(load)));
  }
  await server.close();
  await store.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    messages: MESSAGES,
    loads: LOADS,
    alone: { p50Ms: percentile(alone, 50), p99Ms: percentile(alone, 99), samples: alone.length },
    duringLoad: {
      p50Ms: percentile(during, 50),
      p99Ms: percentile(during, 99),
      maxMs: percentile(during, 100),
      samples: during.length,
    },
    firstLoadMs: percentile(loadTimes, 50),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await measureInfoDuringFirstLoad(), null, 2));
}
