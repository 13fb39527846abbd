/**
 * The gateway in front of an OpenAI-compatible upstream that is not chatfold's fake provider,
 * driven by the official `openai` SDK (issue 21): a conversation that overflows the upstream's
 * window when sent directly fits through the gateway; streaming with usage; parallel tool calls;
 * branches; the overflow retry; errors passed through unchanged; /v1/models.
 */
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayEvent, type GatewayServer, startGateway } from '../../src/gateway/index.ts';
import { memoryStore } from '../../src/stores/memory/index.ts';
import type { FullStore } from '../../src/stores/types.ts';
import { namedIds, type OpenAIUpstream, startOpenAIUpstream, upstreamTokens } from './openai-upstream.ts';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const SYSTEM = 'You are a terse assistant that answers in one line.';
/** A user turn of about 80 tokens that differs per turn. */
const question = (turn: number) =>
  `Question ${turn}: ${'please summarise the quarterly numbers again '.repeat(7)}`;

let upstream: OpenAIUpstream;
let gateway: GatewayServer;
let store: FullStore;
let events: GatewayEvent[];

async function start(limit: number, window: number, recall = false): Promise<void> {
  upstream = await startOpenAIUpstream({ limit });
  store = memoryStore();
  events = [];
  gateway = await startGateway({
    upstream: `${upstream.url}/v1`,
    store,
    port: 0,
    config: { window, recall },
    upstreamAuth: { type: 'passthrough' },
    onEvent: (event) => events.push(event),
  });
}

afterEach(async () => {
  await gateway?.close({ drainMs: 1_000 });
  await upstream?.close();
});

const client = (baseURL: string, headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL, apiKey: 'client-key', maxRetries: 0, defaultHeaders: headers });

