import type {
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';
import { generateText, jsonSchema, type ModelMessage, streamText, tool, wrapLanguageModel } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { LAST_REQUEST, agentRun as sharedAgentRun } from '../../../test/integrations/agent-run.ts';
import { createRecordingSession } from '../../../test/integrations/recording-session.ts';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { toAiSdk } from '../../messages/ai-sdk.ts';
import type { Message } from '../../messages/types.ts';
import { validate } from '../../messages/validate.ts';
import { createChatfold } from '../../session/create-chatfold.ts';
import { parseSummaryMessage } from '../../summarize/summary-message.ts';
import { countTokens } from '../../tokens/count-tokens.ts';
import type { IntegrationEvent } from '../prompt-fitter.ts';
import { fromLanguageModelPrompt } from './language-model-prompt.ts';
import { chatfoldMiddleware } from './middleware.ts';

const SYSTEM = 'You are a coding agent.';

/** An agent run of `rounds` tool rounds, as an AI SDK app holds it (system prompt apart). */
const agentRun = (rounds: number): ModelMessage[] => toAiSdk(sharedAgentRun(rounds, 60));

const usage = (input: number, output: number): LanguageModelV4GenerateResult['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

const reply = (text: string): LanguageModelV4GenerateResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: usage(1234, 56),
  warnings: [],
});

const streamReply = (text: string) => ({
  stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: text },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(2000, 7) },
  ]),
});

