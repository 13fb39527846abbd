/**
 * Gateway benchmark (issue 21): the latency `chatfold gateway` adds to a Chat Completions call,
 * p50 / p99, with a warm session of 1,000 and of 100,000 messages, beside direct calls to the
 * same upstream — over real HTTP on 127.0.0.1, with the SQLite store the CLI uses by default.
 *
 * The upstream is a minimal OpenAI-compatible server answering at once (so what is measured is
 * the gateway, not a model). Each measured turn is one new user message on top of the history,
 * sent whole by the client as OpenAI clients do; direct and gateway calls alternate so load
 * from other processes hits both alike. "gateway work" is the time from the request's arrival
 * to the upstream call (mapping, appending, projecting), from the gateway's own events.
 *
 * Run: `node bench/gateway.ts [--sizes 1000,100000] [--turns 200]`. Writes bench/results/gateway.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type GatewayEvent, startGateway } from '../src/gateway/index.ts';
import { sqliteStore } from '../src/stores/sqlite/index.ts';
import { machine } from './harness.ts';

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '1000,100000' }, turns: { type: 'string', default: '200' } },
});
const SIZES = (values.sizes ?? '').split(',').map(Number);
const TURNS = Number(values.turns);

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const value = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  return Math.round(value * 100) / 100;
}

// An upstream that answers at once: a fixed completion, the body read and parsed as a server would.
const upstream = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: unknown[]; model: string };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'chatcmpl-bench',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'noted' }, finish_reason: 'stop' }],
        usage: {
          prompt_tokens: body.messages.length * 20,
          completion_tokens: 1,
          total_tokens: body.messages.length * 20 + 1,
        },
      }),
    );
  });
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;

/** A history of `size` messages: a system prompt, then user and assistant turns of ~25 tokens. */
function history(size: number): { role: string; content: string }[] {
  const messages = [{ role: 'system', content: 'You are a helpful assistant for the harbour office.' }];
  for (let index = 1; index < size; index++) {
    messages.push(
      index % 2 === 1
        ? {
            role: 'user',
            content: `Message ${index}: the ferry timetable for pier ${index % 17} changed again today.`,
          }
        : { role: 'assistant', content: 'noted' },
    );
  }
  return messages;
}

const post = async (url: string, body: string): Promise<{ ms: number; compacted: boolean }> => {
  const started = performance.now();
  const response = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  await response.json();
  if (!response.ok) throw new Error(`status ${response.status}`);
  return {
    ms: performance.now() - started,
    compacted: response.headers.get('x-chatfold-compacted') === 'true',
  };
};

const results = [];
for (const size of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-bench-gateway-'));
  const store = sqliteStore(join(dir, 'gateway.db'));
  const events: GatewayEvent[] = [];
  const gateway = await startGateway({
    upstream: upstreamUrl,
    store,
    port: 0,
    config: { window: 128_000 },
    maxBodyBytes: 256 * 1024 * 1024,
    onEvent: (event) => events.push(event),
  });
  const messages = history(size);
  // Warm-up: the first request stores the whole history (and compacts it once); then a few turns.
  const coldStarted = performance.now();
  messages.push({ role: 'user', content: 'first question' });
  await post(`${gateway.url}/v1`, JSON.stringify({ model: 'bench-model', messages }));
  const coldMs = performance.now() - coldStarted;
  messages.push({ role: 'assistant', content: 'noted' });
  const direct: number[] = [];
  const viaGateway: number[] = [];
  let compactedTurns = 0;
  for (let turn = 0; turn < TURNS + 5; turn++) {
    messages.push({ role: 'user', content: `turn ${turn}: and the evening ferry?` });
    const body = JSON.stringify({ model: 'bench-model', messages });
    const first = turn % 2 === 0 ? 'direct' : 'gateway';
    const a = await post(first === 'direct' ? upstreamUrl : `${gateway.url}/v1`, body);
    const b = await post(first === 'direct' ? `${gateway.url}/v1` : upstreamUrl, body);
    const [d, g] = first === 'direct' ? [a, b] : [b, a];
    if (turn >= 5) {
      direct.push(d.ms);
      viaGateway.push(g.ms);
      if (g.compacted) compactedTurns++;
    }
    messages.push({ role: 'assistant', content: 'noted' });
  }
  const work = events
    .filter((event): event is Extract<GatewayEvent, { type: 'request' }> => event.type === 'request')
    .slice(-TURNS)
    .map((event) => event.gatewayMs);
  const lastRequest = events.filter((event) => event.type === 'request').at(-1) as Extract<
    GatewayEvent,
    { type: 'request' }
  >;
  const row = {
    messages: size,
    bodyBytes: JSON.stringify({ model: 'bench-model', messages }).length,
    turns: TURNS,
    coldFirstRequestMs: Math.round(coldMs),
    direct: { p50: percentile(direct, 50), p99: percentile(direct, 99) },
    gateway: { p50: percentile(viaGateway, 50), p99: percentile(viaGateway, 99) },
    added: {
      p50: Math.round((percentile(viaGateway, 50) - percentile(direct, 50)) * 100) / 100,
      p99: Math.round((percentile(viaGateway, 99) - percentile(direct, 99)) * 100) / 100,
    },
    gatewayWork: { p50: percentile(work, 50), p99: percentile(work, 99) },
    compactedTurns,
    promptTokensSent: lastRequest.tokensAfter,
    promptTokensBefore: lastRequest.tokensBefore,
  };
  results.push(row);
  console.log(JSON.stringify(row));
  await gateway.close({ drainMs: 1_000 });
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
upstream.close();

const report = { ...machine(), loadAverage: loadavg().map((value) => Math.round(value * 10) / 10), results };
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/gateway.json', import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
console.log(
  '\n| history | body | direct p50 / p99 | via gateway p50 / p99 | added p50 / p99 | gateway work p50 / p99 | first request (cold) |',
);
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const row of results) {
  console.log(
    `| ${row.messages.toLocaleString('en-US')} messages | ${(row.bodyBytes / 1e6).toFixed(1)} MB | ${row.direct.p50} / ${row.direct.p99} ms | ${row.gateway.p50} / ${row.gateway.p99} ms | ${row.added.p50} / ${row.added.p99} ms | ${row.gatewayWork.p50} / ${row.gatewayWork.p99} ms | ${row.coldFirstRequestMs.toLocaleString('en-US')} ms |`,
  );
}
