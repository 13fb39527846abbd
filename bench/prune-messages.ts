/**
 * chatfold's `pruneMessages` against the AI SDK's (issue 19: "at parity"), on the recorded
 * sessions: before every assistant message of each session with ≥ 20 messages, the history so
 * far pruned with the same options (reasoning before the last message, tool calls before the
 * last 2 messages, empty messages removed) — chatfold on neutral messages, the AI SDK on the
 * same history as `ModelMessage`s (converted once, before the clock). Cold: each history's
 * first call (new objects); warm: the same history again. The two are interleaved, order
 * rotated per repetition; every output is checked equal (chatfold's through `toAiSdk`).
 *
 *   node bench/prune-messages.ts [--repetitions 7]
 */
import { isDeepStrictEqual } from 'node:util';
import { pruneMessages as aiPruneMessages, type ModelMessage } from 'ai';
import { fromAiSdk } from '../src/messages/ai-sdk.ts';
import { pruneMessages } from '../src/messages/prune-messages.ts';
import { toAiSdk } from '../src/messages/to-ai-sdk.ts';
import type { Message } from '../src/messages/types.ts';
import { recordedConversations } from './corpus.ts';
import { load, machine, median } from './harness.ts';

const index = process.argv.indexOf('--repetitions');
const repetitions = index < 0 ? 7 : Number(process.argv[index + 1]);
const OPTIONS = {
  reasoning: 'before-last-message',
  toolCalls: 'before-last-2-messages',
  emptyMessages: 'remove',
} as const;

const histories: Message[][] = [];
for (const conversation of recordedConversations()) {
  if (conversation.length < 20) continue;
  conversation.forEach((message, at) => {
    if (message.role === 'assistant' && at > 0) histories.push(conversation.slice(0, at));
  });
}
/** A deep copy: new objects with equal content, as a caller's list on its first call. */
const copy = <T>(value: T): T => structuredClone(value);

// Outputs equal, once, before timing.
let differing = 0;
for (const history of histories) {
  const ours = toAiSdk(pruneMessages({ messages: history, ...OPTIONS }));
  const theirs = aiPruneMessages({ messages: toAiSdk(history) as ModelMessage[], ...OPTIONS });
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(ours)), JSON.parse(JSON.stringify(theirs)))) differing++;
}

type Run = { cold: number[]; warm: number[] };
const subjects: Record<string, { prepare: () => unknown[]; prune: (messages: unknown) => unknown }> = {
  // Messages as chatfold's converters make them (checked once where they were converted).
  'chatfold pruneMessages': {
    prepare: () => histories.map((history) => fromAiSdk(toAiSdk(history))),
    prune: (messages) => pruneMessages({ messages: messages as Message[], ...OPTIONS }),
  },
  // Plain objects a caller built itself: each call reads and checks each message once.
  'chatfold pruneMessages, plain objects': {
    prepare: () => histories.map(copy),
    prune: (messages) => pruneMessages({ messages: messages as Message[], ...OPTIONS }),
  },
  'ai pruneMessages': {
    prepare: () => histories.map((history) => toAiSdk(copy(history))),
    prune: (messages) => aiPruneMessages({ messages: messages as ModelMessage[], ...OPTIONS }),
  },
};
const names = Object.keys(subjects);
const runs: Record<string, Run> = Object.fromEntries(names.map((name) => [name, { cold: [], warm: [] }]));
for (let rep = -1; rep < repetitions; rep++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + Math.max(rep, 0)) % names.length] as string;
    const subject = subjects[name] as (typeof subjects)[string];
    const inputs = subject.prepare();
    let start = performance.now();
    for (const input of inputs) subject.prune(input);
    const cold = performance.now() - start;
    start = performance.now();
    for (const input of inputs) subject.prune(input);
    const warm = performance.now() - start;
    if (rep >= 0) {
      runs[name]?.cold.push(cold);
      runs[name]?.warm.push(warm);
    }
  }
}
const round = (value: number) => Math.round(value * 100) / 100;
const result = {
  machine: machine(),
  load: load(),
  histories: histories.length,
  messages: histories.reduce((sum, history) => sum + history.length, 0),
  outputsDiffering: differing,
  perSubject: Object.fromEntries(
    names.map((name) => [
      name,
      {
        coldMs: round(median(runs[name]?.cold ?? [])),
        warmMs: round(median(runs[name]?.warm ?? [])),
        coldPerCallMs: round(median(runs[name]?.cold ?? []) / histories.length),
        warmPerCallMs: round(median(runs[name]?.warm ?? []) / histories.length),
      },
    ]),
  ),
};
console.log(JSON.stringify(result, null, 2));
