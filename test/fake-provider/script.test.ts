/**
 * Scripted answers of the fake provider (issue 11 "Tests", issue 9 §2): a real tool loop run by
 * the AI SDK over each wire format, streamed and not; latency before the first byte and between
 * stream events; a slow and a failing summarizer; `times`.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, isStepCount, jsonSchema, type LanguageModel, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeProviderServer,
  type FakeScript,
  loadFakeScript,
  startFakeProvider,
} from '../../src/fake-provider/index.ts';
import { fromOpenAI } from '../../src/messages/openai.ts';
import { EMPTY_LEDGER } from '../../src/summarize/ledger.ts';
import { buildSummaryPrompt } from '../../src/summarize/prompts.ts';

let server: FakeProviderServer;
let script: FakeScript;
beforeAll(async () => {
  script = await loadFakeScript(new URL('./tool-loop.yaml', import.meta.url).pathname);
  server = await startFakeProvider({ script });
});
beforeEach(() => server.reset());
afterAll(() => server.close());

const models: Record<string, () => LanguageModel> = {
  openai: () => createOpenAI({ apiKey: 'sk-fake', baseURL: `${server.url}/v1` }).chat('gpt-4o'),
  anthropic: () =>
    createAnthropic({ apiKey: 'sk-ant-fake', baseURL: `${server.url}/v1` })('claude-sonnet-4-5'),
  gemini: () =>
    createGoogleGenerativeAI({ apiKey: 'fake', baseURL: `${server.url}/v1beta` })('gemini-2.5-flash'),
};

/** read_file and edit_file over a real folder, as the agent's workspace tools work. */
function workspaceTools(dir: string) {
  const path = jsonSchema<{ path: string }>({
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  });
  const edit = jsonSchema<{ path: string; old: string; new: string }>({
    type: 'object',
    properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } },
    required: ['path', 'old', 'new'],
  });
  return {
    read_file: tool({
      description: 'Read a file',
      inputSchema: path,
      execute: async (input) => readFile(join(dir, input.path), 'utf8'),
    }),
    edit_file: tool({
      description: 'Replace a string in a file',
      inputSchema: edit,
      execute: async (input) => {
        const file = join(dir, input.path);
        await writeFile(file, (await readFile(file, 'utf8')).replace(input.old, input.new));
        return 'edited';
      },
    }),
  };
}

describe('a scripted tool loop through the AI SDK (read, edit, read again)', () => {
  for (const provider of Object.keys(models)) {
    for (const streamed of [false, true]) {
      it(`${provider}, ${streamed ? 'streamed' : 'not streamed'}`, async () => {
        const dir = await mkdtemp(join(tmpdir(), 'chatfold-fake-script-'));
        await writeFile(join(dir, 'notes.md'), 'teh plan\n');
        const options = {
          model: (models[provider] as () => LanguageModel)(),
          tools: workspaceTools(dir),
          stopWhen: isStepCount(10),
          prompt: 'Please fix the typo in notes.md',
          maxRetries: 0,
        };
        const result = streamed ? streamText(options) : await generateText(options);
        const steps = await result.steps;
        expect(await result.text).toBe('Fixed the typo in notes.md.');
        expect(await readFile(join(dir, 'notes.md'), 'utf8')).toBe('the plan\n');
        expect(steps.map((step) => step.toolCalls.map((call) => call.toolName))).toEqual([
          ['read_file'],
          ['edit_file'],
          ['read_file'],
          [],
        ]);
        // The second read saw the edit: the loop really ran against the file.
        expect(steps[0]?.toolResults[0]?.output).toBe('teh plan\n');
        expect(steps[2]?.toolResults[0]?.output).toBe('the plan\n');
        expect(server.requests).toHaveLength(4);
      });
    }
  }

  it('answers an unscripted message with the default echo', async () => {
    const { text } = await generateText({ model: (models.openai as () => LanguageModel)(), prompt: 'hello' });
    expect(text).toBe('hello');
  });
});

const openai = () => new OpenAI({ apiKey: 'sk-fake', baseURL: `${server.url}/v1`, maxRetries: 0 });

const summaryMessages = (): OpenAI.ChatCompletionMessageParam[] => {
  const { system, user } = buildSummaryPrompt({
    messages: fromOpenAI([{ role: 'user', content: 'Plan the trip' }]),
    ledger: EMPTY_LEDGER,
    variant: 'general',
    maxTokens: 300,
  });
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
};

