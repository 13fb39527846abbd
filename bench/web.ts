/**
 * Web app benchmark (WEB-1, issue 12): the client bundle size (gzip), the time to first byte and
 * to the first text delta of a turn over the fake provider's own latency, and 50 concurrent
 * streaming sessions on one process — over real HTTP on 127.0.0.1 (`startWebServer`, the
 * SQLite store `chatfold serve` uses by default, the agent runtime, the fake provider).
 *
 * Also `/api/info` p50 / p99 alone and during the first open of 1,000-message chats
 * (bench/web-event-loop.ts, NFR-7.5).
 *
 * Run: `npm run build && node bench/web.ts`. Writes bench/results/web.json and prints markdown.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createAgent } from '../src/agent/create-agent.ts';
import { startFakeProvider } from '../src/fake-provider/index.ts';
import { sqliteStore } from '../src/stores/sqlite/index.ts';
import type { WireSession } from '../src/web/api-types.ts';
import { createRedactor } from '../src/web/server/redact.ts';
import { startWebServer } from '../src/web/server/start-web-server.ts';
import { findClientDir } from '../src/web/server/static-client.ts';
import { machine, median } from './harness.ts';
import { measureInfoDuringFirstLoad } from './web-event-loop.ts';

const TURNS = 30;
const CONCURRENT = 50;
const CHUNK_DELAY_MS = 20;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const value = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  return Math.round(value * 10) / 10;
}

// 1. The client bundle, as `npm run build` ships it.
const clientDir = findClientDir();
if (clientDir === undefined) throw new Error('dist/web/client is missing: run `npm run build` first');
const assets = readdirSync(join(clientDir, 'assets')).map((name) => {
  const bytes = readFileSync(join(clientDir, 'assets', name));
  return { name, bytes: bytes.length, gzip: gzipSync(bytes).length };
});
const sum = (ext: string, key: 'bytes' | 'gzip') =>
  assets.filter((asset) => asset.name.endsWith(ext)).reduce((total, asset) => total + asset[key], 0);
const lazy = assets.filter((asset) => asset.name.endsWith('.js') && !asset.name.startsWith('index-'));
const bundle = {
  jsBytes: sum('.js', 'bytes'),
  jsGzip: sum('.js', 'gzip'),
  // Chunks loaded on demand (code highlighting), included in the totals above.
  jsLazyBytes: lazy.reduce((total, asset) => total + asset.bytes, 0),
  jsLazyGzip: lazy.reduce((total, asset) => total + asset.gzip, 0),
  cssBytes: sum('.css', 'bytes'),
  cssGzip: sum('.css', 'gzip'),
  htmlBytes: statSync(join(clientDir, 'index.html')).size,
};

// 2 and 3: a server over SQLite, the agent runtime and the fake provider, on loopback.
const dir = mkdtempSync(join(tmpdir(), 'chatfold-bench-web-'));
const fake = await startFakeProvider({
  script: { rules: [{ match: { lastUserIncludes: '[stream]' }, reply: { chunkDelayMs: CHUNK_DELAY_MS } }] },
});
const store = sqliteStore(join(dir, 'bench.db'));
const server = await startWebServer({
  host: '127.0.0.1',
  port: 0,
  store,
  agent: {
    name: 'bench',
    model: {
      provider: 'openai-compatible',
      name: 'chatfold-fake',
      baseURL: `${fake.url}/v1`,
      apiKey: 'bench-key',
      maxInputTokens: 128_000,
    },
    instructions: 'You are a benchmark assistant.',
  },
  createAgent,
  modelId: 'chatfold-fake',
  modelLabel: 'openai-compatible:chatfold-fake',
  clientDir,
  redact: createRedactor([]),
  version: 'bench',
});
const json = { 'content-type': 'application/json' };

async function newSession(): Promise<string> {
  const response = await fetch(`${server.url}/api/sessions`, { method: 'POST', headers: json, body: '{}' });
  return ((await response.json()) as { session: WireSession }).session.id;
}

/** One turn: ms to the response head (TTFB), to the first text delta, to `done`; deltas seen. */
async function turn(sessionId: string, text: string) {
  const start = performance.now();
  const response = await fetch(`${server.url}/api/sessions/${sessionId}/turns`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ text }),
  });
  const ttfb = performance.now() - start;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let firstDelta = Number.NaN;
  let deltas = 0;
  let ok = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const count = buffer.split('event: text-delta').length - 1;
    if (count > 0 && Number.isNaN(firstDelta)) firstDelta = performance.now() - start;
    deltas += count;
    ok ||= buffer.includes('"type":"done","reason":"stop"');
    buffer = buffer.slice(buffer.lastIndexOf('\n\n') + 1);
  }
  return { ttfb, firstDelta, total: performance.now() - start, deltas, ok };
}

/** The fake provider alone: ms to the first streamed chunk of the same kind of request. */
async function fakeFirstChunk(text: string): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${fake.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...json, authorization: 'Bearer bench-key' },
    body: JSON.stringify({
      model: 'chatfold-fake',
      stream: true,
      messages: [
        { role: 'system', content: 'You are a benchmark assistant.' },
        { role: 'user', content: text },
      ],
    }),
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  const first = performance.now() - start;
  while (!(await reader.read()).done) {
    // drain
  }
  return first;
}

