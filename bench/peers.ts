/**
 * chatfold against its peers on the same recorded sessions (issue 19 §4): every library is put
 * where an app puts it — before each model call of a recorded agent session (the history up to
 * each assistant message) — and what it would send is measured with one shared counter (the
 * Claude tokenizer):
 *
 * - tokens sent, and cost-equivalent tokens with Anthropic's prompt cache (a prefix equal to the
 *   previous request's is read at 0.1×, the rest written at 1.25×) and without (1×);
 * - requests over the budget (window − 4,096 for the answer);
 * - file paths kept: of the paths the history names so far, the share the prompt still names
 *   (sampled every 8th call and at the last);
 * - summarizer calls (every summarizing library gets the same fixed ~120-token summary);
 * - CPU time per call of the library alone (`process.cpuUsage`; each instance counts with a
 *   counter of its own, cold at the start), cold (the first call of a
 *   fresh instance) and warm (median of the rest).
 *
 * Subjects, each at its documented setting with the same numbers (trigger 65 % of the window,
 * keep/target 45 %):
 * - chatfold, stateless integration (the AI SDK middleware's and OpenAI wrapper's fitter) and a
 *   session (`createChatfold`), default policy;
 * - LangChain `trimMessages` (newest within 65 %, `startOn: 'human'`, system kept) every call;
 *   `summarizationMiddleware` (trigger 65 %, keep 45 %, state kept between calls as LangGraph
 *   does); `ClearToolUsesEdit` (trigger 65 %, keep 3 tool results, edits per request);
 * - the AI SDK `pruneMessages` (tool calls before the last 2 messages, reasoning before the last
 *   message) every call — it has no budget;
 * - Mastra `ToolCallFilter` then `TokenLimiter` (limit 65 %) on the request prompt every call
 *   (Mastra counts with its own tokenizer; the shared counter measures what it sent).
 *
 * Libraries run interleaved: for each session and window, the order of the subjects rotates.
 *
 *   node bench/peers.ts [--windows 16000,64000,128000] [--only NAME] [--chatfold-variants]
 * writes bench/results/peers.json and prints the tables for bench/RESULTS.md. `--only` keeps
 * the subjects whose name contains NAME. `--chatfold-variants` adds chatfold session rows with
 * other settings (lower targets, masking that keeps fewer tool outputs; see `VARIANTS`) and
 * writes bench/results/peers-variants.json instead, so the default run's file stays as it is;
 * `PEERS_VARIANTS` (JSON: name → `{ overrides, strategyOptions }`) replaces those rows.
 */
import { writeFileSync } from 'node:fs';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { TokenLimiter, ToolCallFilter } from '@mastra/core/processors';
import { type ModelMessage, pruneMessages } from 'ai';
import { ClearToolUsesEdit, type ContextEdit, summarizationMiddleware, trimMessages } from 'langchain';
import {
  fromLanguageModelPrompt,
  toLanguageModelPrompt,
} from '../src/integrations/ai-sdk/language-model-prompt.ts';
import { createPromptFitter } from '../src/integrations/prompt-fitter.ts';
import { fromAiSdk } from '../src/messages/ai-sdk.ts';
import { toAiSdk } from '../src/messages/to-ai-sdk.ts';
import type { Message, Part } from '../src/messages/types.ts';
import type { PolicyOverrides } from '../src/policy/context-policy.ts';
import { createChatfold } from '../src/session/create-chatfold.ts';
import type { StrategyOptions } from '../src/strategies/registry.ts';
import { createMockSummarizer } from '../src/test/mock-summarizer.ts';
import { createTokenCounter } from '../src/tokens/create-token-counter.ts';
import type { TokenCounter } from '../src/tokens/types.ts';
import { recordedConversations } from './corpus.ts';
import { machine, median } from './harness.ts';

const argument = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index < 0 ? undefined : process.argv[index + 1];
};
const WINDOWS = (argument('--windows') ?? '16000,64000,128000').split(',').map(Number);
const RESERVE = 4_096;
const TRIGGER = 0.65;
const KEEP = 0.45;
const MODEL = 'claude-sonnet-4-5';

