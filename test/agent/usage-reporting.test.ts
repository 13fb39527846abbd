import { jsonSchema } from 'ai';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../../src/agent/create-agent.ts';
import type { Agent, AgentEvent } from '../../src/agent/types.ts';
import { withChatfold } from '../../src/integrations/openai/with-chatfold.ts';
import { createChatfold } from '../../src/session/create-chatfold.ts';
import { type ServerShape, startUsageServer, type UsageReporting, type UsageServer } from './usage-server.ts';

// Item 1 of issue 18: reported usage is evidence, not truth. Against an independent
// OpenAI-compatible server (llama.cpp, vLLM and Ollama response shapes) through the AI SDK's
// openai-compatible provider: a server that reports fresh tokens only, or leaves the tools out,
// never makes chatfold undercount — every request stays inside a 4k window and the under-report
// is reported once — and a correct server still calibrates.

const WINDOW = 4096;

/** A tool with a long description: tools-excluded reports are far off on short prompts. */
const tools = {
  lookup: {
    description: `Looks a term up in the project glossary and returns its definition. ${'Use it whenever the user names a term you do not know, a file, a module or an acronym. '.repeat(6)}`,
    inputSchema: jsonSchema<{ term: string }>({
      type: 'object',
      properties: { term: { type: 'string', description: 'the term to look up' } },
      required: ['term'],
    }),
    execute: ({ term }: { term: string }) => `${term}: not in the glossary`,
  },
};

/** ~300 tokens of a user turn that differs from turn to turn. */
const turn = (i: number) =>
  `Turn ${i}: ${'we keep planning the garden beds, the compost, the water butts and which seeds go where this spring; '.repeat(14)}`;

let server: UsageServer | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

async function converse(shape: ServerShape, reporting: UsageReporting, turns: number) {
  server = await startUsageServer({ shape, reporting });
  const agent: Agent = await createAgent({
    model: {
      provider: 'openai-compatible',
      name: shape === 'ollama' ? 'qwen2.5:32b' : 'Qwen/Qwen2.5-32B-Instruct',
      baseURL: server.baseURL,
      maxInputTokens: WINDOW,
      maxOutputTokens: 256,
    },
    instructions: 'You are a patient gardening assistant.',
    tools,
  });
  const events: AgentEvent[] = [];
  for (let i = 0; i < turns; i++) {
    for await (const event of agent.run(turn(i))) {
      events.push(event);
      if (event.type === 'error') throw new Error(event.message);
    }
  }
  return { agent, events, requests: server.requests };
}

describe('usage reports from local servers (TOK-5)', () => {
  const cases: [ServerShape, UsageReporting][] = [
    ['ollama', 'fresh-only'],
    ['llama.cpp', 'fresh-only'],
    ['vllm', 'tools-excluded'],
    ['llama.cpp', 'correct'],
    ['vllm', 'correct'],
    ['ollama', 'correct'],
  ];
  it.each(cases)(
    '%s, reporting %s: no request over the window, compactions happen',
    {
      timeout: 60_000,
    },
    async (shape, reporting) => {
      const { agent, events, requests } = await converse(shape, reporting, 16);
      const chat = requests.filter((request) => request.hasTools);
      // The server's own count of what it was sent: never over the window.
      expect(Math.max(...chat.map((request) => request.promptTokens))).toBeLessThanOrEqual(WINDOW);
      // 16 turns of ~300 tokens do not fit in 4k: the history was compacted.
      expect(events.filter((event) => event.type === 'compaction-end').length).toBeGreaterThan(0);
      const underReports = events.filter((event) => event.type === 'usage-under-reported');
      const status = await agent.session.status();
      if (reporting === 'correct') {
        expect(underReports).toEqual([]);
        expect(status.underReport).toBeUndefined();
        expect(status.accuracy).toBe('calibrated');
      } else {
        expect(underReports).toHaveLength(1); // once, however many reports fall short
        expect(underReports[0]).toMatchObject({ type: 'usage-under-reported', reason: reporting });
        expect(status.underReport?.reason).toBe(reporting);
      }
      // The count the session shows is near what the server really holds (its tokenizer is not
      // chatfold's: within the tolerance), never the tiny reported number.
      const last = chat.at(-1) as (typeof chat)[number];
      const steps = events.filter((event) => event.type === 'step-start');
      const lastStep = steps.at(-1) as Extract<AgentEvent, { type: 'step-start' }>;
      expect(lastStep.promptTokens).toBeGreaterThan(last.promptTokens * 0.6);
      if (reporting === 'fresh-only') expect(last.reportedTokens).toBeLessThan(last.promptTokens * 0.5);
    },
  );
});

describe('the same through the openai SDK (withChatfold bound to a session)', () => {
  it.each([
    ['ollama', 'fresh-only'],
    ['vllm', 'correct'],
  ] as [ServerShape, UsageReporting][])(
    '%s, reporting %s: no request over the window',
    {
      timeout: 60_000,
    },
    async (shape, reporting) => {
      server = await startUsageServer({ shape, reporting });
      const session = await createChatfold({
        model: 'qwen2.5:32b',
        window: WINDOW,
        maxOutputTokens: 256,
      }).session('s1');
      const openai = withChatfold(new OpenAI({ baseURL: server.baseURL, apiKey: 'local' }), { session });
      const history: ChatCompletionMessageParam[] = [
        { role: 'system', content: 'You are a patient gardening assistant.' },
      ];
      for (let i = 0; i < 16; i++) {
        history.push({ role: 'user', content: turn(i) });
        const completion = await openai.chat.completions.create({ model: 'qwen2.5:32b', messages: history });
        history.push({ role: 'assistant', content: completion.choices[0]?.message.content ?? '' });
      }
      expect(Math.max(...server.requests.map((request) => request.promptTokens))).toBeLessThanOrEqual(WINDOW);
      const status = await session.status();
      if (reporting === 'correct') expect(status.underReport).toBeUndefined();
      else expect(status.underReport?.reason).toBe('fresh-only');
    },
  );
});
