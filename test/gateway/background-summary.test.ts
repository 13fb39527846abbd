/**
 * Summaries off the request path (issue 21): with a background queue, the gateway's sessions
 * queue a summary job past the early threshold; a worker writes it with the summarizer model on
 * the upstream while requests keep flowing — none waits for it — and the stored summary is
 * applied when the trigger fires, with no model call on the request path.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, expect, it } from 'vitest';
import { createInProcessQueue } from '../../src/background/in-process-queue.ts';
import { runCompactionWorker } from '../../src/background/run-worker.ts';
import {
  type GatewayEvent,
  type GatewayServer,
  startGateway,
  upstreamSummarizer,
} from '../../src/gateway/index.ts';
import { sqliteStore } from '../../src/stores/sqlite/index.ts';
import type { Summarizer, SummaryRequest } from '../../src/summarize/types.ts';
import { type OpenAIUpstream, startOpenAIUpstream } from './openai-upstream.ts';

let upstream: OpenAIUpstream | undefined;
let gateway: GatewayServer | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await gateway?.close({ drainMs: 1_000 });
  await upstream?.close();
});

it('writes the summary in a worker while requests go on, and applies it when the trigger fires', async () => {
  upstream = await startOpenAIUpstream();
  const store = sqliteStore(join(mkdtempSync(join(tmpdir(), 'chatfold-gateway-bg-')), 'gateway.db'));
  const queue = createInProcessQueue();
  // The summarizer is held until the test lets it go: a request that waited for it would never end.
  let release: (() => void) | undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started = 0;
  const summarizer: Summarizer = async () => {
    started++;
    await held;
    return 'BACKGROUND SUMMARY: the user asked about the quarterly numbers many times.';
  };
  const events: GatewayEvent[] = [];
  gateway = await startGateway({
    upstream: `${upstream.url}/v1`,
    store,
    port: 0,
    config: { window: 6_000, policy: 'default' },
    summarizer,
    background: { queue },
    onEvent: (event) => events.push(event),
  });
  const runtime = gateway.gateway.runtime;
  const stop = await runCompactionWorker({ chatfold: { session: (id) => runtime.session(id) }, queue });
  cleanups.push(async () => {
    await stop();
    await queue.close();
    await store.close();
  });

  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You answer in one line.' },
  ];
  let sessionId = '';
  const turn = async (n: number) => {
    messages.push({
      role: 'user',
      content: `Turn ${n}: ${'what were the quarterly numbers again '.repeat(8)}`,
    });
    const { data, response } = await openai.chat.completions
      .create({ model: 'test-model', messages })
      .withResponse();
    messages.push(data.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessageParam);
    sessionId = response.headers.get('x-chatfold-session') as string;
    return response.headers.get('x-chatfold-compacted') === 'true';
  };
  // Turns until the worker has started a summary; then more turns while it is held.
  let n = 0;
  while (started === 0 && n < 60) await turn(++n);
  expect(started).toBe(1);
  for (let extra = 0; extra < 3; extra++) await turn(++n);
  expect(started).toBe(1);

  release?.();
  const session = await runtime.session(sessionId);
  // The worker stores the plan; polled, never timed.
  while (
    (await session.status()).pendingSummary === undefined &&
    (await session.compactions()).length === 0
  ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  let compacted = false;
  while (!compacted && n < 120) compacted = await turn(++n);
  expect(compacted).toBe(true);
  const sent = JSON.stringify(upstream.requests.at(-1)?.body.messages);
  expect(sent).toContain('BACKGROUND SUMMARY');
  const records = await session.compactions();
  expect(records.at(-1)?.summarySource).toBe('llm');
  // Nothing was lost: the store holds every message.
  expect(await store.messages(sessionId)).toHaveLength(messages.length);
  expect(events.some((event) => event.type === 'summary' && event.source === 'llm')).toBe(true);
});

it('upstreamSummarizer asks the summarizer model on the upstream, with the gateway key and the length limit', async () => {
  upstream = await startOpenAIUpstream();
  const summarize = upstreamSummarizer({
    upstream: `${upstream.url}/v1`,
    model: 'summary-model',
    auth: { type: 'key', key: 'sk-summaries' },
  });
  const text = await summarize({
    messages: [],
    ledger: { facts: [], decisions: [], files: [], openQuestions: [] } as unknown as SummaryRequest['ledger'],
    variant: 'general',
    maxTokens: 300,
    prompt: { system: 'Summarize.', user: 'the conversation so far' },
    signal: new AbortController().signal,
  });
  expect(text).toBe('ack 2: the conversation so ');
  expect(upstream.requests.at(-1)?.body).toMatchObject({ model: 'summary-model', max_tokens: 300 });
  expect(upstream.requests.at(-1)?.headers.authorization).toBe('Bearer sk-summaries');
});