/** The same summary for every library that summarizes: ~120 tokens, no file paths. */
const SUMMARY = Array.from(
  { length: 8 },
  (_, i) => `Point ${i + 1}: the agent worked through the task, ran the checks and noted what remained.`,
).join('\n');

/** The harness's counter: measures what every library sent. */
const counter = createTokenCounter({ tokenizer: 'anthropic:claude' });
/** Each library instance counts with a counter of its own, cold when the replay starts. */
const ownCounter = (): TokenCounter => createTokenCounter({ tokenizer: 'anthropic:claude' });

// ---------------------------------------------------------------- conversions and measures

/** LangChain messages for neutral ones: one ToolMessage per tool result. */
function toLangChain(messages: readonly Message[]): BaseMessage[] {
  const text = (parts: readonly Part[]): string =>
    parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return messages.flatMap((message): BaseMessage[] => {
    const id = message.id;
    if (message.role === 'system') return [new SystemMessage({ content: text(message.parts), id })];
    if (message.role === 'user') {
      const results = message.parts.filter((part) => part.type === 'tool-result');
      if (results.length === 0) return [new HumanMessage({ content: text(message.parts), id })];
    }
    if (message.role === 'tool' || message.role === 'user') {
      return message.parts.flatMap((part, i): BaseMessage[] =>
        part.type === 'tool-result'
          ? [
              new ToolMessage({
                content: part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join(''),
                id: `${id}#${i}`,
                tool_call_id: part.callId,
              }),
            ]
          : part.type === 'text' && part.text !== ''
            ? [new HumanMessage({ content: part.text, id: `${id}#${i}` })]
            : [],
      );
    }
    const calls = message.parts.flatMap((part) =>
      part.type === 'tool-call'
        ? [{ id: part.id, name: part.name, args: parseArguments(part.arguments) }]
        : [],
    );
    return [new AIMessage({ content: text(message.parts), id, tool_calls: calls })];
  });
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { input: value };
  } catch {
    return { input: text };
  }
}

/** Neutral messages for LangChain ones (what is counted and searched). */
function fromLangChain(messages: readonly BaseMessage[]): Message[] {
  const content = (message: BaseMessage): string =>
    typeof message.content === 'string'
      ? message.content
      : message.content.map((item) => ('text' in item ? String(item.text) : '')).join('');
  return messages.map((message, i): Message => {
    const base = { id: `lc${i}`, createdAt: '2026-01-01T00:00:00.000Z' };
    const type = message.getType();
    if (type === 'system')
      return { ...base, role: 'system', parts: [{ type: 'text', text: content(message) }] };
    if (type === 'human') return { ...base, role: 'user', parts: [{ type: 'text', text: content(message) }] };
    if (type === 'tool') {
      const tool = message as ToolMessage;
      return {
        ...base,
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: tool.tool_call_id,
            content: [{ type: 'text', text: content(message) }],
          },
        ],
      };
    }
    const ai = message as AIMessage;
    return {
      ...base,
      role: 'assistant',
      parts: [
        ...(content(message) === '' ? [] : [{ type: 'text' as const, text: content(message) }]),
        ...(ai.tool_calls ?? []).map((call) => ({
          type: 'tool-call' as const,
          id: call.id ?? '',
          name: call.name,
          arguments: JSON.stringify(call.args),
        })),
      ],
    };
  });
}

/** All text of a list, for finding paths. */
function textOf(messages: readonly Message[]): string {
  const out: string[] = [];
  for (const message of messages)
    for (const part of message.parts) {
      if (part.type === 'text' || part.type === 'reasoning') out.push(part.text);
      else if (part.type === 'tool-call') out.push(part.arguments);
      else if (part.type === 'tool-result')
        for (const inner of part.content) if (inner.type === 'text') out.push(inner.text);
    }
  return out.join('\n');
}

const PATH = /(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z]{1,5}\b/g;
/** File paths named in tool calls (what an agent read, wrote or ran). */
function pathsOf(messages: readonly Message[]): Set<string> {
  const paths = new Set<string>();
  for (const message of messages)
    for (const part of message.parts)
      if (part.type === 'tool-call') for (const match of part.arguments.matchAll(PATH)) paths.add(match[0]);
  return paths;
}

