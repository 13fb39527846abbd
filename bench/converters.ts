/**
 * Converter benchmark (MSG-2): every model call converts the projection to the provider's
 * format, and importing a history converts it back, so both directions must stay linear. The
 * session is the recorded longest agent session repeated with fresh ids (see corpus.ts).
 * `fromX` includes the boundary check (zod) and `normalizeMessages` (ids derived by hashing,
 * since provider formats carry none); the `check only` rows isolate the zod part.
 *
 *   node bench/converters.ts        (writes bench/results/converters.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fromAiSdk, toAiSdk } from '../src/messages/ai-sdk.ts';
import { aiSdkMessagesSchema } from '../src/messages/ai-sdk-schema.ts';
import { fromAnthropic, toAnthropic } from '../src/messages/anthropic.ts';
import { anthropicRequestSchema } from '../src/messages/anthropic-schema.ts';
import { fromGemini, toGemini } from '../src/messages/gemini.ts';
import { geminiRequestSchema } from '../src/messages/gemini-schema.ts';
import { fromOpenAI, toOpenAI } from '../src/messages/openai.ts';
import { openAIMessagesSchema } from '../src/messages/openai-schema.ts';
import { syntheticSession } from './corpus.ts';
import { machine, medianMs } from './harness.ts';

const rows: { messages: number; megabytes: number; format: string; step: string; ms: number }[] = [];
for (const size of [1000, 10_000]) {
  const messages = syntheticSession(size);
  const megabytes = Math.round(JSON.stringify(messages).length / 1e4) / 100;
  const formats = [
    { format: 'openai', to: () => toOpenAI(messages), from: fromOpenAI, schema: openAIMessagesSchema },
    {
      format: 'anthropic',
      to: () => toAnthropic(messages),
      from: fromAnthropic,
      schema: anthropicRequestSchema,
    },
    { format: 'gemini', to: () => toGemini(messages), from: fromGemini, schema: geminiRequestSchema },
    { format: 'ai-sdk', to: () => toAiSdk(messages), from: fromAiSdk, schema: aiSdkMessagesSchema },
  ] as const;
  for (const { format, to, from, schema } of formats) {
    const converted = to();
    const convertBack = from as (input: typeof converted) => unknown;
    const steps: [string, () => unknown][] = [
      ['to', to],
      ['from', () => convertBack(converted)],
      ['check only', () => schema.safeParse(converted)],
    ];
    for (const [step, run] of steps) {
      rows.push({
        messages: messages.length,
        megabytes,
        format,
        step,
        ms: await medianMs(run, { runs: 9, warmup: 2 }),
      });
    }
  }
}
console.table(rows);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/converters.json', import.meta.url),
  `${JSON.stringify({ machine: machine(), rows }, null, 2)}\n`,
);
