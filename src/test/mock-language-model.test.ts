import { APICallError } from '@ai-sdk/provider';
import { generateText, type ModelMessage, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { agentRun as sharedAgentRun } from '../../test/integrations/agent-run.ts';
import { chatfoldMiddleware } from '../integrations/ai-sdk/middleware.ts';
import { parseContextOverflow } from '../integrations/overflow.ts';
import type { IntegrationEvent } from '../integrations/prompt-fitter.ts';
import { toAiSdk } from '../messages/ai-sdk.ts';
import { countTokens } from '../tokens/count-tokens.ts';
import { createMockLanguageModel } from './mock-language-model.ts';

/** An agent run as an AI SDK app holds it. */
const agentRun = (rounds: number): ModelMessage[] => toAiSdk(sharedAgentRun(rounds, 60));

describe('createMockLanguageModel (RT-2, RT-3)', () => {
  it('answers generateText with scripted text and usage, and records the prompt as neutral messages', async () => {
    const model = createMockLanguageModel({
      text: 'All green.',
      usage: { inputTokens: 120, outputTokens: 3 },
    });
    const result = await generateText({ model, prompt: 'Run the suite' });
    expect(result.text).toBe('All green.');
    expect(result.usage).toMatchObject({ inputTokens: 120, outputTokens: 3 });
    expect(result.finishReason).toBe('stop');
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]?.method).toBe('generate');
    expect(model.calls[0]?.messages).toMatchObject([
      { role: 'user', parts: [{ type: 'text', text: 'Run the suite' }] },
    ]);
  });

  it('leaves usage unknown unless scripted (never 0)', async () => {
    const result = await generateText({ model: createMockLanguageModel('ok'), prompt: 'hi' });
    expect(result.usage.inputTokens).toBeUndefined();
    expect(result.usage.outputTokens).toBeUndefined();
  });

  it('streams the same script in word-sized deltas, reasoning and tool calls included', async () => {
    const model = createMockLanguageModel({
      reasoning: 'Check the file first.',
      text: 'Reading it now.',
      toolCalls: [{ name: 'Read', input: { file_path: 'src/app.ts' } }],
      usage: { inputTokens: 50, outputTokens: 9 },
    });
    const result = streamText({ model, prompt: 'Fix the bug' });
    const chunks: string[] = [];
    for await (const delta of result.textStream) chunks.push(delta);
    expect(chunks).toEqual(['Reading ', 'it ', 'now.']);
    expect(await result.reasoningText).toBe('Check the file first.');
    expect(await result.toolCalls).toMatchObject([
      { toolCallId: 'call_0', toolName: 'Read', input: { file_path: 'src/app.ts' } },
    ]);
    expect(await result.finishReason).toBe('tool-calls');
    expect((await result.usage).inputTokens).toBe(50);
    expect(model.calls[0]?.method).toBe('stream');
  });

  it('answers per call and from a function of the call', async () => {
    const perCall = createMockLanguageModel(['first', 'second']);
    expect((await generateText({ model: perCall, prompt: 'a' })).text).toBe('first');
    expect((await generateText({ model: perCall, prompt: 'b' })).text).toBe('second');
    await expect(generateText({ model: perCall, prompt: 'c', maxRetries: 0 })).rejects.toMatchObject({
      code: 'E_INVALID_OPTIONS',
    });
    const echo = createMockLanguageModel((call) => `${call.messages.length} message(s)`);
    expect((await generateText({ model: echo, prompt: 'x' })).text).toBe('1 message(s)');
  });

  it('rejects with an Error answer as is', async () => {
    const model = createMockLanguageModel(new Error('503 Service Unavailable'));
    await expect(generateText({ model, prompt: 'x', maxRetries: 0 })).rejects.toThrow(
      '503 Service Unavailable',
    );
  });

  it.each([
    ['openai.chat', 'gpt-4o', 'openai', 'https://api.openai.com/v1/chat/completions'],
    ['anthropic.messages', 'claude-sonnet-4-5', 'anthropic', 'https://api.anthropic.com/v1/messages'],
    [
      'google.generative-ai',
      'gemini-2.5-flash',
      'gemini',
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
    ],
  ] as const)(
    'overflows as %s does: an APICallError with its status and body',
    async (provider, modelId, name, url) => {
      const model = createMockLanguageModel(
        { overflow: { limit: 8192, actual: 9500 } },
        { provider, modelId },
      );
      const error = await model
        .doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] })
        .then(
          () => undefined,
          (reason: unknown) => reason,
        );
      expect(APICallError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ statusCode: 400, url, isRetryable: false });
      expect(JSON.parse((error as APICallError).responseBody ?? '')).toMatchObject({
        error: { message: (error as APICallError).message },
      });
      expect(parseContextOverflow(error)).toMatchObject({ provider: name, limit: 8192, actual: 9500 });
    },
  );

  it("lets the middleware's overflow retry be tested: the retry is compacted under the reported limit", async () => {
    const model = createMockLanguageModel([{ overflow: { limit: 8000, actual: 30_000 } }, 'Done.']);
    const events: IntegrationEvent[] = [];
    const wrapped = wrapLanguageModel({
      model,
      middleware: chatfoldMiddleware({ onEvent: (event) => events.push(event) }),
    });
    const result = await generateText({ model: wrapped, messages: agentRun(40), maxRetries: 0 });
    expect(result.text).toBe('Done.');
    expect(model.calls).toHaveLength(2);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'overflow-retry', provider: 'openai', limit: 8000 }),
    );
    const [first, retry] = model.calls.map((call) => countTokens(call.messages, { model: 'gpt-4o' }).total);
    expect(retry).toBeLessThanOrEqual(8000);
    expect(retry).toBeLessThan(first as number);
  });

  it('an overflow twice in a row surfaces as E_CONTEXT_OVERFLOW', async () => {
    const overflow = { overflow: { limit: 8000, actual: 9000 } } as const;
    const model = createMockLanguageModel(overflow);
    const wrapped = wrapLanguageModel({ model, middleware: chatfoldMiddleware() });
    await expect(
      generateText({ model: wrapped, messages: agentRun(40), maxRetries: 0 }),
    ).rejects.toMatchObject({
      code: 'E_CONTEXT_OVERFLOW',
    });
    expect(model.calls).toHaveLength(2);
  });

  it('rejects when the call is already aborted', async () => {
    const model = createMockLanguageModel('never');
    const controller = new AbortController();
    controller.abort();
    await expect(model.doGenerate({ prompt: [], abortSignal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(model.calls).toHaveLength(1);
  });
});