/** Messages equal by content (for the cached prefix): role and parts. */
const keyOf = (message: Message): string => JSON.stringify([message.role, message.parts]);

// ---------------------------------------------------------------- subjects

/** One library placed before the model calls of one replay: history in, prompt out. */
interface Subject {
  send(history: readonly Message[]): Promise<readonly Message[]>;
  summaries(): number;
  /** Tokens of the prompts the summarizer was asked (chatfold's subjects; the variant table shows them). */
  summaryInput?(): number;
}

/** Tokens of every prompt a mock summarizer received, by the harness's counter. */
const summaryInputOf = (summarizer: ReturnType<typeof createMockSummarizer>): number =>
  summarizer.calls.reduce(
    (total, call) => total + counter.countText(call.prompt.system) + counter.countText(call.prompt.user),
    0,
  );

type SubjectFactory = (window: number) => Promise<Subject>;

/**
 * LangChain's token counter over the shared one: each LangChain message object is converted and
 * counted once (LangChain hands the same objects back while it searches for a cut), so the
 * harness's conversion is not billed to LangChain's time.
 */
function lcCounter(c: TokenCounter): (list: BaseMessage[]) => number {
  const known = new WeakMap<BaseMessage, number>();
  return (list) => {
    let total = 0;
    for (const message of list) {
      let tokens = known.get(message);
      if (tokens === undefined) {
        tokens = c.countMessage(fromLangChain([message])[0] as Message);
        known.set(message, tokens);
      }
      total += tokens;
    }
    return total;
  };
}

/** A chatfold session (`createChatfold`), default policy unless settings say otherwise. */
async function chatfoldSession(window: number, settings: ChatfoldVariant = {}): Promise<Subject> {
  const summarizer = createMockSummarizer(SUMMARY);
  const session = await createChatfold({
    window,
    model: MODEL,
    counter: ownCounter(),
    summarizer,
    ...(settings.overrides === undefined
      ? {}
      : { policy: { preset: 'default', overrides: settings.overrides } }),
    ...(settings.strategyOptions === undefined ? {} : { strategyOptions: settings.strategyOptions }),
  }).session('peers');
  let appended = 0;
  return {
    async send(history) {
      if (history.length > appended) await session.append(history.slice(appended));
      appended = history.length;
      return (await session.prepare({ provider: 'anthropic' })).messages;
    },
    summaries: () => summarizer.calls.length,
    summaryInput: () => summaryInputOf(summarizer),
  };
}

/** Settings of a chatfold variant row: overrides of the default policy and stage options. */
interface ChatfoldVariant {
  readonly overrides?: PolicyOverrides;
  readonly strategyOptions?: StrategyOptions;
}

/**
 * `--chatfold-variants`: chatfold sessions with other settings than the default (65 % → 45 %),
 * to measure what the target and masking trade between cost with a cache and paths kept.
 * `mask keep 3` lets the mask stage take all but the newest 3 tool outputs (default 10; as
 * `ClearToolUsesEdit` keeps 3; it still stops once the prompt is at the target), and with
 * `shrink` the large inputs of older calls too (paths and commands stay). Summarizer input
 * tokens are reported beside (they are not in the cost-equivalent tokens).
 */
