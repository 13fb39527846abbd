import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { fromOpenAI } from '../messages/openai.ts';
import { validate } from '../messages/validate.ts';
import { createMockSummarizer } from '../test/mock-summarizer.ts';
import { fromLanguageModelPrompt } from './ai-sdk/language-model-prompt.ts';
import { chatfoldMiddleware } from './ai-sdk/middleware.ts';
import { withChatfold } from './openai/with-chatfold.ts';
import type { IntegrationEvent } from './prompt-fitter.ts';

// Issue 19 §2: apps resend their whole history on every call; a stateless integration must
// summarize once per compaction, not once per request.

const TURNS = 300;

/** The user's question of turn `i`: about 90 tokens of plain prose (nothing to mask or clip). */
const question = (i: number): string =>
  `Question ${i}: ${Array.from({ length: 6 }, (_, j) => `module ${i}.${j} keeps ${j * 7 + i} entries and expires them after ${j + 3} minutes.`).join(' ')}`;
const answer = (i: number): string =>
  `Answer ${i}: noted, module ${i} is planned with a ${i % 5}-minute expiry.`;

const usage: LanguageModelV4GenerateResult['usage'] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** Counts compactions that ran, and checks what was sent between them kept its prefix. */
function compactionLog() {
  const events: IntegrationEvent[] = [];
  return {
    onEvent: (event: IntegrationEvent) => events.push(event),
    started: () => events.filter((event) => event.type === 'compaction-start').length,
    resets: () => events.filter((event) => event.type === 'projection-reset').length,
  };
}

describe('stateless integrations remember their last projection', () => {
  it('AI SDK middleware: 300 turns make one summarizer call per compaction, not one per turn', async () => {
    let turn = 0;
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async () => ({
        content: [{ type: 'text', text: answer(turn) }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      }),
    });
    const summarizer = createMockSummarizer((request) => `Summary of ${request.messages.length} messages.`);
    const log = compactionLog();
    const wrapped = wrapLanguageModel({
      model,
      middleware: chatfoldMiddleware({ window: 8_000, summarizer, onEvent: log.onEvent }),
    });
    const messages: ModelMessage[] = [];
    /** Compactions started up to the end of each turn's call. */
    const after: number[] = [];
    for (turn = 0; turn < TURNS; turn++) {
      messages.push({ role: 'user', content: question(turn) });
      const { text } = await generateText({ model: wrapped, instructions: 'Be brief.', messages });
      after.push(log.started());
      messages.push({ role: 'assistant', content: text });
    }
    const compactions = log.started();
    expect(compactions).toBeGreaterThan(3);
    // Each turn adds ~100 tokens; a compaction frees ~20 % of an 8,000 window: ~16 turns apart.
    expect(compactions).toBeLessThan(TURNS / 8);
    expect(summarizer.calls.length).toBeGreaterThan(0);
    expect(summarizer.calls.length).toBeLessThanOrEqual(compactions);
    expect(log.resets()).toBe(0);
    // Between compactions the prompt only grows at its end (a provider's prompt cache hits).
    const sent = model.doGenerateCalls.map((call) => fromLanguageModelPrompt(call.prompt));
    let stable = 0;
    for (let t = 1; t < TURNS; t++) {
      const previous = sent[t - 1] ?? [];
      const current = sent[t] ?? [];
      expect(validate(current, { provider: 'openai' })).toEqual([]);
      if (after[t] !== after[t - 1]) continue;
      expect(current.slice(0, previous.length).map((message) => message.parts)).toEqual(
        previous.map((message) => message.parts),
      );
      stable++;
    }
    expect(stable).toBe(TURNS - 1 - compactions);
  });

  it('OpenAI wrapper: 300 turns make one summarizer call per compaction, not one per turn', async () => {
    const sent: ChatCompletionMessageParam[][] = [];
    let turn = 0;
    const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const body = JSON.parse(String(init?.body)) as { messages: ChatCompletionMessageParam[] };
      sent.push(body.messages);
      return Response.json({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: answer(turn), refusal: null },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    };
    const client = new OpenAI({ apiKey: 'test', baseURL: 'http://fake.local/v1', fetch, maxRetries: 0 });
    const summarizer = createMockSummarizer((request) => `Summary of ${request.messages.length} messages.`);
    const log = compactionLog();
    const openai = withChatfold(client, { window: 8_000, summarizer, onEvent: log.onEvent });
    const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: 'Be brief.' }];
    for (turn = 0; turn < TURNS; turn++) {
      messages.push({ role: 'user', content: question(turn) });
      const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages });
      messages.push({ role: 'assistant', content: completion.choices[0]?.message.content ?? '' });
    }
    const compactions = log.started();
    expect(compactions).toBeGreaterThan(3);
    expect(compactions).toBeLessThan(TURNS / 8);
    expect(summarizer.calls.length).toBeGreaterThan(0);
    expect(summarizer.calls.length).toBeLessThanOrEqual(compactions);
    expect(log.resets()).toBe(0);
    // The last request went out compacted, valid, ending with the last question.
    const last = fromOpenAI(sent.at(-1) ?? []);
    expect(validate(last, { provider: 'openai' })).toEqual([]);
    expect(last.at(-1)?.parts).toEqual([{ type: 'text', text: question(TURNS - 1) }]);
    expect(last.length).toBeLessThan(messages.length / 4);
  });

  it('an edited history is compacted from scratch, not from the remembered projection', async () => {
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      }),
    });
    const summarizer = createMockSummarizer((request) => `Summary of ${request.messages.length} messages.`);
    const log = compactionLog();
    const wrapped = wrapLanguageModel({
      model,
      middleware: chatfoldMiddleware({ window: 8_000, summarizer, onEvent: log.onEvent }),
    });
    const messages: ModelMessage[] = [];
    for (let i = 0; i < 60; i++)
      messages.push({ role: 'user', content: question(i) }, { role: 'assistant', content: answer(i) });
    messages.push({ role: 'user', content: 'And now?' });
    await generateText({ model: wrapped, messages });
    expect(summarizer.calls.length).toBe(1);
    // The same history with its second question edited: the old summary does not stand for it.
    const edited: ModelMessage[] = [
      ...messages.slice(0, 2),
      { role: 'user', content: 'Question 1, edited.' },
      ...messages.slice(3),
    ];
    await generateText({ model: wrapped, messages: edited });
    expect(summarizer.calls.length).toBe(2);
    const summarized = summarizer.calls[1]?.messages.flatMap((message) => message.parts) ?? [];
    expect(summarized.some((part) => part.type === 'text' && part.text === 'Question 1, edited.')).toBe(true);
    // The unedited history again: its projection is remembered, no new summary.
    await generateText({ model: wrapped, messages });
    expect(summarizer.calls.length).toBe(2);
  });
});
