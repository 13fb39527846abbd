import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fromOpenAI } from '../../messages/openai.ts';
import { EMPTY_LEDGER } from '../../summarize/ledger.ts';
import { buildSummaryPrompt } from '../../summarize/prompts.ts';
import { countTokens } from '../../tokens/count-tokens.ts';
import { type FakeProviderServer, startFakeProvider } from '../index.ts';

let server: FakeProviderServer;
let openai: OpenAI;
beforeAll(async () => {
  server = await startFakeProvider({ contextLimit: { 'gpt-4o': 128_000, 'tiny-model': 50 } });
  openai = new OpenAI({ apiKey: 'sk-fake', baseURL: `${server.url}/v1`, maxRetries: 0 });
});
beforeEach(() => server.reset());
afterAll(() => server.close());

const hello = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'Hello there, fake model' },
];

describe('fake OpenAI Chat Completions through the openai SDK', () => {
  it('answers a non-streaming chat with the echo and chatfold-counted usage', async () => {
    const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages: hello });
    const expected = countTokens(fromOpenAI(hello), { model: 'gpt-4o' }).total;
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-4o',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: { role: 'assistant', content: 'Hello there, fake model' },
        },
      ],
      usage: { prompt_tokens: expected, completion_tokens: 6, total_tokens: expected + 6 },
    });
    expect(server.requests).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/chat/completions' }),
    ]);
  });

  it('streams chunks and a final usage chunk with empty choices', async () => {
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Hello there, fake model');
    expect(chunks.length).toBeGreaterThan(3);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: 6 });
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('streams without usage unless include_usage is set', async () => {
    const stream = await openai.chat.completions.create({ model: 'gpt-4o', messages: hello, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.choices.length === 1 && chunk.usage == null)).toBe(true);
  });

  it('makes scripted tool calls and answers the tool result (round trip)', async () => {
    server.configure({
      respond: (request) =>
        request.messages.at(-1)?.role === 'tool'
          ? { text: 'It is sunny in Paris.' }
          : { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    });
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.chat.completions.create({ model: 'gpt-4o', messages, tools });
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    expect(call).toMatchObject({
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    });
    expect(call?.id).toMatch(/^call_/);
    messages.push(choice?.message as OpenAI.ChatCompletionMessageParam, {
      role: 'tool',
      tool_call_id: call?.id ?? '',
      content: '{"sky":"sunny"}',
    });
    const second = await openai.chat.completions.create({ model: 'gpt-4o', messages, tools });
    expect(second.choices[0]?.message.content).toBe('It is sunny in Paris.');
  });

  it('streams tool calls that the SDK accumulates', async () => {
    server.configure({
      respond: () => ({ toolCalls: [{ id: 'call_1', name: 'ls', arguments: { path: '.' } }] }),
    });
    const stream = openai.chat.completions.stream({ model: 'gpt-4o', messages: hello });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      id: 'call_1',
      function: { name: 'ls', arguments: '{"path":"."}' },
    });
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('refuses prompts over the context limit with the real context_length_exceeded error', async () => {
    const error = await openai.chat.completions
      .create({ model: 'tiny-model', messages: [{ role: 'user', content: 'word '.repeat(200) }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const apiError = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(apiError.status).toBe(400);
    expect(apiError.code).toBe('context_length_exceeded');
    expect(apiError.type).toBe('invalid_request_error');
    expect(apiError.param).toBe('messages');
    expect(apiError.message).toMatch(
      /^400 This model's maximum context length is 50 tokens\. However, your messages resulted in \d+ tokens\. Please reduce the length of the messages\.$/,
    );
    expect(apiError.requestID).toMatch(/^req_/);
  });

  it('answers with a structured summary when asked by chatfold’s summarization prompt', async () => {
    const prompt = buildSummaryPrompt({
      messages: fromOpenAI([{ role: 'user', content: 'Fix src/app.ts' }]),
      ledger: { ...EMPTY_LEDGER, filesModified: ['src/app.ts'] },
      goal: 'Fix the login bug',
      variant: 'code',
      maxTokens: 500,
    });
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: prompt.system },
        { role: 'user', content: prompt.user },
      ],
    });
    const text = completion.choices[0]?.message.content ?? '';
    expect(text).toMatch(/^## Goal and context\n/);
    expect(text).toContain('## Next steps');
    expect(text).toContain('Fix the login bug');
  });

  it('fails scheduled requests; the SDK retries 429 with retry-after and 5xx', async () => {
    const retrying = new OpenAI({ apiKey: 'sk-fake', baseURL: `${server.url}/v1`, maxRetries: 2 });
    server.configure({ failures: [{ status: 429, retryAfter: 0 }, { status: 503 }] });
    const completion = await retrying.chat.completions.create({ model: 'gpt-4o', messages: hello });
    expect(completion.choices[0]?.message.content).toBe('Hello there, fake model');
    expect(server.requests).toHaveLength(3);
    server.configure({ failAlways: { status: 500, message: 'boom' } });
    await expect(openai.chat.completions.create({ model: 'gpt-4o', messages: hello })).rejects.toBeInstanceOf(
      OpenAI.InternalServerError,
    );
  });

  it('times out on latency', async () => {
    server.configure({ latencyMs: 300 });
    await expect(
      openai.chat.completions.create({ model: 'gpt-4o', messages: hello }, { timeout: 50 }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it('validates like the API: key, model and messages', async () => {
    const anonymous = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    await expect(openai.chat.completions.create({ model: 'gpt-4o', messages: [] })).rejects.toMatchObject({
      status: 400,
      code: 'empty_array',
    });
  });

  it('lists models', async () => {
    const ids = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(['gpt-4o', 'tiny-model']);
  });
});
