/**
 * The in-process half of bench/scale.ts for one session size (run in its own child process):
 * counting cold against the raw tokenizer, recounting after one append (same objects, and
 * stateless: equal messages rebuilt as the SDK middleware does each call), first and repeated
 * compaction, and LangChain.js `trimMessages` against chatfold's trimming where it finishes
 * (bench/trim-comparison.ts).
 */
import { type CompactResult, compact } from '../src/compaction/compact.ts';
import type { Message } from '../src/messages/types.ts';
import { createTokenCounter } from '../src/tokens/create-token-counter.ts';
import type { EncodingName } from '../src/tokens/encodings.ts';
import { loadEncoding } from '../src/tokens/encodings.ts';
import { extendTokenCount } from '../src/tokens/extend-count.ts';
import type { TokenCounter } from '../src/tokens/types.ts';
import { referenceCount } from '../test/tokens/reference-tokenizer.ts';
import { interleaved, median } from './harness.ts';
import { messageBytes, messageTexts, scaleSession } from './scale-corpus.ts';
import { compareTrimming, type TrimComparison } from './trim-comparison.ts';

/** What the engine phase measures for one size. */
export interface EngineResult {
  readonly messages: number;
  readonly messageBytes: number;
  readonly tokens: number;
  readonly tokenizer: string;
  readonly countCold: {
    chatfoldMs: number;
    rawTokenizerMs: number;
    ratio: number;
    /** chatfold's own encoder over the same texts: `count()` minus it is the per-message work. */
    encoderMs: number;
    overhead: number;
    runs: number;
  };
  readonly recount: { sameObjectsMs: number; extendMs: number; statelessMs: number };
  readonly compaction: {
    firstMs: number;
    repeatedMs: number;
    repeatedRuns: number;
    messagesAfter: number;
    tokensAfter: number;
  };
  readonly trimming?: TrimComparison;
  readonly peakRssMB: number;
}

/**
 * A text counter for a tokenizer id, from one of two sources: `reference` (tiktoken, the raw
 * tokenizer chatfold is compared with) or chatfold's own encoder (what its counter wraps). For
 * chars/N both are the length division.
 */
function textEncoder(tokenizer: string, source: 'reference' | 'chatfold'): (text: string) => number {
  const chars = /^chars\/(\d+(?:\.\d+)?)$/.exec(tokenizer);
  if (chars !== null) {
    const perToken = Number(chars[1]);
    return (text) => Math.ceil(text.length / perToken);
  }
  const encodings: Record<string, EncodingName> = {
    'openai:o200k_base': 'o200k_base',
    'anthropic:claude': 'claude',
  };
  const encoding = encodings[tokenizer];
  if (encoding === undefined) throw new Error(`bench/scale: no encoder for ${tokenizer}`);
  if (source === 'chatfold') return loadEncoding(encoding);
  const raw = referenceCount(encoding);
  return (text) => (text.length === 0 ? 0 : raw(text));
}

const rssMB = (): number => Math.round(process.resourceUsage().maxRSS / 1024);