const prompt = `Hello, this is a benchmark turn with a few words to echo back [stream] ${'word '.repeat(40)}`;
// Warm up (JIT, SQLite pages, the agent's model instance).
for (let i = 0; i < 3; i++) {
  await turn(await newSession(), prompt);
  await fakeFirstChunk(prompt);
}
// A first turn opens the session's agent; later turns reuse it (the common case).
const first: Awaited<ReturnType<typeof turn>>[] = [];
const next: Awaited<ReturnType<typeof turn>>[] = [];
const direct: number[] = [];
for (let i = 0; i < TURNS; i++) {
  const id = await newSession();
  first.push(await turn(id, prompt));
  next.push(await turn(id, prompt));
  direct.push(await fakeFirstChunk(prompt));
}
const web = next;
const latency = {
  turns: TURNS,
  fakeFirstChunkMs: median(direct),
  firstTurn: {
    ttfbMs: median(first.map((run) => run.ttfb)),
    firstDeltaMs: median(first.map((run) => run.firstDelta)),
  },
  nextTurn: {
    ttfbMs: median(next.map((run) => run.ttfb)),
    firstDeltaMs: median(next.map((run) => run.firstDelta)),
  },
  overheadMs: Math.round((median(next.map((run) => run.firstDelta)) - median(direct)) * 1000) / 1000,
  allOk: [...first, ...next].every((run) => run.ok),
};

// 50 sessions streaming at once, one process.
const sessions = await Promise.all(Array.from({ length: CONCURRENT }, () => newSession()));
const rssBefore = process.memoryUsage().rss;
const cpuBefore = process.cpuUsage();
const wallStart = performance.now();
const concurrent = await Promise.all(sessions.map((id) => turn(id, prompt)));
const wallMs = performance.now() - wallStart;
const cpu = process.cpuUsage(cpuBefore);
const rssAfter = process.memoryUsage().rss;
const alone = median(web.map((run) => run.total));
const load = {
  sessions: CONCURRENT,
  chunkDelayMs: CHUNK_DELAY_MS,
  wallMs: Math.round(wallMs),
  singleTurnMs: Math.round(alone),
  firstDeltaP50Ms: percentile(
    concurrent.map((run) => run.firstDelta),
    50,
  ),
  firstDeltaP95Ms: percentile(
    concurrent.map((run) => run.firstDelta),
    95,
  ),
  turnP95Ms: percentile(
    concurrent.map((run) => run.total),
    95,
  ),
  deltas: concurrent.reduce((total, run) => total + run.deltas, 0),
  completed: concurrent.filter((run) => run.ok).length,
  rssGrowthMiB: Math.round(((rssAfter - rssBefore) / 2 ** 20) * 10) / 10,
  // Server, agent, SQLite, fake provider and these 50 clients share the one process.
  cpuMsPerTurn: Math.round((cpu.user + cpu.system) / 1000 / CONCURRENT),
};

await server.close();
await store.close();
await fake.close();
rmSync(dir, { recursive: true, force: true });

const eventLoop = await measureInfoDuringFirstLoad();

const results = { machine: { ...machine(), loadAverage1m: loadavg()[0] }, bundle, latency, load, eventLoop };
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/web.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
console.log(`| client bundle | raw | gzip |
|---|---:|---:|
| JavaScript, loaded with the page | ${kib(bundle.jsBytes - bundle.jsLazyBytes)} | ${kib(bundle.jsGzip - bundle.jsLazyGzip)} |
| JavaScript, loaded when a code block shows (highlighting) | ${kib(bundle.jsLazyBytes)} | ${kib(bundle.jsLazyGzip)} |
| CSS | ${kib(bundle.cssBytes)} | ${kib(bundle.cssGzip)} |

| turn over HTTP (median of ${TURNS}) | ms |
|---|---:|
| fake provider alone: first streamed chunk | ${latency.fakeFirstChunkMs} |
| web app, first turn of a new session: response head / first text delta | ${latency.firstTurn.ttfbMs} / ${latency.firstTurn.firstDeltaMs} |
| web app, next turn: response head / first text delta | ${latency.nextTurn.ttfbMs} / ${latency.nextTurn.firstDeltaMs} |
| web app overhead over the fake provider (next turn) | ${latency.overheadMs} |

| ${CONCURRENT} concurrent streaming turns, one process | |
|---|---:|
| wall time (one turn alone: ${load.singleTurnMs} ms) | ${load.wallMs} ms |
| first text delta p50 / p95 | ${load.firstDeltaP50Ms} / ${load.firstDeltaP95Ms} ms |
| turn p95 | ${load.turnP95Ms} ms |
| text deltas delivered | ${load.deltas} |
| turns completed with done: stop | ${load.completed} / ${CONCURRENT} |
| CPU per turn (server + agent + store + fake provider + client) | ${load.cpuMsPerTurn} ms |
| RSS growth | ${load.rssGrowthMiB} MiB |

| \`GET /api/info\` from another thread, every 2 ms (NFR-7.5) | p50 | p99 |
|---|---:|---:|
| server idle (${eventLoop.alone.samples} requests, interleaved with the loads) | ${eventLoop.alone.p50Ms} ms | ${eventLoop.alone.p99Ms} ms |
| while ${eventLoop.loads} chats of ${eventLoop.messages} messages open for the first time (${eventLoop.duringLoad.samples} requests; one open takes ${eventLoop.firstLoadMs} ms, ${eventLoop.quietFirstLoadMs} ms unprobed) | ${eventLoop.duringLoad.p50Ms} ms | ${eventLoop.duringLoad.p99Ms} ms |
| during / idle | ${eventLoop.ratio.p50}× | ${eventLoop.ratio.p99}× |

Load average during the run: ${(results.machine.loadAverage1m ?? 0).toFixed(1)} on ${results.machine.cores} cores.`);