describe('a long conversation through the OpenAI SDK', () => {
  beforeEach(() => start(2_000, 2_000));

  it('overflows the upstream when sent directly and fits through the gateway, storing every message', async () => {
    const turns = 40;
    // Directly: the SDK resends the whole history, and the upstream refuses it once it is too long.
    const direct = client(`${upstream.url}/v1`);
    const history: ChatMessage[] = [{ role: 'system', content: SYSTEM }];
    let directError: unknown;
    for (let turn = 1; turn <= turns && directError === undefined; turn++) {
      history.push({ role: 'user', content: question(turn) });
      try {
        const completion = await direct.chat.completions.create({ model: 'test-model', messages: history });
        history.push(completion.choices[0]?.message as ChatMessage);
      } catch (error) {
        directError = error;
      }
    }
    expect(directError).toBeInstanceOf(OpenAI.BadRequestError);
    expect((directError as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');

    const viaGateway = client(`${gateway.url}/v1`);
    const messages: ChatMessage[] = [{ role: 'system', content: SYSTEM }];
    const sessions = new Set<string>();
    let compactedTurns = 0;
    const sentBefore = upstream.requests.length;
    for (let turn = 1; turn <= turns; turn++) {
      messages.push({ role: 'user', content: question(turn) });
      const { data, response } = await viaGateway.chat.completions
        .create({ model: 'test-model', messages, temperature: 0.2 })
        .withResponse();
      const reply = data.choices[0]?.message;
      expect(reply?.content).toMatch(/^ack \d+: Question \d+/);
      messages.push(reply as ChatMessage);
      sessions.add(response.headers.get('x-chatfold-session') ?? '');
      if (response.headers.get('x-chatfold-compacted') === 'true') compactedTurns++;
      expect(response.headers.get('x-chatfold-branched-from')).toBeNull();
      expect(response.headers.get('x-upstream')).toBe('test');
    }
    expect(sessions.size).toBe(1);
    expect(compactedTurns).toBeGreaterThan(0);
    const sent = upstream.requests.slice(sentBefore);
    // What the upstream saw: fewer messages than the client sent, other fields untouched.
    const last = sent.at(-1)?.body as { messages: unknown[]; temperature: number; model: string };
    expect(last.messages.length).toBeLessThan(messages.length - 1);
    expect(last.temperature).toBe(0.2);
    expect(last.model).toBe('test-model');
    // Nothing is lost: the store holds every message once, the replies included.
    const [sessionId] = [...sessions];
    const stored = await store.messages(sessionId as string);
    expect(stored).toHaveLength(messages.length);
    expect(stored.map((row) => row.message.role)).toEqual(messages.map((message) => message.role));
    // Between compactions the prompt keeps a stable prefix (prompt caches keep working).
    const cached = events.filter(
      (event): event is Extract<GatewayEvent, { type: 'request' }> => event.type === 'request',
    );
    expect(cached.some((event) => event.cachedPrefixTokens > 0)).toBe(true);
    // O(new messages): the first request brings system + user, every later one only its user turn.
    expect(cached.map((event) => event.newMessages)).toEqual([2, ...Array<number>(turns - 1).fill(1)]);
  });
});

describe('streaming, tools and sessions', () => {
  beforeEach(() => start(1_000_000, 100_000));

  it('passes an SSE stream through with usage and stores the reassembled reply', async () => {
    const openai = client(`${gateway.url}/v1`);
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'Stream me a short answer please' },
    ];
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'test-model', messages, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('ack 2: Stream me a short an');
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    const sessionId = response.headers.get('x-chatfold-session') as string;
    const stored = await store.messages(sessionId);
    expect(stored.map((row) => row.message.role)).toEqual(['system', 'user', 'assistant']);
    expect(stored[2]?.message.parts).toEqual([expect.objectContaining({ type: 'text', text })]);
    expect(stored[2]?.inputTokens).toBe(usage?.prompt_tokens);
  });

  it('forwards parallel tool calls, streamed and not, and keeps the conversation in one session', async () => {
    const openai = client(`${gateway.url}/v1`);
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'What is the weather in Paris and Oslo?' },
    ];
    // Streamed: the SDK's own stream helper reassembles the two calls from the deltas.
    const runner = openai.chat.completions.stream({
      model: 'test-model',
      messages,
      tools,
      parallel_tool_calls: true,
    });
    const streamed = await runner.finalChatCompletion();
    const calls = streamed.choices[0]?.message.tool_calls ?? [];
    expect(calls.map((call) => call.type === 'function' && JSON.parse(call.function.arguments).city)).toEqual(
      ['Paris', 'Oslo'],
    );
    messages.push(streamed.choices[0]?.message as ChatMessage);
    for (const call of calls) {
      const city =
        call.type === 'function' ? (JSON.parse(call.function.arguments) as { city: string }).city : '';
      messages.push({ role: 'tool', tool_call_id: call.id, content: `${city}: 12°C` });
    }
    const { data, response } = await openai.chat.completions
      .create({ model: 'test-model', messages, tools })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('tools said: Paris: 12°C / Oslo: 12°C');
    expect(response.headers.get('x-chatfold-branched-from')).toBeNull();
    const sessionId = response.headers.get('x-chatfold-session') as string;
    const stored = await store.messages(sessionId);
    expect(stored.map((row) => row.message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    // The tools went upstream as sent, and the tool results in the order of their calls.
    const last = upstream.requests.at(-1)?.body as {
      tools: unknown;
      messages: { role: string; tool_call_id?: string }[];
    };
    expect(last.tools).toEqual(tools);
    expect(
      last.messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id),
    ).toEqual(calls.map((call) => call.id));
  });

  it('starts a branch when the client edits earlier history, and names the session it left', async () => {
    const openai = client(`${gateway.url}/v1`);
    const first: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'Tell me about apples' },
    ];
    const one = await openai.chat.completions.create({ model: 'test-model', messages: first }).withResponse();
    const root = one.response.headers.get('x-chatfold-session') as string;
    first.push(one.data.choices[0]?.message as ChatMessage, { role: 'user', content: 'And pears?' });
    const two = await openai.chat.completions.create({ model: 'test-model', messages: first }).withResponse();
    expect(two.response.headers.get('x-chatfold-session')).toBe(root);

    // The client rewrites the assistant's answer: a branch, and the root keeps its history.
    const edited: ChatMessage[] = [
      first[0] as ChatMessage,
      first[1] as ChatMessage,
      { role: 'assistant', content: 'Apples are red.' },
      { role: 'user', content: 'And pears?' },
    ];
    const three = await openai.chat.completions
      .create({ model: 'test-model', messages: edited })
      .withResponse();
    const branch = three.response.headers.get('x-chatfold-session') as string;
    expect(branch).not.toBe(root);
    expect(three.response.headers.get('x-chatfold-branched-from')).toBe(root);
    expect((await store.messages(root)).map((row) => row.message.role)).toHaveLength(5);
    expect(await store.messages(branch)).toHaveLength(5);
    // The branch's next turn finds the branch again.
    edited.push(three.data.choices[0]?.message as ChatMessage, { role: 'user', content: 'And plums?' });
    const four = await openai.chat.completions
      .create({ model: 'test-model', messages: edited })
      .withResponse();
    expect(four.response.headers.get('x-chatfold-session')).toBe(branch);
    expect(await store.messages(branch)).toHaveLength(7);
  });

  it('uses the session the client names with x-chatfold-session', async () => {
    const openai = client(`${gateway.url}/v1`, { 'x-chatfold-session': 'user-42' });
    const { response } = await openai.chat.completions
      .create({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(response.headers.get('x-chatfold-session')).toBe('user-42');
    expect(await store.messages('user-42')).toHaveLength(2);
    // The gateway's own header does not go upstream.
    expect(upstream.requests.at(-1)?.headers['x-chatfold-session']).toBeUndefined();
  });

  it('proxies /v1/models and passes upstream errors through unchanged', async () => {
    const openai = client(`${gateway.url}/v1`);
    const models = await openai.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['test-model']);
    const wrong = client(`${gateway.url}/v1`);
    wrong.apiKey = 'wrong-key';
    const error = await wrong.chat.completions
      .create({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
    // The client's key went upstream (pass-through), never the gateway's own headers.
    expect(upstream.requests.at(-1)?.headers.authorization).toBe('Bearer wrong-key');
  });

  it('answers a body that is not a Chat Completions request with an OpenAI-shaped 400', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test-model', messages: [{ role: 'wizard', content: 'x' }] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; type: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.code).toBe('E_UNKNOWN_ROLE');
  });
});