describe('latency and failures', () => {
  it('a slow summarizer: the scripted delay comes before the default structured summary', async () => {
    const started = Date.now();
    await expect(
      openai().chat.completions.create({ model: 'gpt-4o', messages: summaryMessages() }, { timeout: 300 }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    const completion = await openai().chat.completions.create({
      model: 'gpt-4o',
      messages: summaryMessages(),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(completion.choices[0]?.message.content).toMatch(/^## Context and goal\nFake summary/);
  });

  it('a failing summarizer, once (times: 1), in the provider’s error shape; then it recovers', async () => {
    server.configure({
      script: {
        rules: [{ match: { isSummary: true }, reply: { error: { status: 503, message: 'down' } }, times: 1 }],
      },
    });
    await expect(
      openai().chat.completions.create({ model: 'gpt-4o', messages: summaryMessages() }),
    ).rejects.toMatchObject({ status: 503, error: { message: 'down', type: 'server_error' } });
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 500,
      system: summaryMessages()[0]?.content as string,
      messages: [{ role: 'user', content: summaryMessages()[1]?.content as string }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^## /) });
  });

  it('a scripted 429 carries retry-after, in each provider’s shape', async () => {
    server.configure({ script: { rules: [{ reply: { error: { status: 429, retryAfter: 3 } } }] } });
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  it('chunkDelayMs spaces the stream events: the first delta arrives while the rest are still to come', async () => {
    server.configure({
      script: { rules: [{ reply: { text: 'one two three four five', chunkDelayMs: 150 } }] },
    });
    const stream = await openai().chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'count' }],
      stream: true,
    });
    const arrivals: { text: string; at: number }[] = [];
    for await (const chunk of stream)
      arrivals.push({ text: chunk.choices[0]?.delta.content ?? '', at: Date.now() });
    expect(arrivals.map((a) => a.text).join('')).toBe('one two three four five');
    // 5 words + role + finish = 7 events, 6 gaps of at least 150 ms each.
    const first = arrivals[0]?.at ?? 0;
    expect((arrivals.at(-1)?.at ?? 0) - first).toBeGreaterThanOrEqual(6 * 150 - 20);
  });

  it('a client that leaves mid-stream stops the writing; the server keeps serving', async () => {
    server.configure({ script: { rules: [{ reply: { text: 'a b c d e f g h', chunkDelayMs: 100 } }] } });
    const stream = await openai().chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    const received: string[] = [];
    for await (const chunk of stream) {
      received.push(chunk.choices[0]?.delta.content ?? '');
      if (received.length === 2) break; // the SDK aborts the request
    }
    expect(received.join('')).toBe('a ');
    server.configure({ script: undefined });
    const completion = await openai().chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'still here?' }],
    });
    expect(completion.choices[0]?.message.content).toBe('still here?');
  });

  it('matches on tools, system text, model and provider', async () => {
    server.configure({
      script: {
        rules: [
          { match: { hasTool: 'search', provider: 'openai' }, reply: { text: 'has search' } },
          { match: { systemIncludes: 'reviewer', model: 'gpt-4o-mini' }, reply: { text: 'reviewer' } },
          { match: { lastUserMatches: '^\\[slow\\]' }, reply: { text: 'marked' } },
        ],
      },
    });
    const ask = async (body: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming>) =>
      (
        await openai().chat.completions.create({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'hi' }],
          ...body,
        })
      ).choices[0]?.message.content;
    const search = { type: 'function' as const, function: { name: 'search', parameters: {} } };
    expect(await ask({ tools: [search] })).toBe('has search');
    const reviewer = [
      { role: 'system' as const, content: 'You are a code reviewer.' },
      { role: 'user' as const, content: 'hi' },
    ];
    expect(await ask({ model: 'gpt-4o-mini', messages: reviewer })).toBe('reviewer');
    expect(await ask({ messages: reviewer })).toBe('hi');
    expect(await ask({ messages: [{ role: 'user', content: '[slow] go' }] })).toBe('marked');
    expect(await ask({ messages: [{ role: 'user', content: 'go [slow]' }] })).toBe('go [slow]');
  });
});
