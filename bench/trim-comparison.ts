/**
 * "Keep the newest messages within N tokens" (SPEC §5, EV-1): LangChain.js `trimMessages`
 * against chatfold's `trimToTokens` and `compact({ strategy: 'truncate' })`, with the same
 * token counts and the same options, in the same process: interleaved, the order rotated every
 * repetition, medians and ratios.
 * - warm: one shared counter that has counted every message (a live session's);
 * - cold: a fresh counter per run for every library (made before the clock starts), the same
 *   message objects. LangChain's counter looks each message's neutral twin up by id and asks
 *   chatfold's counter: nothing else runs inside it.
 */
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
import type { TokenCounter } from '../src/tokens/types.ts';
import { interleaved } from './harness.ts';

export const LANGCHAIN = 'langchain trimMessages';
export const TRIM_TO_TOKENS = 'chatfold trimToTokens';
export const TRUNCATE = 'chatfold compact truncate';

/** One library's result: median time and what it kept. */
export interface TrimSubjectResult {
  readonly ms: number;
  readonly runs: readonly number[];
  readonly kept: number;
  readonly tokens: number;
  readonly firstKeptRole: string | undefined;
  /** Kinds of structural `validate` problems of the kept list (orphan results, split tool groups). */
  readonly problems: readonly string[];
  /** And for Anthropic, whose first message must be a user turn (`startOn: 'human'` asks for that). */
  readonly anthropicProblems: readonly string[];
}

export interface TrimComparison {
  readonly messages: number;
  readonly maxTokens: number;
  readonly repetitions: number;
  readonly warm: Record<string, TrimSubjectResult>;
  readonly cold: Record<string, { ms: number; runs: readonly number[] }>;
  /** LangChain's median over each chatfold function's median. */
  readonly speedup: { warm: Record<string, number>; cold: Record<string, number> };
}

/** LangChain message objects for neutral messages (text of every part; tool calls with their ids). */
export function toLangChain(messages: readonly Message[]): BaseMessage[] {
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
  return messages.map((message) => {
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
}

const round = (value: number): number => Math.round(value * 10) / 10;

/**
 * Runs the comparison.
 *
 * @param options.counter - The warm counter (it has counted `messages`).
 * @param options.tokenizer - Tokenizer id for the fresh counters of the cold runs.
 */
export async function compareTrimming({
  messages,
  counter,
  tokenizer,
  maxTokens,
  repetitions,
}: {
  messages: readonly Message[];
  counter: TokenCounter;
  tokenizer: string;
  maxTokens: number;
  repetitions: number;
}): Promise<TrimComparison> {
  const lc = toLangChain(messages);
  // trimMessages hands its counter copies of the messages it was given: look them up by id.
  const byId = new Map(messages.map((message) => [message.id, message]));
  const neutral = (m: BaseMessage): Message => byId.get(m.id as string) as Message;
  const lcCounter = (c: TokenCounter) => (list: BaseMessage[]) =>
    list.reduce((sum, m) => sum + c.countMessage(neutral(m)), 3);
  // The same options for all (trimToTokens takes LangChain's names and semantics). No
  // `startOn: 'human'`: the newest 64k tokens of an agent's tool loop often hold no user turn,
  // and both would return nothing; without it the kept list's validity tells them apart.
  const shared = { maxTokens, strategy: 'last', includeSystem: true } as const;
  const truncate = (c: TokenCounter) => ({
    counter: c,
    window: maxTokens,
    responseReserve: 0,
    safetyMargin: 0,
    strategy: 'truncate',
    mode: 'manual' as const,
    target: 1,
  });
  const kept: Record<string, readonly Message[]> = {};
  const subjects = (fresh: boolean) => ({
    [LANGCHAIN]: {
      setup: () => (fresh ? createTokenCounter({ tokenizer }) : counter),
      run: async (c: TokenCounter) => {
        kept[LANGCHAIN] = (await trimMessages(lc, { ...shared, tokenCounter: lcCounter(c) })).map(neutral);
      },
    },
    [TRIM_TO_TOKENS]: {
      setup: () => (fresh ? createTokenCounter({ tokenizer }) : counter),
      run: (c: TokenCounter) => {
        kept[TRIM_TO_TOKENS] = trimToTokens(messages, { ...shared, counter: c });
      },
    },
    [TRUNCATE]: {
      setup: () => (fresh ? createTokenCounter({ tokenizer }) : counter),
      run: async (c: TokenCounter) => {
        kept[TRUNCATE] = (await compact(messages, truncate(c))).messages;
      },
    },
  });
  const warm = await interleaved<TokenCounter>(subjects(false), { repetitions, warmup: 1 });
  const cold = await interleaved<TokenCounter>(subjects(true), { repetitions });
  const describe = (name: string): TrimSubjectResult => {
    const list = kept[name] ?? [];
    return {
      ms: warm[name]?.ms ?? Number.NaN,
      runs: warm[name]?.runs ?? [],
      kept: list.length,
      tokens: counter.count(list).total,
      firstKeptRole: list[0]?.role,
      problems: [...new Set(validate(list).map((problem) => problem.kind))],
      anthropicProblems: [
        ...new Set(validate(list, { provider: 'anthropic' }).map((problem) => problem.kind)),
      ],
    };
  };
  const ratio = (results: Record<string, { ms: number }>, name: string) =>
    round((results[LANGCHAIN]?.ms ?? Number.NaN) / (results[name]?.ms ?? Number.NaN));
  return {
    messages: messages.length,
    maxTokens,
    repetitions,
    warm: Object.fromEntries([LANGCHAIN, TRIM_TO_TOKENS, TRUNCATE].map((name) => [name, describe(name)])),
    cold: Object.fromEntries(
      [LANGCHAIN, TRIM_TO_TOKENS, TRUNCATE].map((name) => [
        name,
        { ms: cold[name]?.ms ?? Number.NaN, runs: cold[name]?.runs ?? [] },
      ]),
    ),
    speedup: {
      warm: { [TRIM_TO_TOKENS]: ratio(warm, TRIM_TO_TOKENS), [TRUNCATE]: ratio(warm, TRUNCATE) },
      cold: { [TRIM_TO_TOKENS]: ratio(cold, TRIM_TO_TOKENS), [TRUNCATE]: ratio(cold, TRUNCATE) },
    },
  };
}
