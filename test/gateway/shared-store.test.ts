/**
 * Two gateways on one store receive the same request at the same moment (a client retry sent to
 * two instances, issue 21): both answer, and the store holds the turn and its reply once — the
 * second writer finds the same message already stored under its id and takes it as its own.
 */
import { afterEach, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/index.ts';
import { memoryStore } from '../../src/stores/memory/index.ts';
import { type OpenAIUpstream, startOpenAIUpstream } from './openai-upstream.ts';

let upstream: OpenAIUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
});

it('stores a request sent to two gateways at once one time', async () => {
  upstream = await startOpenAIUpstream();
  const store = memoryStore();
  // Two instances: the copies of a turn they would store differ (their timestamps), not their ids.
  const gateways = [0, 1].map(() => createGateway({ upstream: `${upstream?.url}/v1`, store }));
  const messages = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'first' },
  ];
  const send = (index: number) =>
    gateways[index]?.app.request('http://127.0.0.1/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test-model', messages }),
    }) as Promise<Response>;
  for (let round = 0; round < 5; round++) {
    const responses = await Promise.all([send(0), send(1)]);
    expect(responses.map((response) => response.status)).toEqual([200, 200]);
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as {
      choices: { message: { content: string } }[];
    }[];
    messages.push({ role: 'assistant', content: bodies[0]?.choices[0]?.message.content as string });
    messages.push({ role: 'user', content: `turn ${round}` });
  }
  const sessionId = (await store.listSessions())[0]?.id as string;
  const rows = await store.messages(sessionId);
  // Every message of the conversation once, in order (the last user turn was not sent yet).
  expect(rows.map((row) => row.message.role)).toEqual(messages.slice(0, -1).map((message) => message.role));
  expect(await store.listSessions()).toHaveLength(1);
});