const VARIANTS: Record<string, ChatfoldVariant> = {
  'chatfold target 30 %': { overrides: { target: { fraction: 0.3 } } },
  'chatfold target 20 %': { overrides: { target: { fraction: 0.2 } } },
  'chatfold target 10 %': { overrides: { target: { fraction: 0.1 } } },
  'chatfold trigger 40 %, target 15 %': {
    overrides: { triggers: [{ fraction: 0.4 }], target: { fraction: 0.15 } },
  },
  // A trigger at 65 % of the window or 20,000 tokens, whichever comes first; a target of 15 %
  // of the window, at most 10,000 tokens: the same sizes at 64k and 128k.
  'chatfold trigger 65 % or 20k, target 15 % ≤ 10k': {
    overrides: {
      triggers: [{ fraction: 0.65 }, { tokens: 20_000 }],
      target: { fraction: 0.15, tokens: 10_000 },
    },
  },
  'chatfold mask keep 3': { strategyOptions: { mask: { keepRecent: 3 } } },
  'chatfold mask keep 3 + shrink inputs, target 20 %': {
    overrides: { target: { fraction: 0.2 } },
    strategyOptions: { mask: { keepRecent: 3, toolInputs: 'shrink' } },
  },
  // Masking does all the work: no summary, truncation last.
  'chatfold no summary (clip, supersede, mask keep 3, truncate)': {
    overrides: { pipeline: ['clip', 'supersede', 'mask', 'truncate'] },
    strategyOptions: { mask: { keepRecent: 3 } },
  },
};
/** `PEERS_VARIANTS='{"name": {"overrides": …, "strategyOptions": …}}'` replaces the table (ad hoc trials). */
const variants: Record<string, ChatfoldVariant> =
  process.env.PEERS_VARIANTS === undefined
    ? VARIANTS
    : (JSON.parse(process.env.PEERS_VARIANTS) as Record<string, ChatfoldVariant>);
const withVariants = process.argv.includes('--chatfold-variants');

const subjects: Record<string, SubjectFactory> = {
  'chatfold stateless': async (window) => {
    const summarizer = createMockSummarizer(SUMMARY);
    const fitter = createPromptFitter({ window, model: MODEL, counter: ownCounter(), summarizer });
    return {
      send: (history) => fitter.fit({ messages: history, model: MODEL, provider: 'anthropic' }),
      summaries: () => summarizer.calls.length,
      summaryInput: () => summaryInputOf(summarizer),
    };
  },
  'chatfold session': (window) => chatfoldSession(window),
  'langchain trimMessages': async (window) => {
    const count = lcCounter(ownCounter());
    return {
      async send(history) {
        const trimmed = await trimMessages(toLangChain(history), {
          maxTokens: Math.floor(TRIGGER * window),
          tokenCounter: count,
          strategy: 'last',
          startOn: 'human',
          includeSystem: true,
          allowPartial: false,
        });
        return fromLangChain(trimmed);
      },
      summaries: () => 0,
    };
  },
  'langchain summarizationMiddleware': async (window) => {
    let calls = 0;
    let input = 0;
    const model = new FakeListChatModel({ responses: [SUMMARY] });
    const invoke = model.invoke.bind(model);
    model.invoke = ((...args: Parameters<typeof invoke>) => {
      calls++;
      const [prompt] = args;
      input += Array.isArray(prompt)
        ? counter.count(fromLangChain(prompt as BaseMessage[])).total
        : typeof prompt === 'string'
          ? counter.countText(prompt)
          : 0;
      return invoke(...args);
    }) as typeof model.invoke;
    const middleware = summarizationMiddleware({
      model,
      trigger: { tokens: Math.floor(TRIGGER * window) },
      keep: { tokens: Math.floor(KEEP * window) },
      tokenCounter: lcCounter(ownCounter()),
    } as never);
    const beforeModel = middleware.beforeModel as unknown as
      | ((
          state: { messages: BaseMessage[] },
          runtime: unknown,
        ) => Promise<{ messages: BaseMessage[] } | undefined>)
      | {
          hook: (
            state: { messages: BaseMessage[] },
            runtime: unknown,
          ) => Promise<{ messages: BaseMessage[] } | undefined>;
        };
    const hook = typeof beforeModel === 'function' ? beforeModel : beforeModel.hook;
    // The agent's state, as LangGraph keeps it: the summary replaces what it covers.
    let state: BaseMessage[] = [];
    let seen = 0;
    return {
      async send(history) {
        state = [...state, ...toLangChain(history.slice(seen))];
        seen = history.length;
        const update = await hook({ messages: state }, { context: {} });
        if (update?.messages !== undefined) {
          const [first, ...rest] = update.messages;
          state = first instanceof RemoveMessage ? rest : [...state, ...update.messages];
        }
        return fromLangChain(state);
      },
      summaries: () => calls,
      summaryInput: () => input,
    };
  },
  'langchain ClearToolUsesEdit': async (window) => {
    const edit: ContextEdit = new ClearToolUsesEdit({
      trigger: { tokens: Math.floor(TRIGGER * window) },
      keep: { messages: 3 },
    });
    const count = lcCounter(ownCounter());
    const model = new FakeListChatModel({ responses: ['ok'] });
    let state: BaseMessage[] = [];
    let seen = 0;
    return {
      async send(history) {
        state = [...state, ...toLangChain(history.slice(seen))];
        seen = history.length;
        // Context editing edits the request, not the state.
        const request = [...state];
        await edit.apply({ messages: request, model, countTokens: count } as never);
        return fromLangChain(request);
      },
      summaries: () => 0,
    };
  },
  'ai-sdk pruneMessages': async () => ({
    async send(history) {
      const pruned = pruneMessages({
        messages: toAiSdk(history) as ModelMessage[],
        reasoning: 'before-last-message',
        toolCalls: 'before-last-2-messages',
        emptyMessages: 'remove',
      });
      return fromAiSdk(pruned as never);
    },
    summaries: () => 0,
  }),
  'mastra ToolCallFilter+TokenLimiter': async (window) => {
    const filter = new ToolCallFilter();
    const limiter = new TokenLimiter(Math.floor(TRIGGER * window));
    return {
      async send(history) {
        let prompt = toLanguageModelPrompt(history, 'anthropic') as never;
        const args = { model: {} as never, stepNumber: 0, steps: [], state: {}, abort: () => {} } as never;
        const filtered = await filter.processLLMRequest({ ...(args as object), prompt } as never);
        prompt = (filtered as { prompt?: never } | undefined)?.prompt ?? prompt;
        const limited = await limiter.processLLMRequest({ ...(args as object), prompt } as never);
        prompt = (limited as { prompt?: never } | undefined)?.prompt ?? prompt;
        return fromLanguageModelPrompt(prompt);
      },
      summaries: () => 0,
    };
  },
  ...(withVariants
    ? Object.fromEntries(
        Object.entries(variants).map(([name, settings]): [string, SubjectFactory] => [
          name,
          (window) => chatfoldSession(window, settings),
        ]),
      )
    : {}),
};