describe('the overflow retry', () => {
  it('compacts against the limit the upstream reports and sends once more', async () => {
    // The gateway believes the window is 100k; the upstream holds 1,500 (its own count).
    await start(1_500, 100_000);
    const openai = client(`${gateway.url}/v1`);
    const messages: ChatMessage[] = [{ role: 'system', content: SYSTEM }];
    for (let turn = 1; turn <= 30; turn++) {
      messages.push(
        { role: 'user', content: question(turn) },
        { role: 'assistant', content: `answer ${turn}` },
      );
    }
    messages.push({ role: 'user', content: 'the last question' });
    const { data, response } = await openai.chat.completions
      .create({ model: 'test-model', messages })
      .withResponse();
    expect(data.choices[0]?.message.content).toMatch(/^ack \d+: the last question/);
    expect(response.headers.get('x-chatfold-compacted')).toBe('true');
    const retry = events.find((event) => event.type === 'overflow-retry');
    expect(retry).toMatchObject({ type: 'overflow-retry', limit: 1_500 });
    expect(upstream.requests.at(-2)?.body.messages).toHaveLength(messages.length);
    expect((upstream.requests.at(-1)?.body.messages as unknown[] | undefined)?.length).toBeLessThan(
      messages.length,
    );
  });
});

describe('chatfold_recall', () => {
  it('answers the model from the full history without a round trip to the client, and stores no trace of it', async () => {
    await start(1_000_000, 2_000, true);
    const openai = client(`${gateway.url}/v1`);
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'Remember this: the vault code is 7291.' },
    ];
    for (let turn = 1; turn <= 30; turn++) {
      const completion = await openai.chat.completions.create({ model: 'test-model', messages });
      messages.push(completion.choices[0]?.message as ChatMessage, { role: 'user', content: question(turn) });
    }
    messages.push({ role: 'user', content: 'recall: vault' });
    const { data, response } = await openai.chat.completions
      .create({ model: 'test-model', messages })
      .withResponse();
    const reply = data.choices[0]?.message;
    // The model asked, the gateway answered from the store, the model answered the client.
    expect(reply?.tool_calls).toBeUndefined();
    expect(reply?.content).toMatch(
      /^recalled: \[#2 user id=\S+ (in-context|summarized|omitted|masked|clipped)\]\nRemember this: the vault code is 7291\./,
    );
    expect(response.headers.get('x-chatfold-compacted')).toBe('true');
    const [asking, answered] = upstream.requests
      .slice(-2)
      .map(
        (request) =>
          request.body as { messages: { role: string }[]; tools: { function: { name: string } }[] },
      );
    expect(asking?.tools.map((tool) => tool.function.name)).toEqual(['chatfold_recall']);
    expect(answered?.messages.at(-1)?.role).toBe('tool');
    expect(events.filter((event) => event.type === 'recall')).toHaveLength(1);
    // The session holds the client's history and the final answer — not the recall exchange.
    const stored = await store.messages(response.headers.get('x-chatfold-session') as string);
    expect(stored).toHaveLength(messages.length + 1);
    expect(stored.at(-1)?.message.parts).toEqual([
      expect.objectContaining({ type: 'text', text: reply?.content }),
    ]);
  });
});