/** OpenAI's documented 400 for a prompt over the window, as the AI SDK surfaces it. */
const overflowError = (actual: number, limit = 8192) =>
  new APICallError({
    message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${actual} tokens. Please reduce the length of the messages.`,
    url: 'https://api.openai.com/v1/chat/completions',
    requestBodyValues: {},
    statusCode: 400,
    responseBody: JSON.stringify({
      error: {
        message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${actual} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    }),
    isRetryable: false,
  });

/** chatfold's summary message (its metadata stays in chatfold; the text says what it is). */
const isSummary = (message: Message): boolean =>
  message.parts[0]?.type === 'text' && parseSummaryMessage(message.parts[0].text) !== undefined;

const promptTokens = (call: LanguageModelV4CallOptions | undefined) =>
  countTokens(fromLanguageModelPrompt(call?.prompt ?? []), { model: 'gpt-4o' }).total;

describe('chatfoldMiddleware, stateless (RT-2)', () => {
  it('sends a conversation under the triggers as it came', async () => {
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: reply('ok'),
    });
    const plain = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: reply('ok'),
    });
    const messages = agentRun(2);
    await generateText({
      model: wrapLanguageModel({ model, middleware: chatfoldMiddleware() }),
      instructions: SYSTEM,
      messages,
    });
    await generateText({ model: plain, instructions: SYSTEM, messages });
    expect(model.doGenerateCalls[0]?.prompt).toEqual(plain.doGenerateCalls[0]?.prompt);
  });

  it('compacts a long conversation into the budget of the wrapped model, valid, reply intact', async () => {
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: reply('All green.'),
    });
    const events: IntegrationEvent[] = [];
    const wrapped = wrapLanguageModel({
      model,
      middleware: chatfoldMiddleware({ window: 8000, onEvent: (event) => events.push(event) }),
    });
    const messages = agentRun(40);
    const result = await generateText({ model: wrapped, instructions: SYSTEM, messages });
    expect(result.text).toBe('All green.');
    const sent = fromLanguageModelPrompt(model.doGenerateCalls[0]?.prompt ?? []);
    const end = events.find((event) => event.type === 'compaction-end');
    expect(end?.type === 'compaction-end' && end.report.provider).toBe('openai');
    const budget = end?.type === 'compaction-end' ? end.report.budget.messages : 0;
    expect(promptTokens(model.doGenerateCalls[0])).toBeLessThanOrEqual(budget);
    expect(validate(sent, { provider: 'openai' })).toEqual([]);
    // The goal and the latest request are sent verbatim; older rounds went into a summary.
    expect(sent[0]).toMatchObject({ role: 'system', parts: [{ text: SYSTEM }] });
    expect(sent.at(-1)).toMatchObject({
      role: 'user',
      parts: [{ text: LAST_REQUEST }],
    });
    expect(sent.some(isSummary)).toBe(true);
  });

  it('streams through, the parts unchanged', async () => {
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doStream: streamReply('streamed'),
    });
    const wrapped = wrapLanguageModel({ model, middleware: chatfoldMiddleware({ window: 8000 }) });
    const result = streamText({ model: wrapped, instructions: SYSTEM, messages: agentRun(40) });
    expect(await result.text).toBe('streamed');
    expect((await result.usage).inputTokens).toBe(2000);
    expect(promptTokens(model.doStreamCalls[0])).toBeLessThan(8000);
  });

  it('never fails a request because of the summarizer: a throwing one falls back to the extractive summary', async () => {
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: reply('ok'),
    });
    const events: IntegrationEvent[] = [];
    const wrapped = wrapLanguageModel({
      model,
      middleware: chatfoldMiddleware({
        window: 8000,
        onEvent: (event) => events.push(event),
        summarizer: async () => {
          throw new Error('summarizer model is down');
        },
      }),
    });
    const result = await generateText({ model: wrapped, instructions: SYSTEM, messages: agentRun(40) });
    expect(result.text).toBe('ok');
    expect(fromLanguageModelPrompt(model.doGenerateCalls[0]?.prompt ?? []).some(isSummary)).toBe(true);
    const end = events.find((event) => event.type === 'compaction-end');
    const notes = end?.type === 'compaction-end' ? end.report.stages.flatMap((stage) => stage.notes) : [];
    expect(notes).toContainEqual(
      expect.stringContaining('fell back to extractive: summarizer failed: summarizer model is down'),
    );
  });

  it('rejects bad options when it is built, not on every call (E_INVALID_OPTIONS)', () => {
    expect(() => chatfoldMiddleware({ window: 8000, strategy: 'no-such-strategy' })).toThrow(
      expect.objectContaining({ code: 'E_UNKNOWN_STRATEGY' }),
    );
    expect(() => chatfoldMiddleware({ window: 8000, target: 5 })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_OPTIONS', message: expect.stringMatching(/target/) }),
    );
    expect(() => chatfoldMiddleware({ window: 8000, stratgy: 'hybrid' } as never)).toThrow(
      expect.objectContaining({
        code: 'E_INVALID_OPTIONS',
        message: expect.stringMatching(/unknown option "stratgy"/),
      }),
    );
  });

  it('sends the prompt as it came when preparing fails, and says so', async () => {
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: reply('ok'),
    });
    const events: IntegrationEvent[] = [];
    const wrapped = wrapLanguageModel({
      model,
      middleware: chatfoldMiddleware({
        window: 8000,
        // A runtime fault (the tokenizer crashes), not bad configuration.
        counter: {
          tokenizer: 'broken',
          accuracy: 'approximate',
          countText: () => 1,
          countMessage: () => 1,
          count: () => {
            throw new Error('tokenizer crashed');
          },
        },
        onEvent: (e) => events.push(e),
      }),
    });
    const messages = agentRun(40);
    const result = await generateText({ model: wrapped, instructions: SYSTEM, messages });
    expect(result.text).toBe('ok');
    expect(events.map((event) => event.type)).toContain('prepare-error');
    expect(fromLanguageModelPrompt(model.doGenerateCalls[0]?.prompt ?? [])).toHaveLength(messages.length + 1);
  });
});

describe('chatfoldMiddleware, reactive overflow (RT-3)', () => {
  it('compacts against the limit the error reported and retries once', async () => {
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async (options) => {
        if (promptTokens(options) > 6000) throw overflowError(promptTokens(options), 6000);
        return reply('fits now');
      },
    });
    const events: IntegrationEvent[] = [];
    const wrapped = wrapLanguageModel({
      model,
      middleware: chatfoldMiddleware({ onEvent: (e) => events.push(e) }),
    });
    // 128k in the registry: nothing to compact until the provider says otherwise.
    const messages = agentRun(40);
    const result = await generateText({ model: wrapped, instructions: SYSTEM, messages, maxRetries: 0 });
    expect(result.text).toBe('fits now');
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(promptTokens(model.doGenerateCalls[0])).toBeGreaterThan(6000);
    expect(promptTokens(model.doGenerateCalls[1])).toBeLessThanOrEqual(6000);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'overflow-retry', provider: 'openai', limit: 6000 }),
    );
    // The limit is learned: the next call is compacted before it is sent.
    await generateText({ model: wrapped, instructions: SYSTEM, messages, maxRetries: 0 });
    expect(model.doGenerateCalls).toHaveLength(3);
    expect(promptTokens(model.doGenerateCalls[2])).toBeLessThanOrEqual(6000);
  });

  it('throws E_CONTEXT_OVERFLOW with the numbers when the retry overflows too', async () => {
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doStream: async () => {
        throw overflowError(9000);
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware: chatfoldMiddleware() });
    const errors: unknown[] = [];
    const result = streamText({
      model: wrapped,
      instructions: SYSTEM,
      messages: agentRun(40),
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    await result.consumeStream();
    expect(model.doStreamCalls).toHaveLength(2);
    const error = errors[0];
    expect(ChatfoldError.hasCode(error, 'E_CONTEXT_OVERFLOW')).toBe(true);
    expect((error as ChatfoldError).details).toEqual({ limit: 8192, actual: 9000, provider: 'openai' });
    expect((error as ChatfoldError).cause).toBeInstanceOf(APICallError);
  });

  it('passes other errors through untouched, without a retry', async () => {
    const failure = new APICallError({
      message: 'Rate limit reached',
      url: 'https://api.openai.com/v1/chat/completions',
      requestBodyValues: {},
      statusCode: 429,
      isRetryable: false,
    });
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async () => {
        throw failure;
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware: chatfoldMiddleware() });
    await expect(generateText({ model: wrapped, messages: agentRun(1), maxRetries: 0 })).rejects.toBe(
      failure,
    );
    expect(model.doGenerateCalls).toHaveLength(1);
  });
});

describe('chatfoldMiddleware with a session (RT-1, RT-2)', () => {
  it('appends only what the session has not seen, sends its prompt, records usage', async () => {
    const session = createRecordingSession();
    const model = new MockLanguageModelV4({
      provider: 'anthropic.messages',
      modelId: 'claude-sonnet-4-5',
      doGenerate: reply('first'),
    });
    const wrapped = wrapLanguageModel({ model, middleware: chatfoldMiddleware({ session }) });
    const tools = {
      readFile: tool({
        description: 'Read a file',
        inputSchema: jsonSchema<{ path: string }>({
          type: 'object',
          properties: { path: { type: 'string' } },
        }),
        execute: async ({ path }) => `contents of ${path}`,
      }),
    };
    const history: ModelMessage[] = [{ role: 'user', content: 'Hello' }];
    const first = await generateText({ model: wrapped, instructions: SYSTEM, messages: history, tools });
    history.push(...first.response.messages, { role: 'user', content: 'Hello' });
    await generateText({ model: wrapped, instructions: SYSTEM, messages: history, tools });
    expect(session.appended.map((batch) => batch.map((message) => message.role))).toEqual([
      ['system', 'user'],
      ['assistant', 'user'],
    ]);
    expect(session.prepared[0]).toEqual({
      provider: 'anthropic',
      tools: [
        {
          name: 'readFile',
          description: 'Read a file',
          parameters: { type: 'object', properties: { path: { type: 'string' } } },
        },
      ],
    });
    expect(session.usage).toEqual([
      { inputTokens: 1234, outputTokens: 56 },
      { inputTokens: 1234, outputTokens: 56 },
    ]);
    // What the session prepared is what the model received.
    expect(fromLanguageModelPrompt(model.doGenerateCalls[1]?.prompt ?? []).map((m) => m.parts)).toEqual(
      session.rows.map((row) => row.message.parts),
    );
  });

  it('records streamed usage from the finish part', async () => {
    const session = createRecordingSession();
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doStream: streamReply('hi'),
    });
    const wrapped = wrapLanguageModel({ model, middleware: chatfoldMiddleware({ session }) });
    const result = streamText({ model: wrapped, messages: [{ role: 'user', content: 'Hello' }] });
    expect(await result.text).toBe('hi');
    expect(session.usage).toEqual([{ inputTokens: 2000, outputTokens: 7 }]);
  });

  it('on overflow asks the session for an overflow prompt with the reported numbers', async () => {
    const session = createRecordingSession();
    let calls = 0;
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async () => {
        calls++;
        if (calls === 1) throw overflowError(9000);
        return reply('ok');
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware: chatfoldMiddleware({ session }) });
    const result = await generateText({
      model: wrapped,
      messages: [{ role: 'user', content: 'Hello' }],
      maxRetries: 0,
    });
    expect(result.text).toBe('ok');
    expect(session.prepared[1]).toEqual({ provider: 'openai', overflow: { limit: 8192, actual: 9000 } });
  });
});

describe('chatfoldMiddleware with createChatfold (RT-1, RT-2, RT-3)', () => {
  it('stores a resent, growing history once and sends the session prompt, within budget', async () => {
    const session = await createChatfold({ model: 'gpt-4o', window: 8000 }).session('agent-1');
    // Usage as a provider reports it: the session calibrates its counter on it (TOK-5).
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async (options) => ({ ...reply('Next.'), usage: usage(promptTokens(options), 3) }),
    });
    const wrapped = wrapLanguageModel({ model, middleware: chatfoldMiddleware({ session }) });
    const run = agentRun(40).slice(0, -1); // the goal, then 40 rounds of three messages
    for (let rounds = 5; rounds <= 40; rounds += 5) {
      await generateText({ model: wrapped, instructions: SYSTEM, messages: run.slice(0, 1 + 3 * rounds) });
    }
    const status = await session.status();
    expect(status.messagesInHistory).toBe(1 + run.length);
    expect(status.compactions).toBeGreaterThan(0);
    for (const call of model.doGenerateCalls) {
      const sent = fromLanguageModelPrompt(call.prompt);
      expect(validate(sent, { provider: 'openai' })).toEqual([]);
      expect(promptTokens(call)).toBeLessThanOrEqual(status.budget);
    }
    const last = fromLanguageModelPrompt(model.doGenerateCalls.at(-1)?.prompt ?? []);
    expect(last.some(isSummary)).toBe(true);
  });

  it('learns the limit from an overflow: the session compacts against it and the retry fits', async () => {
    const session = await createChatfold({ model: 'gpt-4o' }).session('agent-2');
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async (options) => {
        if (promptTokens(options) > 6000) throw overflowError(promptTokens(options), 6000);
        return reply('fits');
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware: chatfoldMiddleware({ session }) });
    const result = await generateText({
      model: wrapped,
      instructions: SYSTEM,
      messages: agentRun(40),
      maxRetries: 0,
    });
    expect(result.text).toBe('fits');
    expect(model.doGenerateCalls).toHaveLength(2);
    expect((await session.status()).budget).toBeLessThan(6000);
  });
});