// ---------------------------------------------------------------- replay

interface Totals {
  calls: number;
  sent: number;
  cached: number;
  uncached: number;
  overBudget: number;
  pathsKept: number[];
  summaries: number;
  summaryInput: number;
  coldMs: number[];
  warmMs: number[];
  errors: number;
}

const empty = (): Totals => ({
  calls: 0,
  sent: 0,
  cached: 0,
  uncached: 0,
  overBudget: 0,
  pathsKept: [],
  summaries: 0,
  summaryInput: 0,
  coldMs: [],
  warmMs: [],
  errors: 0,
});

async function replay(factory: SubjectFactory, messages: readonly Message[], window: number, totals: Totals) {
  const subject = await factory(window);
  let previous: string[] = [];
  let previousTokens: readonly number[] = [];
  let call = 0;
  const points = messages.flatMap((message, i) => (message.role === 'assistant' && i > 0 ? [i] : []));
  for (const end of points) {
    const history = messages.slice(0, end);
    const cpu = process.cpuUsage();
    let sent: readonly Message[];
    try {
      sent = await subject.send(history);
    } catch {
      totals.errors++;
      sent = history;
    }
    const used = process.cpuUsage(cpu);
    const ms = (used.user + used.system) / 1000;
    (call === 0 ? totals.coldMs : totals.warmMs).push(ms);
    const perMessage = counter.count(sent).perMessage;
    const tokens = perMessage.reduce((a, b) => a + b, 0);
    const keys = sent.map(keyOf);
    let shared = 0;
    while (shared < keys.length && shared < previous.length && keys[shared] === previous[shared]) shared++;
    // A request that ends where the previous one did (nothing new) reads all of it from the cache.
    const cachedTokens = previousTokens.slice(0, shared).reduce((a, b) => a + b, 0);
    totals.calls++;
    totals.sent += tokens;
    totals.cached += cachedTokens * 0.1 + (tokens - cachedTokens) * 1.25;
    totals.uncached += tokens;
    if (tokens > window - RESERVE) totals.overBudget++;
    if (call % 8 === 0 || end === points.at(-1)) {
      const paths = pathsOf(history);
      if (paths.size > 0) {
        const text = textOf(sent);
        let kept = 0;
        for (const path of paths) if (text.includes(path)) kept++;
        totals.pathsKept.push(kept / paths.size);
      }
    }
    previous = keys;
    previousTokens = perMessage;
    call++;
  }
  totals.summaries += subject.summaries();
  totals.summaryInput += subject.summaryInput?.() ?? 0;
}