describe('chatfold_recall by id, streamed and not', () => {
  /** A conversation whose early turns a summary or marker has replaced by now. */
  async function compactedConversation(openai: OpenAI): Promise<ChatMessage[]> {
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'We are planning the quarter.' },
    ];
    const turns = [
      'Remember this: the vault code is 7291.',
      ...Array.from({ length: 30 }, (_, i) => question(i)),
    ];
    for (const turn of turns) {
      messages.push({ role: 'user', content: turn });
      const completion = await openai.chat.completions.create({ model: 'test-model', messages });
      messages.push(completion.choices[0]?.message as ChatMessage);
    }
    return messages;
  }

  it('the model asks for the ids a summary or marker names; the gateway answers inside the stream, which the client reads as one answer', async () => {
    await start(1_000_000, 2_000, true);
    const openai = client(`${gateway.url}/v1`);
    const messages = await compactedConversation(openai);

    // Not streamed: the ids the projection names come back from the store.
    messages.push({ role: 'user', content: 'recall by id: what was the code?' });
    const whole = await openai.chat.completions.create({ model: 'test-model', messages });
    const asked = upstream.requests.at(-2)?.body.messages as { content: unknown }[];
    const named = namedIds(JSON.stringify(asked));
    expect(named).toMatch(/^gw-\w+\.\.gw-\w+$/);
    expect(whole.choices[0]?.message.tool_calls).toBeUndefined();
    // What the model wrote beside its call comes first, as the stream below shows it.
    expect(whole.choices[0]?.message.content).toMatch(
      /^Let me look that up\. recalled: \[#\d+ user id=gw-\w+ (summarized|omitted)\]\n/,
    );
    expect(whole.choices[0]?.message.content).toContain('Remember this: the vault code is 7291.');
    messages.push(whole.choices[0]?.message as ChatMessage);

    // Streamed, chunk by chunk: no recall call, one completion id, one finish, usage once.
    messages.push({ role: 'user', content: 'recall by id, streamed this time' });
    const sentBefore = upstream.requests.length;
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'test-model', messages, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(upstream.requests.length - sentBefore).toBe(2);
    expect(upstream.requests.at(-1)?.body.stream).toBe(true);
    const roundMessages = upstream.requests.at(-1)?.body.messages as { role: string }[] | undefined;
    expect(roundMessages?.at(-1)?.role).toBe('tool');
    expect(
      chunks.some((chunk) => chunk.choices.some((choice) => choice.delta.tool_calls !== undefined)),
    ).toBe(false);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    const finishes = chunks
      .flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason))
      .filter(Boolean);
    expect(finishes).toEqual(['stop']);
    expect(chunks.filter((chunk) => chunk.usage != null)).toHaveLength(1);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toMatch(/^Let me look that up\. recalled: \[#\d+ user id=gw-\w+ (summarized|omitted)\]\n/);
    expect(text).toContain('Remember this: the vault code is 7291.');
    expect(events.filter((event) => event.type === 'recall')).toHaveLength(2);

    // The session stores what the client read, and nothing of the recall exchange.
    const stored = await store.messages(response.headers.get('x-chatfold-session') as string);
    expect(stored).toHaveLength(messages.length + 1);
    expect(stored.at(-1)?.message.parts).toEqual([expect.objectContaining({ type: 'text', text })]);

    // The SDK's stream helper assembles the same single answer.
    messages.push({ role: 'assistant', content: text }, { role: 'user', content: 'recall by id, once more' });
    const final = await openai.chat.completions
      .stream({ model: 'test-model', messages })
      .finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls ?? []).toEqual([]);
    expect(final.choices[0]?.message.content).toContain('the vault code is 7291');
    expect(final.choices[0]?.finish_reason).toBe('stop');
  });

  it('a stream whose recall round the upstream refuses ends with what the client has, and says so', async () => {
    await start(1_000_000, 2_000, true);
    const openai = client(`${gateway.url}/v1`);
    const messages = await compactedConversation(openai);
    messages.push({ role: 'user', content: 'recall by id: what was the code?' });
    // The first request fits (it is about as long as the last one); the recall round, carrying
    // the recalled messages, does not.
    upstream.setLimit(upstreamTokens(upstream.requests.at(-1)?.body ?? {}) + 300);
    const stream = await openai.chat.completions.create({ model: 'test-model', messages, stream: true });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Let me look that up. ');
    expect(
      chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter(Boolean),
    ).toEqual(['stop']);
    expect(events.find((event) => event.type === 'recall-failed')).toMatchObject({
      type: 'recall-failed',
      stream: true,
      reason: 'upstream status 400',
    });
  });
});
