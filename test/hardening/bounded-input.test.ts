/**
 * Bounded work on any input (issue 24 §3). What an input claims about its size is checked
 * before any work proportional to the claim: a sparse array's length (1e9, a few entries)
 * before a walk — the proxy around it counts the index reads, and there are none —, a byte
 * array's length before base64, the number of parts of a message before it is accepted. Each
 * refusal is `E_MESSAGE_TOO_LARGE` with the limit. No test here times anything.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compact } from '../../src/compaction/compact.ts';
import { planCompaction } from '../../src/compaction/plan-compaction.ts';
import { ChatfoldError } from '../../src/errors/chatfold-error.ts';
import { fromAiSdk } from '../../src/messages/ai-sdk.ts';
import { fromAnthropic } from '../../src/messages/anthropic.ts';
import { assertMessages, MAX_MESSAGE_PARTS } from '../../src/messages/check-messages.ts';
import { fromGemini } from '../../src/messages/gemini.ts';
import { normalizeMessages } from '../../src/messages/normalize.ts';
import { fromOpenAI } from '../../src/messages/openai.ts';
import { pruneMessages } from '../../src/messages/prune-messages.ts';
import { MAX_ARRAY_LENGTH } from '../../src/messages/snapshot.ts';
import { toOpenAI } from '../../src/messages/to-openai.ts';
import type { Message } from '../../src/messages/types.ts';
import { validate } from '../../src/messages/validate.ts';
import { createChatfold } from '../../src/session/create-chatfold.ts';
import { memoryStore } from '../../src/stores/memory/memory-store.ts';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.ts';
import type { FullStore } from '../../src/stores/types.ts';
import { trimToTokens } from '../../src/strategies/trim.ts';
import { counterFor, countTokens } from '../../src/tokens/count-tokens.ts';
import { sparse } from './shifty-input.ts';

const HUGE = 1_000_000_000;
const at = '2026-01-01T00:00:00.000Z';
const hello: Message = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hello' }], createdAt: at };

/** The typed error a call ends with (sync or async); fails the test on anything else. */
async function refusal(call: () => unknown): Promise<ChatfoldError> {
  try {
    await call();
  } catch (error) {
    if (ChatfoldError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ChatfoldError, the call returned');
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-bounded-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sparse arrays are refused by their length, before a walk (issue 24 §3)', () => {
  /** Each case gets a sparse array (a few real entries, length 1e9) and puts it where it belongs. */
  const CASES: readonly { name: string; run: (list: unknown[]) => unknown }[] = [
    { name: 'fromOpenAI messages', run: (list) => fromOpenAI(list as never) },
    { name: 'fromOpenAI content', run: (list) => fromOpenAI([{ role: 'user', content: list }] as never) },
    { name: 'fromAnthropic messages', run: (list) => fromAnthropic({ messages: list } as never) },
    {
      name: 'fromAnthropic content',
      run: (list) => fromAnthropic({ messages: [{ role: 'user', content: list }] } as never),
    },
    { name: 'fromAiSdk messages', run: (list) => fromAiSdk(list as never) },
    { name: 'fromAiSdk content', run: (list) => fromAiSdk([{ role: 'user', content: list }] as never) },
    { name: 'fromGemini contents', run: (list) => fromGemini({ contents: list } as never) },
    { name: 'assertMessages', run: (list) => assertMessages(list, 'test') },
    { name: 'normalizeMessages', run: (list) => normalizeMessages(list as never) },
    {
      name: 'normalizeMessages parts',
      run: (list) => normalizeMessages([{ role: 'user', parts: list }] as never),
    },
    { name: 'countTokens', run: (list) => countTokens(list as never) },
    { name: 'counter.count', run: (list) => counterFor('openai:o200k_base').count(list as never) },
    { name: 'validate', run: (list) => validate(list as never) },
    { name: 'toOpenAI', run: (list) => toOpenAI(list as never) },
    {
      name: 'trimToTokens',
      run: (list) => trimToTokens(list as never, { maxTokens: 100, tokenCounter: counterFor('chars/4') }),
    },
    { name: 'pruneMessages', run: (list) => pruneMessages({ messages: list as never }) },
    { name: 'compact', run: (list) => compact(list as never, { window: 8_000, mode: 'manual' }) },
    {
      name: 'planCompaction',
      run: (list) => planCompaction(list as never, { window: 8_000, mode: 'manual' }),
    },
    {
      name: 'session.append (memory)',
      run: async (list) =>
        (await createChatfold({ window: 8_000, store: memoryStore() }).session('s')).append(list as never),
    },
    {
      name: 'session.append (SQLite)',
      run: async (list) => {
        const store = sqliteStore(join(dir, `sparse-${Math.random().toString(36).slice(2)}.db`));
        try {
          await (await createChatfold({ window: 8_000, store }).session('s')).append(list as never);
        } finally {
          await store.close();
        }
      },
    },
    {
      name: 'session.append parts',
      run: async (list) =>
        (await createChatfold({ window: 8_000, store: memoryStore() }).session('s')).append({
          role: 'user',
          parts: list,
        } as never),
    },
  ];

  for (const { name, run } of CASES) {
    it(`${name}: E_MESSAGE_TOO_LARGE without reading one entry`, async () => {
      const { value, reads } = sparse([{ type: 'text', text: 'hi' }], HUGE);
      const error = await refusal(() => run(value));
      expect(error.code).toBe('E_MESSAGE_TOO_LARGE');
      expect(error.details).toMatchObject({ actual: HUGE });
      expect([MAX_ARRAY_LENGTH, MAX_MESSAGE_PARTS]).toContain((error.details as { limit: number }).limit);
      expect(reads()).toBe(0);
    });
  }
});

describe('a value shared many times over is read once (issue 24 §3)', () => {
  it('a 40-level diamond (2^40 values as JSON, 41 objects) is refused after reading each object once', async () => {
    let reads = 0;
    const counted = (value: object): object =>
      new Proxy(value, {
        get(target, key, receiver) {
          reads++;
          return Reflect.get(target, key, receiver);
        },
      });
    let shared: object = counted({ leaf: 1 });
    for (let level = 0; level < 40; level++) shared = counted({ a: shared, b: shared });
    const message = { ...hello, metadata: { shared } };
    for (const run of [
      () => assertMessages([message], 'test'),
      () => normalizeMessages([message] as never),
      () => fromOpenAI([{ role: 'user', content: 'hi', extra: shared }] as never),
    ]) {
      reads = 0;
      const error = await refusal(run);
      expect(error.code).toBe('E_MESSAGE_TOO_LARGE');
      expect(reads).toBeLessThanOrEqual(2 * 41);
    }
  });
});

describe('byte arrays are refused by their length before base64 (issue 24 §3)', () => {
  // Pages of a zero-filled buffer are not touched until read: 400 MiB here costs no memory
  // unless something converts it, and a conversion would need about 1 GiB more.
  const bytes = new Uint8Array(400 * 1024 * 1024);
  const limit = Math.floor((16 * 1024 * 1024 * 3) / 4);

  it('a ~400 MiB Uint8Array in an AI SDK file part', async () => {
    const error = await refusal(() =>
      fromAiSdk([{ role: 'user', content: [{ type: 'file', data: bytes, mediaType: 'application/pdf' }] }]),
    );
    expect(error.code).toBe('E_MESSAGE_TOO_LARGE');
    expect(error.details).toMatchObject({
      actual: bytes.byteLength,
      limit,
      where: 'messages[0].content[0].data',
    });
  });

  it('the same bytes as an ArrayBuffer image, and an own byteLength property does not fool the check', async () => {
    const image = await refusal(() =>
      fromAiSdk([
        { role: 'user', content: [{ type: 'image', image: bytes.buffer, mediaType: 'image/png' }] },
      ]),
    );
    expect(image.details).toMatchObject({ actual: bytes.byteLength, limit });
    const lying = new Uint8Array(bytes.buffer);
    Object.defineProperty(lying, 'byteLength', { value: 3 });
    Object.defineProperty(lying, 'length', { value: 3 });
    const error = await refusal(() =>
      fromAiSdk([{ role: 'user', content: [{ type: 'file', data: lying, mediaType: 'application/pdf' }] }]),
    );
    expect(error.details).toMatchObject({ actual: bytes.byteLength, limit });
  });

  it('small bytes still convert', () => {
    const [message] = fromAiSdk([
      {
        role: 'user',
        content: [{ type: 'file', data: new Uint8Array([1, 2, 3]), mediaType: 'application/pdf' }],
      },
    ]);
    expect(message?.parts[0]).toMatchObject({ type: 'attachment', data: 'AQID', size: 3 });
  });
});

describe('parts and tool calls are counted where a message enters (issue 24 §3)', () => {
  const manyParts = (count: number): Message => ({
    id: 'many',
    role: 'user',
    parts: Array.from({ length: count }, () => ({ type: 'text' as const, text: 'x' })),
    createdAt: at,
  });
  const manyCalls = (count: number): Message => ({
    id: 'calls',
    role: 'assistant',
    parts: Array.from({ length: count }, (_, i) => ({
      type: 'tool-call' as const,
      id: `c${i}`,
      name: 'read_file',
      arguments: '{}',
    })),
    createdAt: at,
  });

  for (const [name, open] of [
    ['memory', () => memoryStore()],
    ['SQLite', () => sqliteStore(join(dir, `parts-${Math.random().toString(36).slice(2)}.db`))],
  ] as const) {
    it(`session.append (${name}) refuses 200,000 one-character parts; the session stays usable`, async () => {
      const store: FullStore = open();
      try {
        const session = await createChatfold({ window: 8_000, store }).session('s');
        await session.append(hello);
        const error = await refusal(() => session.append(manyParts(200_000)));
        expect(error.code).toBe('E_MESSAGE_TOO_LARGE');
        expect(error.details).toMatchObject({ actual: 200_000, limit: MAX_MESSAGE_PARTS });
        expect((await store.messages('s')).map((row) => row.message.id)).toEqual(['m1']);
        const prepared = await session.prepare();
        expect(prepared.messages.map((message) => message.id)).toContain('m1');
      } finally {
        await store.close();
      }
    });
  }

  it('compact and planCompaction refuse 100,000 tool calls in one message before any work', async () => {
    const input = [hello, manyCalls(100_000)];
    for (const run of [
      () => compact(input, { window: 8_000, mode: 'manual' }),
      () => planCompaction(input, { window: 8_000, mode: 'manual' }),
    ]) {
      const error = await refusal(run);
      expect(error.code).toBe('E_MESSAGE_TOO_LARGE');
      expect(error.details).toMatchObject({
        actual: 100_000,
        limit: MAX_MESSAGE_PARTS,
        where: 'messages[1].parts',
      });
    }
  });

  it('a message at the limit is accepted and prepares', async () => {
    const session = await createChatfold({ window: 200_000, store: memoryStore() }).session('s');
    await session.append(manyParts(MAX_MESSAGE_PARTS));
    const prepared = await session.prepare();
    expect(prepared.messages).toHaveLength(1);
  });
});
