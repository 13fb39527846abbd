/**
 * Converting a resent history (issue 19 §2): an AI SDK prompt of N messages (54 KB tool outputs
 * every other message, as in `integration-turns.ts`) converted whole with `fromAiSdk`, against
 * the incremental converter that converted the same history without its last two messages on
 * the call before (new objects each call, as the AI SDK builds its prompt). Medians of
 * interleaved repetitions; `--sizes 302,1000` changes the sizes, `--kb 54` the tool outputs.
 *
 * `node bench/incremental-convert.ts` writes `bench/results/incremental-convert.json`.
 */
import { writeFileSync } from 'node:fs';
import { type AiSdkMessageInput, aiSdkConversion, fromAiSdk } from '../src/messages/ai-sdk.ts';
import { createIncrementalConverter } from '../src/messages/incremental-converter.ts';
import { load, machine, median } from './harness.ts';

const option = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index < 0 ? undefined : process.argv[index + 1];
};
const SIZES = (option('--sizes') ?? '302,1000,10000').split(',').map(Number);
const OUTPUT_BYTES = Number(option('--kb') ?? 54) * 1024;
const REPEATS = 7;

/** A TypeScript-looking file of about `bytes` bytes, different per turn. */
function fileOf(turn: number, bytes: number): string {
  const line = (n: number) => `export function handler${turn}_${n}(input: string): number { return ${n}; }`;
  const lines: string[] = [];
  for (let n = 0, size = 0; size < bytes; n++) {
    lines.push(line(n));
    size += line(n).length + 1;
  }
  return lines.join('\n');
}

function history(messages: number): AiSdkMessageInput[] {
  const out: AiSdkMessageInput[] = [];
  for (let turn = 0; out.length < messages; turn++) {
    const toolCallId = `call_${turn}`;
    out.push({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId, toolName: 'read_file', input: { path: `src/f${turn}.ts` } }],
    });
    out.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId,
          toolName: 'read_file',
          output: { type: 'text', value: fileOf(turn, OUTPUT_BYTES) },
        },
      ],
    });
  }
  return out.slice(0, messages);
}

/** The same messages in new objects (the strings shared), as the AI SDK rebuilds its prompt. */
const rebuilt = (messages: readonly AiSdkMessageInput[]) =>
  messages.map((message) => structuredCloneShallow(message)) as AiSdkMessageInput[];
function structuredCloneShallow(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(structuredCloneShallow);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, structuredCloneShallow(item)]));
}

const results: Record<string, { wholeMs: number; incrementalMs: number; speedup: number }> = {};
for (const size of SIZES) {
  const messages = history(size);
  const whole: number[] = [];
  const incremental: number[] = [];
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    const converter = createIncrementalConverter(aiSdkConversion);
    converter.convert(rebuilt(messages.slice(0, -2)));
    const prompt = rebuilt(messages);
    const again = rebuilt(messages);
    let start = performance.now();
    converter.convert(prompt);
    incremental.push(performance.now() - start);
    start = performance.now();
    fromAiSdk(again);
    whole.push(performance.now() - start);
  }
  const wholeMs = median(whole);
  const incrementalMs = median(incremental);
  results[size] = { wholeMs, incrementalMs, speedup: Math.round(wholeMs / incrementalMs) };
  console.log(`${size} messages: whole ${wholeMs} ms, incremental (+2) ${incrementalMs} ms`);
}
writeFileSync(
  new URL('./results/incremental-convert.json', import.meta.url),
  `${JSON.stringify({ machine: machine(), load: load(), outputBytes: OUTPUT_BYTES, results }, null, 2)}\n`,
);
