import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { compact } from '../../compaction/compact.ts';
import { buildConversation } from '../../test/build-conversation.ts';
import { aiSdkSummarizer } from './summarizer.ts';

const SUMMARY = 'The agent read src/file0.ts to src/file29.ts and traced the failure to app.ts.';
const summary = (text: string): LanguageModelV4GenerateResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: {
    inputTokens: { total: 900, noCache: 900, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 40, text: 40, reasoning: undefined },
  },
  warnings: [],
});

function longRun() {
  const builder = buildConversation()
    .system('You are a coding agent.')
    .user('Fix the failing test in src/app.ts');
  for (let i = 0; i < 30; i++) {
    builder.assistant(`Step ${i}.`).toolRound([
      {
        name: 'Read',
        args: { file_path: `src/file${i}.ts` },
        result: `export const v${i} = ${i};\n`.repeat(60),
      },
    ]);
  }
  return builder.user('Run the suite').build();
}

describe('aiSdkSummarizer (SUM-5)', () => {
  it("sends chatfold's summary prompt to its own model with the compaction's limit and signal", async () => {
    const model = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o-mini',
      doGenerate: summary(SUMMARY),
    });
    const summarizer = aiSdkSummarizer(model, {
      temperature: 0,
      providerOptions: { openai: { reasoningEffort: 'low' } },
    });
    const { messages, plan } = await compact(longRun(), { model: 'gpt-4o', window: 8000, summarizer });
    expect(plan.summary?.text).toBe(SUMMARY);
    expect(JSON.stringify(messages)).toContain(SUMMARY);
    const call = model.doGenerateCalls[0];
    expect(call?.prompt[0]).toMatchObject({ role: 'system', content: expect.stringContaining('summar') });
    expect(call?.prompt[1]).toMatchObject({
      role: 'user',
      content: [{ type: 'text', text: expect.stringContaining('src/file0.ts') }],
    });
    expect(call).toMatchObject({ temperature: 0, providerOptions: { openai: { reasoningEffort: 'low' } } });
    expect(call?.maxOutputTokens).toBeGreaterThan(0);
    expect(call?.abortSignal).toBeInstanceOf(AbortSignal);
  });

  it('caps the summary length at maxOutputTokens', async () => {
    const model = new MockLanguageModelV4({ doGenerate: summary(SUMMARY) });
    await compact(longRun(), {
      model: 'gpt-4o',
      window: 8000,
      summarizer: aiSdkSummarizer(model, { maxOutputTokens: 50 }),
    });
    expect(model.doGenerateCalls[0]?.maxOutputTokens).toBe(50);
  });

  it('a failing model leaves the extractive summary in place (RT-4)', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new Error('503 Service Unavailable');
      },
    });
    const { plan } = await compact(longRun(), {
      model: 'gpt-4o',
      window: 8000,
      summarizer: aiSdkSummarizer(model),
    });
    expect(plan.summary?.text).toBeTruthy();
    expect(plan.stages.flatMap((stage) => stage.notes)).toContainEqual(
      expect.stringContaining('503 Service Unavailable'),
    );
  });
});