export async function runEngine({
  size,
  tokenizer,
  repetitions,
  trimMax = 10_000,
}: {
  size: number;
  tokenizer: string;
  repetitions: number;
  /** Largest session the trimming comparison runs on. */
  trimMax?: number;
}): Promise<EngineResult> {
  const messages = scaleSession(size);
  const bytes = messageBytes(messages);
  const texts = messageTexts(messages);
  const encode = textEncoder(tokenizer, 'reference');
  // Warm both tokenizers' code paths on 1,000 messages of other objects (not timed): a cold
  // count below still meets every message object for the first time (validation included).
  const warm = createTokenCounter({ tokenizer });
  warm.count(scaleSession(Math.min(size, 1000)));
  for (const text of texts.slice(0, 3000)) encode(text);

  // 1. Cold count: a fresh counter per run, the same message objects; the raw tokenizer on the same texts.
  // One run at 1M (a second copy of the history would not fit next to the first): the
  // original objects, never counted yet.
  const ownEncode = textEncoder(tokenizer, 'chatfold');
  let copies = 0;
  const freshCopies = (): Message[] => (copies++ === 0 ? messages : scaleSession(size));
  const cold = await interleaved<{ counter: TokenCounter; list: Message[] } | undefined>(
    {
      'raw tokenizer': {
        run: () => {
          let total = 0;
          for (const text of texts) total += encode(text);
          return total;
        },
      },
      'chatfold encoder': {
        run: () => {
          let total = 0;
          for (const text of texts) total += ownEncode(text);
          return total;
        },
      },
      // A fresh counter and fresh message objects per run (equal content, never seen: the entry
      // check and the per-object caches start cold, as for a history loaded from a store).
      'chatfold count': {
        setup: () => ({ counter: createTokenCounter({ tokenizer }), list: freshCopies() }),
        run: (state) => state?.counter.count(state.list),
      },
    },
    { repetitions },
  );
  const counter = createTokenCounter({ tokenizer, cacheSize: Math.max(50_000, size + 1000) });
  const tokens = counter.count(messages).total;

  // 2. Recount after appending one message: the same objects plus one (a caller keeping its
  //    list), and stateless (every message rebuilt with equal content, as the SDK middleware
  //    converts the whole prompt on every call).
  const one = (i: number): Message => ({
    id: `appended-${i}`,
    role: 'user',
    createdAt: '2026-01-01T00:00:00.000Z',
    parts: [{ type: 'text', text: `one more question, number ${i}` }],
  });
  let list: Message[] = messages;
  const same: number[] = [];
  for (let i = 0; i < 15; i++) {
    list = [...list, one(i)];
    const start = performance.now();
    counter.count(list);
    same.push(performance.now() - start);
  }
  // The same append through extendTokenCount: the caller keeps its last count (O(new message)).
  let running = counter.count(list);
  const extended: number[] = [];
  for (let i = 0; i < 15; i++) {
    const start = performance.now();
    running = extendTokenCount(counter, running, [one(50 + i)]);
    extended.push(performance.now() - start);
  }
  const stateless: number[] = [];
  for (let i = 0; i < Math.max(1, Math.min(5, repetitions)); i++) {
    const rebuilt = [...list, one(100 + i)].map((m) => ({ ...m, parts: m.parts.map((p) => ({ ...p })) }));
    const start = performance.now();
    counter.count(rebuilt);
    stateless.push(performance.now() - start);
  }

  // 3. Compaction, counter warm: the first call on these message objects, then repeats.
  const planning = await measurePlanning(messages, counter, size >= 1_000_000 ? 1 : size >= 100_000 ? 3 : 7);
  const first = planning.first;

  const result: EngineResult = {
    messages: messages.length,
    messageBytes: bytes,
    tokens,
    tokenizer,
    countCold: {
      chatfoldMs: cold['chatfold count']?.ms ?? Number.NaN,
      rawTokenizerMs: cold['raw tokenizer']?.ms ?? Number.NaN,
      ratio: round((cold['chatfold count']?.ms ?? 0) / (cold['raw tokenizer']?.ms ?? 1)),
      encoderMs: cold['chatfold encoder']?.ms ?? Number.NaN,
      overhead: round((cold['chatfold count']?.ms ?? 0) / (cold['chatfold encoder']?.ms ?? 1)),
      runs: repetitions,
    },
    recount: {
      sameObjectsMs: median(same.slice(5)),
      extendMs: median(extended.slice(5)),
      statelessMs: median(stateless),
    },
    compaction: {
      firstMs: round(planning.firstMs),
      repeatedMs: planning.repeatedMs,
      repeatedRuns: planning.repeatedRuns,
      messagesAfter: first.messages.length,
      tokensAfter: counter.count(first.messages).total,
    },
    peakRssMB: rssMB(),
  };
  // 4. LangChain.js trimMessages where it finishes in reasonable time (it is superlinear).
  if (size > trimMax) return result;
  const trimming = await compareTrimming({
    messages,
    counter,
    tokenizer,
    maxTokens: 64_000,
    repetitions: size > 2000 ? 3 : 5,
  });
  return { ...result, trimming };
}

const round = (value: number): number => Math.round(value * 1000) / 1000;

/**
 * Compaction planning as a session pays it (deterministic `hybrid`, extractive summary, manual,
 * a 200k window, the counter warm): the first call on these message objects, then the median
 * of `repeatedRuns` repeats (per-object caches make repeats cheaper; a first call is what a
 * turn pays). Shared by bench/scale.ts and bench/compaction.ts.
 */
export async function measurePlanning(
  messages: readonly Message[],
  counter: TokenCounter,
  repeatedRuns: number,
): Promise<{ first: CompactResult; firstMs: number; repeatedMs: number; repeatedRuns: number }> {
  const options = {
    counter,
    window: 200_000,
    maxOutputTokens: 32_000,
    mode: 'manual' as const,
    provider: 'anthropic' as const,
  };
  let start = performance.now();
  const first = await compact(messages, options);
  const firstMs = performance.now() - start;
  const repeated: number[] = [];
  for (let i = 0; i < repeatedRuns; i++) {
    start = performance.now();
    await compact(messages, options);
    repeated.push(performance.now() - start);
  }
  return { first, firstMs, repeatedMs: median(repeated), repeatedRuns };
}
