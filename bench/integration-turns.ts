/**
 * Per-turn cost of the integrations against history length (issue 19 §2): an agent loop through
 * the OpenAI wrapper bound to a session, and the same loop stateless, against an in-process
 * fake `fetch`, with 54 KB tool outputs (a file read per turn); the same through the AI SDK
 * middleware (`generateText` over a mock model). Reports the wrapper's own time
 * per turn (the fake answers at once) at turn 25 and turn 150 — medians of the 5 turns around
 * each — next to the raw client's, and the mean of the 20 turns from 16 to 35 and of the last 20
 * (what a turn costs with the compactions that fall in it: a session compacts every other turn
 * here, so a median of 5 turns is either side of it). `--cpu-prof` profiles it; `--turns N`
 * changes the length.
 *
 * `node bench/integration-turns.ts` writes `bench/results/integration-turns.json`.
 */
import { writeFileSync } from 'node:fs';
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { generateText, jsonSchema, type ModelMessage, type ToolSet, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { chatfoldMiddleware } from '../src/integrations/ai-sdk/middleware.ts';
import { withChatfold } from '../src/integrations/openai/with-chatfold.ts';
import { createChatfold } from '../src/session/create-chatfold.ts';
import { createMockSummarizer } from '../src/test/mock-summarizer.ts';
import { machine, median } from './harness.ts';

const argument = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(name);
  return index < 0 ? fallback : Number(process.argv[index + 1]);
};
const TURNS = argument('--turns', 150);
const OUTPUT_BYTES = argument('--output-kb', 54) * 1024;
const WINDOW = argument('--window', 128_000);
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;

/** A TypeScript-looking file of about `bytes` bytes, different per turn. */
function fileOf(turn: number, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < bytes; line++) {
    const text = `export function handler${turn}_${line}(input: string): number { return input.length * ${line + turn}; }`;
    lines.push(text);
    size += text.length + 1;
  }
  return lines.join('\n');
}

function fakeClient(): OpenAI {
  let calls = 0;
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    JSON.parse(String(init?.body));
    calls++;
    return Response.json({
      id: `chatcmpl-${calls}`,
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [
              {
                id: `call_${calls}`,
                type: 'function',
                function: { name: 'read_file', arguments: JSON.stringify({ path: `src/file${calls}.ts` }) },
              },
            ],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 1000, completion_tokens: 20, total_tokens: 1020 },
    });
  };
  return new OpenAI({ apiKey: 'bench', baseURL: 'http://fake.local/v1', fetch, maxRetries: 0 });
}

const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
];

/** Runs the agent loop; returns the milliseconds of each turn's `create` call. */
async function agentLoop(
  create: (messages: ChatCompletionMessageParam[]) => Promise<OpenAI.Chat.Completions.ChatCompletion>,
): Promise<number[]> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Read every file of the project and tell me what it does.' },
  ];
  const times: number[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const start = performance.now();
    const completion = await create(messages);
    times.push(performance.now() - start);
    const reply = completion.choices[0]?.message;
    const call = reply?.tool_calls?.[0];
    if (reply === undefined || call === undefined) throw new Error('no tool call');
    messages.push({ role: 'assistant', content: null, tool_calls: reply.tool_calls ?? [] });
    messages.push({ role: 'tool', tool_call_id: call.id, content: fileOf(turn, OUTPUT_BYTES) });
  }
  return times;
}

