/**
 * Compaction benchmarks (EV-1, SPEC §5):
 * 1. planning time of `compact()` (deterministic `hybrid`, extractive summary) on 1k / 10k /
 *    100k-message sessions, counts warm (a session keeps its counter);
 * 2. the same "keep the newest messages within N tokens" workload through chatfold's
 *    `truncate` and LangChain.js `trimMessages`, with the same token counter, on the real
 *    344-message agent session at a 64k budget — time and whether the output is valid.
 *
 *   node bench/compaction.ts        (writes bench/results/compaction.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  trimMessages,
} from '@langchain/core/messages';
import { compact } from '../src/compaction/compact.ts';
import type { Message } from '../src/messages/types.ts';
import { validate } from '../src/messages/validate.ts';
import { trimToTokens } from '../src/strategies/trim.ts';
import { createTokenCounter } from '../src/tokens/create-token-counter.ts';
import { recordedConversations, syntheticSession } from './corpus.ts';
import { machine, medianMs } from './harness.ts';

const counter = createTokenCounter({ tokenizer: 'anthropic:claude' });

const planning: Record<string, { messages: number; tokensBefore: number; tokensAfter: number; ms: number }> =
  {};
for (const size of [1000, 10_000, 100_000]) {
  const messages = syntheticSession(size);
  counter.count(messages); // warm: a live session has counted its messages already
  const options = {
    counter,
    window: 200_000,
    maxOutputTokens: 32_000,
    mode: 'manual' as const,
    provider: 'anthropic' as const,
  };
  const first = await compact(messages, options);
  const ms = await medianMs(() => compact(messages, options), { runs: size >= 100_000 ? 5 : 11, warmup: 1 });
  planning[`${size / 1000}k`] = {
    messages: messages.length,
    tokensBefore: first.plan.tokensBefore,
    tokensAfter: first.plan.tokensAfter,
    ms,
  };
}

// --- trimming: chatfold truncate vs LangChain trimMessages, same counter -------------------
const session = recordedConversations().reduce((a, b) => (b.length > a.length ? b : a));
const maxTokens = 64_000;
const text = (message: Message): string =>
  message.parts
    .map((part) =>
      part.type === 'text'
        ? part.text
        : part.type === 'tool-result'
          ? part.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
          : '',
    )
    .join('');
const lcMessages: BaseMessage[] = session.map((message) => {
  const id = message.id;
  if (message.role === 'system') return new SystemMessage({ content: text(message), id });
  if (message.role === 'user') return new HumanMessage({ content: text(message), id });
  if (message.role === 'tool') {
    const part = message.parts[0];
    return new ToolMessage({
      content: text(message),
      id,
      tool_call_id: part?.type === 'tool-result' ? part.callId : '',
    });
  }
  const calls = message.parts.flatMap((part) =>
    part.type === 'tool-call' ? [{ id: part.id, name: part.name, args: JSON.parse(part.arguments) }] : [],
  );
  return new AIMessage({ content: text(message), id, tool_calls: calls });
});
const byId = new Map(session.map((message) => [message.id, message]));
// The same counter for both: chatfold's per-message count, looked up by message id.
const lcCounter = (messages: BaseMessage[]): number =>
  messages.reduce((sum, m) => sum + counter.countMessage(byId.get(m.id as string) as Message), 3);

let lcOutput: BaseMessage[] = [];
const lcMs = await medianMs(
  async () => {
    lcOutput = await trimMessages(lcMessages, {
      maxTokens,
      tokenCounter: lcCounter,
      strategy: 'last',
      includeSystem: true,
      startOn: 'human',
    });
  },
  { runs: 3, warmup: 1 },
);
const lcProjection = lcOutput.map((m) => byId.get(m.id as string) as Message);
let cfOutput: readonly Message[] = [];
const cfOptions = {
  counter,
  window: maxTokens,
  responseReserve: 0,
  safetyMargin: 0,
  strategy: 'truncate',
  mode: 'manual' as const,
  target: 1,
} as const;
const cfMs = await medianMs(
  async () => {
    cfOutput = (await compact(session, cfOptions)).messages;
  },
  { runs: 21, warmup: 2 },
);

// The synchronous trimming function (same job as trimMessages, no pipeline around it).
let trimOutput: readonly Message[] = [];
const trimMs = await medianMs(
  () => {
    trimOutput = trimToTokens(session, { maxTokens, counter, includeSystem: true, startOn: 'human' });
  },
  { runs: 201, warmup: 5 },
);

// Cold: a fresh counter per run, as an app that does not keep chatfold's per-message cache
// would call trimMessages (its counter is called on many prefixes of the list).
const coldLc = await medianMs(
  async () => {
    const fresh = createTokenCounter({ tokenizer: 'anthropic:claude' });
    await trimMessages(lcMessages, {
      maxTokens,
      tokenCounter: (messages: BaseMessage[]) =>
        messages.reduce(
          (sum, m) => sum + fresh.countMessage(structuredClone(byId.get(m.id as string) as Message)),
          3,
        ),
      strategy: 'last',
      includeSystem: true,
      startOn: 'human',
    });
  },
  { runs: 1, warmup: 0 },
);
const coldTrim = await medianMs(
  () => {
    trimToTokens(session, {
      maxTokens,
      counter: createTokenCounter({ tokenizer: 'anthropic:claude' }),
      includeSystem: true,
      startOn: 'human',
    });
  },
  { runs: 3, warmup: 0 },
);
const coldCf = await medianMs(
  async () => {
    await compact(session, { ...cfOptions, counter: createTokenCounter({ tokenizer: 'anthropic:claude' }) });
  },
  { runs: 3, warmup: 0 },
);

const problems = (messages: readonly Message[]) =>
  validate(messages, { provider: 'anthropic' }).map((p) => p.kind);
const result = {
  machine: machine(),
  planning,
  trimming: {
    session: { messages: session.length, tokens: counter.count(session).total },
    maxTokens,
    langchainTrimMessages: {
      ms: lcMs,
      messagesKept: lcOutput.length,
      tokens: lcCounter(lcOutput),
      firstKeptRole: lcProjection[0]?.role,
      validationProblems: problems(lcProjection),
    },
    chatfoldTruncate: {
      ms: cfMs,
      messagesKept: cfOutput.length,
      tokens: counter.count(cfOutput).total,
      firstKeptRole: cfOutput[0]?.role,
      validationProblems: problems(cfOutput),
    },
    chatfoldTrimToTokens: {
      ms: trimMs,
      messagesKept: trimOutput.length,
      tokens: counter.count(trimOutput).total,
      firstKeptRole: trimOutput[0]?.role,
      validationProblems: problems(trimOutput),
    },
    speedup: Math.round((lcMs / cfMs) * 10) / 10,
    speedupTrimToTokens: Math.round(lcMs / trimMs),
    cold: {
      langchainTrimMessagesMs: coldLc,
      chatfoldTruncateMs: coldCf,
      chatfoldTrimToTokensMs: coldTrim,
      speedup: Math.round((coldLc / coldCf) * 10) / 10,
      speedupTrimToTokens: Math.round((coldLc / coldTrim) * 10) / 10,
    },
  },
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/compaction.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
