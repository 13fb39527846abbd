/**
 * SIGKILL mid-stream (issue 21): a gateway process killed while it streams an answer loses no
 * message the client had sent — they are stored before the upstream is called. Restarted on the
 * same SQLite file, the gateway takes the client's retry into the same session without storing
 * anything twice, and stores the answer that time.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { sqliteStore } from '../../src/stores/sqlite/index.ts';
import { type GatewayProcess, spawnGateway } from './gateway-process.ts';
import { type OpenAIUpstream, startOpenAIUpstream } from './openai-upstream.ts';

let upstream: OpenAIUpstream | undefined;
const processes: GatewayProcess[] = [];
afterEach(async () => {
  for (const gateway of processes.splice(0))
    if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  await upstream?.close();
});

it('keeps every acknowledged message across a SIGKILL mid-stream and a retry', async () => {
  let held = true;
  let release: () => void = () => undefined;
  upstream = await startOpenAIUpstream({
    holdStream: () =>
      held
        ? new Promise<void>((resolve) => {
            release = resolve;
          })
        : Promise.resolve(),
  });
  const storeFile = join(mkdtempSync(join(tmpdir(), 'chatfold-gateway-crash-')), 'gateway.db');
  const args = ['--upstream', `${upstream.url}/v1`, '--port', '0', '--store', storeFile, '--no-background'];
  const first = spawnGateway(args);
  processes.push(first);
  const url = await first.ready();
  const messages = [
    { role: 'system', content: 'You answer in one line.' },
    { role: 'user', content: 'first question' },
    { role: 'assistant', content: 'first answer' },
    { role: 'user', content: 'second question, streamed' },
  ];
  const body = JSON.stringify({ model: 'test-model', messages, stream: true });
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  expect(response.status).toBe(200);
  const sessionId = response.headers.get('x-chatfold-session') as string;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const firstChunk = await reader.read();
  expect(new TextDecoder().decode(firstChunk.value)).toContain('"role":"assistant"');
  first.child.kill('SIGKILL');
  await first.exit;
  release();
  held = false;
  await reader.read().catch(() => undefined);

  // Everything the client sent is in the file; the answer that never finished is not.
  const store = sqliteStore(storeFile);
  expect((await store.messages(sessionId)).map((row) => row.message.role)).toEqual([
    'system',
    'user',
    'assistant',
    'user',
  ]);
  await store.close();

  // The client retries against a restarted gateway: the same session, nothing stored twice.
  const second = spawnGateway(args);
  processes.push(second);
  const retryUrl = await second.ready();
  const retry = await fetch(`${retryUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const text = await retry.text();
  expect(retry.headers.get('x-chatfold-session')).toBe(sessionId);
  expect(retry.headers.get('x-chatfold-branched-from')).toBeNull();
  expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  second.child.kill('SIGTERM');
  expect(await second.exit).toBe(0);
  const after = sqliteStore(storeFile);
  const rows = await after.messages(sessionId);
  expect(rows.map((row) => row.message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
  expect(rows[4]?.message.parts[0]).toMatchObject({ type: 'text', text: 'ack 4: second question, str' });
  await after.close();
});

it('finishes a stream in flight on SIGTERM before it exits, and stores its reply', async () => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  upstream = await startOpenAIUpstream({ holdStream: () => held });
  const storeFile = join(mkdtempSync(join(tmpdir(), 'chatfold-gateway-drain-')), 'gateway.db');
  const gateway = spawnGateway([
    '--upstream',
    `${upstream.url}/v1`,
    '--port',
    '0',
    '--store',
    storeFile,
    '--no-background',
  ]);
  processes.push(gateway);
  const url = await gateway.ready();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'test-model',
      messages: [{ role: 'user', content: 'a slow answer' }],
      stream: true,
    }),
  });
  const sessionId = response.headers.get('x-chatfold-session') as string;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  gateway.child.kill('SIGTERM');
  // The gateway says it is stopping, and waits for the stream.
  while (!gateway.output().stdout.includes('stopping'))
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(gateway.child.exitCode).toBeNull();
  release();
  let text = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
    text += new TextDecoder().decode(chunk.value);
  expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  expect(await gateway.exit).toBe(0);
  const store = sqliteStore(storeFile);
  expect((await store.messages(sessionId)).map((row) => row.message.role)).toEqual(['user', 'assistant']);
  await store.close();
});
