import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { agentRun as sharedAgentRun } from '../../../test/integrations/agent-run.ts';
import { createRecordingSession } from '../../../test/integrations/recording-session.ts';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { fromOpenAI, toOpenAI } from '../../messages/openai.ts';
import type { Message } from '../../messages/types.ts';
import { validate } from '../../messages/validate.ts';
import { createChatfold } from '../../session/create-chatfold.ts';
import { EMPTY_LEDGER } from '../../summarize/ledger.ts';
import { countTokens } from '../../tokens/count-tokens.ts';
import type { IntegrationEvent } from '../prompt-fitter.ts';
import { openaiSummarizer } from './summarizer.ts';
import { withChatfold } from './with-chatfold.ts';

const SYSTEM = 'You are a coding agent.';

const agentRun = (rounds: number): ChatCompletionMessageParam[] =>
  toOpenAI(sharedAgentRun(rounds, 60, { system: SYSTEM }));

interface Sent {
  readonly body: { messages: ChatCompletionMessageParam[]; stream?: boolean; stream_options?: unknown };
}

const completion = (text: string, prompt = 1500) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: text, refusal: null, annotations: [] },
      finish_reason: 'stop',
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: prompt, completion_tokens: 9, total_tokens: prompt + 9 },
});

/** The documented stream: role chunk, content deltas, finish chunk, then the usage-only chunk. */
function sse(text: string, withUsage: boolean, prompt = 2100): string {
  const base = { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o' };
  const chunks: unknown[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    ...text.split(' ').map((word, i) => ({
      ...base,
      choices: [{ index: 0, delta: { content: i === 0 ? word : ` ${word}` }, finish_reason: null }],
    })),
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
  ];
  if (withUsage)
    chunks.push({
      ...base,
      choices: [],
      usage: { prompt_tokens: prompt, completion_tokens: 4, total_tokens: prompt + 4 },
    });
  return `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`;
}

const overflowBody = (actual: number, limit: number) => ({
  error: {
    message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${actual} tokens. Please reduce the length of the messages.`,
    type: 'invalid_request_error',
    param: 'messages',
    code: 'context_length_exceeded',
  },
});

const tokensOf = (messages: ChatCompletionMessageParam[]) =>
  countTokens(fromOpenAI(messages), { model: 'gpt-4o' }).total;

/**
 * An OpenAI client over an in-process `fetch`: the real SDK builds the requests and parses the
 * answers (JSON, SSE, 400 errors); `limit` plays the provider's context window.
 */
function fakeOpenAI({
  limit = Number.POSITIVE_INFINITY,
  text = 'All green.',
  alwaysOverflow = false,
  streamedPromptTokens = undefined as ((tokens: number) => number) | undefined,
} = {}) {
  const sent: Sent[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as Sent['body'];
    sent.push({ body });
    const tokens = tokensOf(body.messages);
    if (alwaysOverflow) return Response.json(overflowBody(9000, 8192), { status: 400 });
    if (tokens > limit) return Response.json(overflowBody(tokens, limit), { status: 400 });
    if (body.stream === true) {
      const withUsage =
        (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      return new Response(sse(text, withUsage, streamedPromptTokens?.(tokens)), {
        headers: { 'content-type': 'text/event-stream' },
      });
    }
    return Response.json(completion(text, tokens));
  };
  const client = new OpenAI({ apiKey: 'test', baseURL: 'http://fake.local/v1', fetch, maxRetries: 0 });
  return { client, sent };
}

describe('withChatfold (RT-2)', () => {
  it('sends a short conversation exactly as given and returns the completion', async () => {
    const { client, sent } = fakeOpenAI();
    const openai = withChatfold(client);
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Hello' }];
    const result = await openai.chat.completions.create({ model: 'gpt-4o', messages });
    expect(result.choices[0]?.message.content).toBe('All green.');
    expect(sent[0]?.body.messages).toEqual(messages);
  });

  it('compacts a long conversation into the budget, valid for OpenAI', async () => {
    const { client, sent } = fakeOpenAI();
    const events: IntegrationEvent[] = [];
    const openai = withChatfold(client, { window: 8000, onEvent: (event) => events.push(event) });
    const messages = agentRun(40);
    await openai.chat.completions.create({ model: 'gpt-4o', messages });
    const end = events.find((event) => event.type === 'compaction-end');
    const budget = end?.type === 'compaction-end' ? end.report.budget.messages : 0;
    const body = sent[0]?.body.messages ?? [];
    expect(tokensOf(messages)).toBeGreaterThan(budget);
    expect(tokensOf(body)).toBeLessThanOrEqual(budget);
    expect(validate(fromOpenAI(body), { provider: 'openai' })).toEqual([]);
    expect(body.at(-1)).toEqual(messages.at(-1));
  });

  it('streams every chunk through and hides the usage chunk it asked for', async () => {
    const { client, sent } = fakeOpenAI({ text: 'one two three' });
    const openai = withChatfold(client, { window: 8000 });
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: agentRun(40),
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('one two three');
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    expect(sent[0]?.body.stream_options).toEqual({ include_usage: true });
    expect(typeof stream.toReadableStream).toBe('function');
  });

  it('keeps the usage chunk when the caller asked for it', async () => {
    const { client } = fakeOpenAI({ text: 'hi' });
    const stream = await withChatfold(client).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 2100, completion_tokens: 4, total_tokens: 2104 });
  });

  it('leaves the rest of the client alone', async () => {
    const { client } = fakeOpenAI();
    const openai = withChatfold(client);
    expect(openai.models).toBe(client.models);
    expect(openai.chat.completions.list).toBeTypeOf('function');
    expect(openai.baseURL).toBe('http://fake.local/v1');
  });
});

describe('withChatfold, reactive overflow (RT-3)', () => {
  it('compacts against the limit in the 400 and retries once; the limit is kept for later calls', async () => {
    const { client, sent } = fakeOpenAI({ limit: 6000 });
    const openai = withChatfold(client);
    const messages = agentRun(40);
    const result = await openai.chat.completions.create({ model: 'gpt-4o', messages });
    expect(result.choices[0]?.message.content).toBe('All green.');
    expect(sent).toHaveLength(2);
    expect(tokensOf(sent[1]?.body.messages ?? [])).toBeLessThanOrEqual(6000);
    await openai.chat.completions.create({ model: 'gpt-4o', messages, stream: true });
    expect(sent).toHaveLength(3);
  });

  it('throws E_CONTEXT_OVERFLOW with the numbers when the retry overflows too', async () => {
    const { client, sent } = fakeOpenAI({ alwaysOverflow: true });
    const openai = withChatfold(client);
    const error = await openai.chat.completions
      .create({ model: 'gpt-4o', messages: agentRun(40), stream: true })
      .catch((caught: unknown) => caught);
    expect(sent).toHaveLength(2);
    expect(ChatfoldError.hasCode(error, 'E_CONTEXT_OVERFLOW')).toBe(true);
    expect((error as ChatfoldError).details).toEqual({ limit: 8192, actual: 9000, provider: 'openai' });
    expect((error as ChatfoldError).cause).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('throws E_CONTEXT_OVERFLOW without a retry when nothing fits the reported limit', async () => {
    const { client, sent } = fakeOpenAI({ limit: 10 });
    const error = await withChatfold(client)
      .chat.completions.create({ model: 'gpt-4o', messages: agentRun(40) })
      .catch((caught: unknown) => caught);
    expect(sent).toHaveLength(1);
    expect(ChatfoldError.hasCode(error, 'E_CONTEXT_OVERFLOW')).toBe(true);
    expect((error as ChatfoldError).details).toMatchObject({ limit: 10, provider: 'openai' });
    expect(ChatfoldError.hasCode((error as ChatfoldError).cause, 'E_BUDGET_IMPOSSIBLE')).toBe(true);
  });
});

describe('withChatfold with a session (RT-1, RT-2)', () => {
  it('appends new messages and the reply once, records usage on the reply, streaming and not', async () => {
    const session = createRecordingSession();
    const { client } = fakeOpenAI({ text: 'Sure thing' });
    const openai = withChatfold(client, { session });
    const history: ChatCompletionMessageParam[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'Hello' },
    ];
    const first = await openai.chat.completions.create({ model: 'gpt-4o', messages: history });
    history.push(first.choices[0]?.message as ChatCompletionMessageParam, { role: 'user', content: 'Again' });
    const stream = await openai.chat.completions.create({ model: 'gpt-4o', messages: history, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    // The app rebuilds the streamed reply its own way; the session already has it.
    history.push({ role: 'assistant', content: text }, { role: 'user', content: 'Thanks' });
    await openai.chat.completions.create({ model: 'gpt-4o', messages: history });
    const roles = session.rows.map((row) => row.message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(session.rows.map((row) => (row.message.parts[0] as { text?: string }).text)).toEqual([
      SYSTEM,
      'Hello',
      'Sure thing',
      'Again',
      'Sure thing',
      'Thanks',
      'Sure thing',
    ]);
    expect(session.usage[0]).toMatchObject({ outputTokens: 9, messageId: 'r2' });
    expect(session.usage[1]).toEqual({ inputTokens: 2100, outputTokens: 4, messageId: 'r4' });
    expect(session.prepared[0]).toEqual({ provider: 'openai' });
  });
});

describe('withChatfold with createChatfold (RT-1, RT-2)', () => {
  it('keeps each message once, replies included, with their usage; compacts within budget', async () => {
    const session = await createChatfold({ model: 'gpt-4o', window: 8000 }).session('chat-1');
    const { client, sent } = fakeOpenAI({
      text: 'Looking into it.',
      streamedPromptTokens: (tokens) => tokens,
    });
    const openai = withChatfold(client, { session });
    const run = agentRun(40).slice(0, -1);
    const history: ChatCompletionMessageParam[] = [];
    for (let rounds = 5; rounds <= 40; rounds += 5) {
      history.push(...run.slice(history.length === 0 ? 0 : 2 + 3 * (rounds - 5), 2 + 3 * rounds));
      if (rounds % 10 === 0) {
        const stream = await openai.chat.completions.create({
          model: 'gpt-4o',
          messages: history,
          stream: true,
        });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        history.push({ role: 'assistant', content: text });
      } else {
        const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages: history });
        history.push(completion.choices[0]?.message as ChatCompletionMessageParam);
      }
      history.push({ role: 'user', content: `Continue (${rounds})` });
    }
    const status = await session.status();
    const rows = await session.history();
    expect(rows.map((row) => row.message.role)).toEqual(fromOpenAI(history.slice(0, -1)).map((m) => m.role));
    expect(
      rows.filter((row) => row.message.role === 'assistant' && row.inputTokens !== undefined),
    ).toHaveLength(8);
    expect(status.compactions).toBeGreaterThan(0);
    for (const request of sent) expect(tokensOf(request.body.messages)).toBeLessThanOrEqual(status.budget);
  });
});

describe('openaiSummarizer (SUM-5)', () => {
  it('sends the summary prompt to its model with the limit and returns the text', async () => {
    const { client, sent } = fakeOpenAI({
      text: 'The agent read twenty files and traced the failure to src/app.ts.',
    });
    const summarizer = openaiSummarizer(client, { model: 'gpt-4o-mini', temperature: 0 });
    const signal = new AbortController().signal;
    const text = await summarizer({
      messages: [] as Message[],
      ledger: EMPTY_LEDGER,
      variant: 'code',
      maxTokens: 700,
      prompt: { system: 'Summarize.', user: 'The transcript.' },
      signal,
    });
    expect(text).toBe('The agent read twenty files and traced the failure to src/app.ts.');
    expect(sent[0]?.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Summarize.' },
        { role: 'user', content: 'The transcript.' },
      ],
      max_completion_tokens: 700,
      temperature: 0,
    });
  });
});
