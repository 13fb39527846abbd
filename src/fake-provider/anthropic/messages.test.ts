import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProvider } from '../index.ts';

let server: FakeProviderServer;
let anthropic: Anthropic;
beforeAll(async () => {
  server = await startFakeProvider({ contextLimit: { 'claude-tiny': 30, '*': 200_000 } });
  anthropic = new Anthropic({ apiKey: 'sk-ant-fake', baseURL: server.url, maxRetries: 0 });
});
beforeEach(() => server.reset());
afterAll(() => server.close());

const hello = {
  model: 'claude-sonnet-4-6',
  max_tokens: 100,
  system: 'Be terse.',
  messages: [{ role: 'user' as const, content: 'Hello, fake Claude' }],
};

describe('fake Anthropic Messages through @anthropic-ai/sdk', () => {
  it('answers a message with usage that matches count_tokens', async () => {
    const message = await anthropic.messages.create(hello);
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello, fake Claude' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: expect.any(Number), output_tokens: 5 },
    });
    const { system, messages, model } = hello;
    const counted = await anthropic.messages.countTokens({ model, system, messages });
    expect(counted.input_tokens).toBe(message.usage.input_tokens);
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it('streams message_start … message_stop events the SDK assembles, with usage', async () => {
    const stream = anthropic.messages.stream(hello);
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const final = await stream.finalMessage();
    expect(final.content).toMatchObject([{ type: 'text', text: 'Hello, fake Claude' }]);
    expect(final.content).toHaveLength(1);
    expect(final.usage.output_tokens).toBe(5);
    expect(final.usage.input_tokens).toBeGreaterThan(0);
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_delta');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
  });

  it('makes scripted tool calls, streamed or not, and answers the tool result', async () => {
    server.configure({
      respond: (request) =>
        request.messages.at(-1)?.role === 'tool'
          ? { text: 'Sunny.' }
          : { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    });
    const tools = [
      {
        name: 'get_weather',
        input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
      },
    ];
    const ask = { ...hello, tools, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] };
    const first = await anthropic.messages.create(ask);
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content[0];
    if (use?.type !== 'tool_use') throw new Error('expected a tool_use block');
    expect(use).toMatchObject({
      name: 'get_weather',
      input: { city: 'Paris' },
      id: expect.stringMatching(/^toolu_/),
    });
    const streamed = await anthropic.messages.stream(ask).finalMessage();
    expect(streamed.content[0]).toMatchObject({
      type: 'tool_use',
      name: 'get_weather',
      input: { city: 'Paris' },
    });
    const second = await anthropic.messages.create({
      ...ask,
      messages: [
        ...ask.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'Sunny.' }]);
  });

  it('refuses prompts over the context limit with the real error and request-id', async () => {
    const error = await anthropic.messages
      .create({ ...hello, model: 'claude-tiny', messages: [{ role: 'user', content: 'word '.repeat(100) }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const apiError = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect(apiError.status).toBe(400);
    expect(apiError.error).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringMatching(/^prompt is too long: \d+ tokens > 30 maximum$/),
      },
    });
    expect(apiError.requestID).toMatch(/^req_/);
  });

  it('injects failures: 529 overloaded, 429 with retry-after that the SDK honours', async () => {
    server.configure({ failures: [{ status: 529 }] });
    await expect(anthropic.messages.create(hello)).rejects.toMatchObject({
      status: 529,
      error: { error: { type: 'overloaded_error' } },
    });
    const retrying = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 1 });
    server.configure({ failures: [{ status: 429, retryAfter: 0 }] });
    expect((await retrying.messages.create(hello)).content).toHaveLength(1);
    expect(server.requests.filter((request) => request.path === '/v1/messages')).toHaveLength(3);
  });

  it('requires max_tokens as the API does', async () => {
    const { max_tokens: _omitted, ...noMax } = hello;
    await expect(anthropic.messages.create(noMax as typeof hello)).rejects.toMatchObject({
      status: 400,
      error: { error: { message: 'max_tokens: Field required' } },
    });
  });
});
