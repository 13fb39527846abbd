/**
 * Summarizer calls of the stateless AI SDK middleware over a long chat (issue 19 §2): 300
 * turns of ~100 tokens each through `chatfoldMiddleware` (no session) on an 8,000-token window,
 * against a mock model and a summarizer that counts its calls. Prints compactions, summarizer
 * calls and CPU time. Deterministic counts; `node bench/stateless-summaries.ts`.
 */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { chatfoldMiddleware } from '../src/integrations/ai-sdk/middleware.ts';
import { createMockSummarizer } from '../src/test/mock-summarizer.ts';

const TURNS = 300;
const question = (i: number): string =>
  `Question ${i}: ${Array.from({ length: 6 }, (_, j) => `module ${i}.${j} keeps ${j * 7 + i} entries and expires them after ${j + 3} minutes.`).join(' ')}`;
const usage: LanguageModelV4GenerateResult['usage'] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
let turn = 0;
const model = new MockLanguageModelV4({
  provider: 'openai.chat',
  modelId: 'gpt-4o',
  doGenerate: async () => ({
    content: [{ type: 'text', text: `Answer ${turn}: noted.` }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  }),
});
const summarizer = createMockSummarizer((request) => `Summary of ${request.messages.length} messages.`);
let compactions = 0;
const wrapped = wrapLanguageModel({
  model,
  middleware: chatfoldMiddleware({
    window: 8_000,
    summarizer,
    onEvent: (event) => {
      if (event.type === 'compaction-start') compactions++;
    },
  }),
});
const messages: ModelMessage[] = [];
const cpu = process.cpuUsage();
for (turn = 0; turn < TURNS; turn++) {
  messages.push({ role: 'user', content: question(turn) });
  const { text } = await generateText({ model: wrapped, instructions: 'Be brief.', messages });
  messages.push({ role: 'assistant', content: text });
}
const used = process.cpuUsage(cpu);
console.log(
  JSON.stringify({
    turns: TURNS,
    compactions,
    summarizerCalls: summarizer.calls.length,
    cpuMs: Math.round((used.user + used.system) / 1000),
  }),
);
