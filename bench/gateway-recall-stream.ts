/**
 * Streamed answers through the gateway with `--recall` (issue 21): what watching the stream
 * for recall calls costs. With recall on, every SSE event of the answer is parsed (and the
 * closing ones held back until the round ends); with it off, the bytes pass through untouched.
 * Two gateways in front of the same upstream, one with recall and one without, take turns on
 * the same request (a 20-message conversation whose answer streams in `--chunks` chunks), over
 * real HTTP on 127.0.0.1 with the in-memory store. Reported: time to the first content chunk and
 * to the end of the stream, p50 / p99 of each side, interleaved.
 *
 * Run: `node bench/gateway-recall-stream.ts [--chunks 1000] [--turns 200]`.
 * Writes bench/results/gateway-recall-stream.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startGateway } from '../src/gateway/index.ts';
import { memoryStore } from '../src/stores/memory/index.ts';
import { machine } from './harness.ts';

const { values } = parseArgs({
  options: { chunks: { type: 'string', default: '1000' }, turns: { type: 'string', default: '200' } },
});
const CHUNKS = Number(values.chunks);
const TURNS = Number(values.turns);

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const value = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  return Math.round(value * 100) / 100;
}

// An upstream that streams CHUNKS content chunks at once, then the finish and usage chunks.
const upstream = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    let out = chunk({ role: 'assistant', content: '' });
    for (let i = 0; i < CHUNKS; i++) out += chunk({ content: `word${i % 10} ` });
    out += chunk({}, 'stop');
    out += `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 400, completion_tokens: CHUNKS, total_tokens: 400 + CHUNKS } })}\n\n`;
    response.end(`${out}data: [DONE]\n\n`);
  });
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;

const gateways = {
  off: await startGateway({
    upstream: upstreamUrl,
    store: memoryStore(),
    port: 0,
    config: { window: 128_000 },
  }),
  on: await startGateway({
    upstream: upstreamUrl,
    store: memoryStore(),
    port: 0,
    config: { window: 128_000, recall: true },
  }),
};

const messages = [{ role: 'system', content: 'You are a helpful assistant for the harbour office.' }];
for (let i = 1; i < 20; i++)
  messages.push({ role: i % 2 === 1 ? 'user' : 'assistant', content: `Message ${i} about pier ${i % 7}.` });

async function streamed(url: string): Promise<{ firstMs: number; totalMs: number }> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-chatfold-session': `bench-${url}` },
    body: JSON.stringify({
      model: 'bench-model',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  let firstMs = Number.NaN;
  const decoder = new TextDecoder();
  let text = '';
  for await (const piece of response.body as ReadableStream<Uint8Array>) {
    text += decoder.decode(piece, { stream: true });
    if (Number.isNaN(firstMs) && text.includes('"content":"word')) firstMs = performance.now() - started;
  }
  if (!text.includes('[DONE]')) throw new Error('the stream did not end with [DONE]');
  return { firstMs, totalMs: performance.now() - started };
}

const samples = {
  off: { first: [] as number[], total: [] as number[] },
  on: { first: [] as number[], total: [] as number[] },
};
for (let turn = 0; turn < TURNS + 5; turn++) {
  const order = turn % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
  for (const side of order) {
    const { firstMs, totalMs } = await streamed(gateways[side].url);
    if (turn >= 5) {
      samples[side].first.push(firstMs);
      samples[side].total.push(totalMs);
    }
  }
}
const row = (side: 'off' | 'on') => ({
  firstChunk: { p50: percentile(samples[side].first, 50), p99: percentile(samples[side].first, 99) },
  wholeStream: { p50: percentile(samples[side].total, 50), p99: percentile(samples[side].total, 99) },
});
const report = {
  ...machine(),
  loadAverage: loadavg().map((value) => Math.round(value * 10) / 10),
  chunks: CHUNKS,
  turns: TURNS,
  recallOff: row('off'),
  recallOn: row('on'),
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/gateway-recall-stream.json', import.meta.url),
  `${JSON.stringify(report, null, 2)}\n`,
);
console.log(JSON.stringify(report, null, 2));
await gateways.off.close({ drainMs: 1_000 });
await gateways.on.close({ drainMs: 1_000 });
upstream.close();
