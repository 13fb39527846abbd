/**
 * The gateway in front of an Anthropic Messages upstream, driven by the official
 * `@anthropic-ai/sdk` (issue 21): a long conversation fits, streamed events with tool use pass
 * through and the reassembled turn is stored, parallel tool results continue the same session,
 * `count_tokens` counts the projection, and the upstream's overflow error is retried once.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayEvent, type GatewayServer, startGateway } from '../../src/gateway/index.ts';
import { memoryStore } from '../../src/stores/memory/index.ts';
import type { FullStore } from '../../src/stores/types.ts';
import { type AnthropicUpstream, startAnthropicUpstream } from './anthropic-upstream.ts';
import { namedIds } from './openai-upstream.ts';

let upstream: AnthropicUpstream;
let gateway: GatewayServer;
let store: FullStore;
let events: GatewayEvent[];

async function start(limit: number, window: number, recall = false): Promise<Anthropic> {
  upstream = await startAnthropicUpstream({ limit });
  store = memoryStore();
  events = [];
  gateway = await startGateway({
    upstream: `${upstream.url}/v1`,
    upstreamFormat: 'anthropic',
    upstreamAuth: { type: 'key', key: 'sk-ant-gateway' },
    store,
    port: 0,
    config: { window, recall },
    onEvent: (event) => events.push(event),
  });
  return new Anthropic({ baseURL: gateway.url, apiKey: 'client-key', maxRetries: 0 });
}

afterEach(async () => {
  await gateway?.close({ drainMs: 1_000 });
  await upstream?.close();
});

const SYSTEM = 'You are terse.';
const question = (turn: number) => `Turn ${turn}: ${'describe the lighthouse keeper again '.repeat(8)}`;

describe('the gateway with the Anthropic SDK', () => {
  it('keeps a long conversation inside a small window and stores every turn', async () => {
    const anthropic = await start(2_000, 2_000);
    const messages: Anthropic.MessageParam[] = [];
    const sessions = new Set<string>();
    let compacted = 0;
    for (let turn = 1; turn <= 30; turn++) {
      messages.push({ role: 'user', content: question(turn) });
      const { data, response } = await anthropic.messages
        .create({ model: 'claude-test', max_tokens: 200, system: SYSTEM, messages })
        .withResponse();
      const text = data.content[0]?.type === 'text' ? data.content[0].text : '';
      expect(text).toMatch(/^ack \d+: Turn \d+/);
      messages.push({ role: 'assistant', content: data.content });
      sessions.add(response.headers.get('x-chatfold-session') ?? '');
      if (response.headers.get('x-chatfold-compacted') === 'true') compacted++;
    }
    expect(sessions.size).toBe(1);
    expect(compacted).toBeGreaterThan(0);
    const stored = await store.messages([...sessions][0] as string);
    // The system prompt, then every turn.
    expect(stored).toHaveLength(61);
    // The gateway's key went upstream, not the client's.
    expect(upstream.requests.at(-1)?.headers['x-api-key']).toBe('sk-ant-gateway');
    const last = upstream.requests.at(-1)?.body as { max_tokens: number; messages: unknown[] };
    expect(last.max_tokens).toBe(200);
    expect(last.messages.length).toBeLessThan(messages.length);
  });

  it('streams tool use through, then continues the same session with parallel tool results', async () => {
    const anthropic = await start(1_000_000, 100_000);
    const tools: Anthropic.Tool[] = [
      {
        name: 'get_weather',
        description: 'Weather of a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris and Oslo?' }];
    const stream = anthropic.messages.stream({
      model: 'claude-test',
      max_tokens: 200,
      system: SYSTEM,
      messages,
      tools,
    });
    const final = await stream.finalMessage();
    const uses = final.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(uses.map((block) => (block.input as { city: string }).city)).toEqual(['Paris', 'Oslo']);
    const sessionId = (await stream.withResponse()).response.headers.get('x-chatfold-session') as string;
    // The streamed turn was reassembled and stored: text, then both calls with their input.
    const afterStream = await store.messages(sessionId);
    expect(afterStream.map((row) => row.message.role)).toEqual(['system', 'user', 'assistant']);
    expect(afterStream[2]?.message.parts.map((part) => part.type)).toEqual([
      'text',
      'tool-call',
      'tool-call',
    ]);
    messages.push(
      { role: 'assistant', content: final.content },
      {
        role: 'user',
        content: uses.map((use) => ({
          type: 'tool_result' as const,
          tool_use_id: use.id,
          content: `${(use.input as { city: string }).city}: 12°C`,
        })),
      },
    );
    const { data, response } = await anthropic.messages
      .create({ model: 'claude-test', max_tokens: 200, system: SYSTEM, messages, tools })
      .withResponse();
    expect(data.content[0]).toMatchObject({ type: 'text', text: 'tools said: Paris: 12°C / Oslo: 12°C' });
    expect(response.headers.get('x-chatfold-session')).toBe(sessionId);
    expect(response.headers.get('x-chatfold-branched-from')).toBeNull();
  });

  it('counts the tokens of the projection with the upstream', async () => {
    const anthropic = await start(1_000_000, 100_000);
    const counted = await anthropic.messages.countTokens({
      model: 'claude-test',
      system: SYSTEM,
      messages: [{ role: 'user', content: 'How many tokens is this?' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(upstream.requests.at(-1)?.path).toBe('/v1/messages/count_tokens');
    // Counting is not a turn: nothing was stored.
    expect(await store.listSessions()).toHaveLength(0);
  });

  it('retries once, compacted, after the upstream says the prompt is too long', async () => {
    const anthropic = await start(1_200, 100_000);
    const messages: Anthropic.MessageParam[] = [];
    for (let turn = 1; turn <= 20; turn++) {
      messages.push(
        { role: 'user', content: question(turn) },
        { role: 'assistant', content: `noted ${turn}` },
      );
    }
    messages.push({ role: 'user', content: 'final question' });
    const reply = await anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      system: SYSTEM,
      messages,
    });
    expect(reply.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^ack \d+: final question/),
    });
    expect(events.find((event) => event.type === 'overflow-retry')).toMatchObject({ limit: 1_200 });
  });
});

describe('chatfold_recall with the Anthropic SDK', () => {
  it('answers the model from the full history and returns an ordinary answer', async () => {
    const anthropic = await start(1_000_000, 2_000, true);
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Remember: the ferry leaves at 06:40.' },
    ];
    for (let turn = 1; turn <= 25; turn++) {
      const reply = await anthropic.messages.create({
        model: 'claude-test',
        max_tokens: 100,
        system: SYSTEM,
        messages,
      });
      messages.push({ role: 'assistant', content: reply.content }, { role: 'user', content: question(turn) });
    }
    // The last question asks for the recall (one user turn: Anthropic turns alternate).
    const lastQuestion = messages.pop();
    messages.push({ role: 'user', content: `${String(lastQuestion?.content)}\nrecall: ferry` });
    const { data, response } = await anthropic.messages
      .create({ model: 'claude-test', max_tokens: 100, system: SYSTEM, messages })
      .withResponse();
    expect(data.content.map((block) => block.type)).toEqual(['text']);
    expect(data.content[0]).toMatchObject({
      text: expect.stringContaining('Remember: the ferry leaves at 06:40.'),
    });
    expect(events.filter((event) => event.type === 'recall')).toHaveLength(1);
    const stored = await store.messages(response.headers.get('x-chatfold-session') as string);
    // The system prompt, the client's turns and the final answer: no trace of the exchange.
    expect(stored).toHaveLength(messages.length + 2);
  });
});

describe('chatfold_recall by id, streamed, with the Anthropic SDK', () => {
  it('the model asks for the ids a summary or marker names; the gateway answers inside the event stream, which the client reads as one message', async () => {
    const anthropic = await start(1_000_000, 2_000, true);
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'We are planning a trip.' }];
    const turns = [
      'Remember: the ferry leaves at 06:40.',
      ...Array.from({ length: 25 }, (_, i) => question(i)),
    ];
    for (const turn of turns) {
      const reply = await anthropic.messages.create({
        model: 'claude-test',
        max_tokens: 100,
        system: SYSTEM,
        messages,
      });
      messages.push({ role: 'assistant', content: reply.content }, { role: 'user', content: turn });
    }
    const reply = await anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      system: SYSTEM,
      messages,
    });
    messages.push(
      { role: 'assistant', content: reply.content },
      { role: 'user', content: 'recall by id: when does the ferry leave?' },
    );
    const sentBefore = upstream.requests.length;
    const { data: stream, response } = await anthropic.messages
      .create({ model: 'claude-test', max_tokens: 100, system: SYSTEM, messages, stream: true })
      .withResponse();
    const events_: Anthropic.MessageStreamEvent[] = [];
    for await (const event of stream) events_.push(event);
    expect(upstream.requests.length - sentBefore).toBe(2);
    const asked = JSON.stringify(upstream.requests.at(-2)?.body.messages);
    expect(namedIds(asked)).toMatch(/^gw-\w+\.\.gw-\w+$/);
    // One message: one start, one stop, blocks numbered 0, 1 with no tool use, the turn ended.
    expect(events_.filter((event) => event.type === 'message_start')).toHaveLength(1);
    expect(events_.filter((event) => event.type === 'message_stop')).toHaveLength(1);
    const starts = events_.filter((event) => event.type === 'content_block_start');
    expect(starts.map((event) => [event.index, event.content_block.type])).toEqual([
      [0, 'text'],
      [1, 'text'],
    ]);
    const delta = events_.find((event) => event.type === 'message_delta');
    expect(delta?.type === 'message_delta' && delta.delta.stop_reason).toBe('end_turn');
    const texts = ['', ''];
    for (const event of events_)
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        texts[event.index] += event.delta.text;
    expect(texts[0]).toBe('Let me look that up. ');
    expect(texts[1]).toMatch(/^recalled: \[#\d+ (user|assistant) id=gw-\w+ (summarized|omitted)\]\n/);
    expect(texts[1]).toContain('Remember: the ferry leaves at 06:40.');
    expect(events.filter((event) => event.type === 'recall')).toHaveLength(1);
    // The session stores the message the client read, and nothing of the recall exchange.
    const stored = await store.messages(response.headers.get('x-chatfold-session') as string);
    expect(stored).toHaveLength(messages.length + 2);
    expect(stored.at(-1)?.message.parts).toEqual([
      expect.objectContaining({ type: 'text', text: texts[0] }),
      expect.objectContaining({ type: 'text', text: texts[1] }),
    ]);

    // The SDK's stream helper assembles the same message.
    messages.push(
      { role: 'assistant', content: texts.map((text) => ({ type: 'text' as const, text })) },
      { role: 'user', content: 'recall by id, once more' },
    );
    const final = await anthropic.messages
      .stream({ model: 'claude-test', max_tokens: 100, system: SYSTEM, messages })
      .finalMessage();
    expect(final.content.map((block) => block.type)).toEqual(['text', 'text']);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.content[1]?.type === 'text' && final.content[1].text).toContain('the ferry leaves at 06:40');

    // Not streamed: the same two text blocks, the model's words before its call first.
    messages.push(
      {
        role: 'assistant',
        content: final.content.map((block) => ({
          type: 'text' as const,
          text: block.type === 'text' ? block.text : '',
        })),
      },
      { role: 'user', content: 'recall by id, not streamed' },
    );
    const whole = await anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      system: SYSTEM,
      messages,
    });
    expect(whole.content.map((block) => block.type)).toEqual(['text', 'text']);
    expect(whole.content[0]?.type === 'text' && whole.content[0].text).toBe('Let me look that up. ');
    expect(whole.content[1]?.type === 'text' && whole.content[1].text).toContain('the ferry leaves at 06:40');
    expect(whole.stop_reason).toBe('end_turn');
  });
});