/** The same agent loop through the AI SDK: `generateText` with a model wrapped by `middleware`. */
async function aiSdkLoop(middleware?: ReturnType<typeof chatfoldMiddleware>): Promise<number[]> {
  let calls = 0;
  const model = new MockLanguageModelV4({
    provider: 'openai.chat',
    modelId: 'gpt-4o',
    doGenerate: async (): Promise<LanguageModelV4GenerateResult> => {
      calls++;
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: `call_${calls}`,
            toolName: 'read_file',
            input: JSON.stringify({ path: `src/file${calls}.ts` }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: {
          inputTokens: { total: 1000, noCache: 1000, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 20, text: 20, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
  const wrapped = middleware === undefined ? model : wrapLanguageModel({ model, middleware });
  const readFile = tool({
    description: 'Read a file',
    inputSchema: jsonSchema<{ path: string }>({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    }),
  });
  const messages: ModelMessage[] = [
    { role: 'user', content: 'Read every file of the project and tell me what it does.' },
  ];
  const times: number[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const start = performance.now();
    const result = await generateText({
      model: wrapped,
      instructions: 'You are a coding agent.',
      messages,
      // A tool without execute: the model's calls come back to this loop (the type says `never` output).
      tools: { read_file: readFile } as unknown as ToolSet,
    });
    times.push(performance.now() - start);
    const call = result.toolCalls[0];
    if (call === undefined) throw new Error('no tool call');
    messages.push({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input },
      ],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          output: { type: 'text', value: fileOf(turn, OUTPUT_BYTES) },
        },
      ],
    });
  }
  return times;
}

const around = (times: readonly number[], turn: number) =>
  median(times.slice(Math.max(0, turn - 3), Math.min(times.length, turn + 2)));
const meanOf = (times: readonly number[]) =>
  Math.round((times.reduce((sum, ms) => sum + ms, 0) / Math.max(1, times.length)) * 10) / 10;

const subjects: Record<string, () => Promise<number[]>> = {
  raw: () => {
    const client = fakeClient();
    return agentLoop((messages) => client.chat.completions.create({ model: 'gpt-4o', messages, tools }));
  },
  session: async () => {
    const summarizer = createMockSummarizer((request) => `Summary of ${request.messages.length} messages.`);
    const session = await createChatfold({ model: 'gpt-4o', window: WINDOW, summarizer }).session('bench');
    const client = withChatfold(fakeClient(), { session });
    return agentLoop((messages) => client.chat.completions.create({ model: 'gpt-4o', messages, tools }));
  },
  stateless: () => {
    const summarizer = createMockSummarizer((request) => `Summary of ${request.messages.length} messages.`);
    const client = withChatfold(fakeClient(), { window: WINDOW, summarizer });
    return agentLoop((messages) => client.chat.completions.create({ model: 'gpt-4o', messages, tools }));
  },
  'ai-sdk raw': () => aiSdkLoop(),
  'ai-sdk session': async () => {
    const summarizer = createMockSummarizer((request) => `Summary of ${request.messages.length} messages.`);
    const session = await createChatfold({ model: 'gpt-4o', window: WINDOW, summarizer }).session('bench');
    return aiSdkLoop(chatfoldMiddleware({ session }));
  },
  'ai-sdk stateless': () => {
    const summarizer = createMockSummarizer((request) => `Summary of ${request.messages.length} messages.`);
    return aiSdkLoop(chatfoldMiddleware({ window: WINDOW, summarizer }));
  },
};

interface TurnResult {
  turn25: number;
  turn150: number;
  ratio: number;
  /** Mean of turns 16–35 and of the last 20, and their ratio. */
  mean25: number;
  mean150: number;
  meanRatio: number;
  totalMs: number;
}
const results: Record<string, TurnResult> = {};
for (const [name, run] of Object.entries(subjects)) {
  if (only !== undefined && only !== name) continue;
  const times = await run();
  const early = around(times, 25);
  const late = around(times, TURNS - 1);
  const mean25 = meanOf(times.slice(15, 35));
  const mean150 = meanOf(times.slice(Math.max(0, TURNS - 20)));
  const result: TurnResult = {
    turn25: early,
    turn150: late,
    ratio: Math.round((late / early) * 100) / 100,
    mean25,
    mean150,
    meanRatio: Math.round((mean150 / mean25) * 100) / 100,
    totalMs: Math.round(times.reduce((sum, ms) => sum + ms, 0)),
  };
  results[name] = result;
  console.log(
    name.padEnd(17),
    `turn 25 ${early} ms`,
    `turn ${TURNS} ${late} ms`,
    `×${result.ratio}`,
    `| mean t16–35 ${mean25} ms`,
    `last 20 ${mean150} ms`,
    `×${result.meanRatio}`,
  );
}
if (only === undefined) {
  writeFileSync(
    new URL('./results/integration-turns.json', import.meta.url),
    `${JSON.stringify({ machine: machine(), turns: TURNS, outputBytes: OUTPUT_BYTES, window: WINDOW, results }, null, 2)}\n`,
  );
}