const sessions = recordedConversations().filter((messages) => messages.length >= 20);
const only = argument('--only');
const names = Object.keys(subjects).filter((name) => only === undefined || name.includes(only));
const results: Record<string, Record<string, Totals>> = {};
for (const window of WINDOWS) {
  const byName: Record<string, Totals> = Object.fromEntries(names.map((name) => [name, empty()]));
  for (const [index, messages] of sessions.entries()) {
    // Rotate the order per session so no library always runs first (JIT, GC debt).
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + index) % names.length] as string;
      const started = performance.now();
      await replay(subjects[name] as SubjectFactory, messages, window, byName[name] as Totals);
      console.error(
        `${window} session ${index} (${messages.length}) ${name}: ${Math.round(performance.now() - started)} ms`,
      );
    }
  }
  results[String(window)] = byName;
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const summary = Object.fromEntries(
  Object.entries(results).map(([window, byName]) => [
    window,
    Object.fromEntries(
      Object.entries(byName).map(([name, t]) => [
        name,
        {
          calls: t.calls,
          sentTokens: t.sent,
          costCachedTokens: Math.round(t.cached),
          costUncachedTokens: t.uncached,
          overBudget: t.overBudget,
          pathsKeptPercent: Math.round(mean(t.pathsKept) * 1000) / 10,
          summarizerCalls: t.summaries,
          ...(withVariants ? { summarizerInputTokens: t.summaryInput } : {}),
          coldCpuMs: median(t.coldMs),
          warmCpuMsMedian: median(t.warmMs),
          cpuMsTotal: Math.round(t.coldMs.concat(t.warmMs).reduce((a, b) => a + b, 0)),
          errors: t.errors,
        },
      ]),
    ),
  ]),
);
writeFileSync(
  new URL(withVariants ? './results/peers-variants.json' : './results/peers.json', import.meta.url),
  `${JSON.stringify({ machine: machine(), sessions: sessions.map((s) => s.length), summary }, null, 2)}\n`,
);
for (const [window, byName] of Object.entries(summary)) {
  console.log(`\n### ${Number(window) / 1000}k window (${sessions.length} sessions)\n`);
  // With the variants, the summarizer's input tokens too (not part of the cost-equivalent tokens).
  const extra = withVariants ? ' summarizer input |' : '';
  console.log(
    `| library | calls | tokens sent | cost-eq. tokens, cache | no cache | over budget | paths kept | summarizer calls |${extra} CPU ms/call cold | warm (median) | CPU total ms | errors |`,
  );
  console.log(`|---|---|---|---|---|---|---|---|${withVariants ? '---|' : ''}---|---|---|---|`);
  for (const [name, r] of Object.entries(byName)) {
    const input =
      'summarizerInputTokens' in r ? ` ${(Number(r.summarizerInputTokens) / 1e6).toFixed(2)}M |` : '';
    console.log(
      `| ${name} | ${r.calls} | ${(r.sentTokens / 1e6).toFixed(2)}M | ${(r.costCachedTokens / 1e6).toFixed(2)}M | ${(r.costUncachedTokens / 1e6).toFixed(2)}M | ${r.overBudget} | ${r.pathsKeptPercent} % | ${r.summarizerCalls} |${input} ${r.coldCpuMs} | ${r.warmCpuMsMedian} | ${r.cpuMsTotal} | ${r.errors} |`,
    );
  }
}
