import { describe, expect, it } from 'vitest';
import { createEngineCache, type EngineCache } from '../messages/engine-cache.ts';
import type { Message } from '../messages/types.ts';
import { createChatfold } from '../session/create-chatfold.ts';
import { stageEffect } from '../strategies/stage-effect.ts';
import type { Strategy } from '../strategies/types.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { createCalibratedTokenCounter } from '../tokens/calibrated-counter.ts';
import { createTokenCounter } from '../tokens/create-token-counter.ts';
import { compact } from './compact.ts';
import { compactionCache } from './compaction-cache.ts';
import { planCompaction } from './plan-compaction.ts';

// Issue 22 §3: caches are objects owned by a counter or a session and passed in; no module
// keeps one, so two owners never share one and a test gets a clean slate with a new cache.

/** A stage that changes nothing and records the cache each run was given. */
function recorder(): { strategy: Strategy; seen: (EngineCache | undefined)[] } {
  const seen: (EngineCache | undefined)[] = [];
  return {
    seen,
    strategy: {
      name: 'record-cache',
      apply(_messages, context) {
        seen.push(context.cache);
        return { edits: {}, effect: stageEffect({}) };
      },
    },
  };
}

function history(rounds: number): Message[] {
  const builder = buildConversation().system('You are a coding agent.').user('Fix the parser');
  for (let i = 0; i < rounds; i++)
    builder
      .toolRound([
        { name: 'Read', args: { file_path: `src/f${i % 2}.ts` }, result: `line ${i}\n`.repeat(300) },
      ])
      .assistant(`Read src/f${i % 2}.ts.`)
      .user(`Go on with ${i + 1}.`);
  return builder.build();
}

describe('engine caches have owners (issue 22 §3)', () => {
  it('each cache keeps its own tables', () => {
    const table = { name: 'test', create: () => new Map<string, number>() };
    const a = createEngineCache();
    const b = createEngineCache();
    a.table(table).set('x', 1);
    expect(a.table(table).get('x')).toBe(1);
    expect(b.table(table).has('x')).toBe(false);
  });

  it('two counters never share a cache, and a calibrated counter has its own, not its base counter’s', () => {
    const one = createTokenCounter({ tokenizer: 'chars/4' });
    const two = createTokenCounter({ tokenizer: 'chars/4' });
    expect(one.cache).toBeDefined();
    expect(one.cache).not.toBe(two.cache);
    const first = createCalibratedTokenCounter(one);
    const second = createCalibratedTokenCounter(one);
    expect(first.cache).toBeDefined();
    expect(first.cache).not.toBe(second.cache);
    expect(first.cache).not.toBe(one.cache);
  });

  it('a stateless compact() without an owner gets a fresh cache per call; with one, that one', async () => {
    const messages = history(8);
    const { strategy, seen } = recorder();
    const options = { window: 8000, mode: 'manual' as const, strategy: [strategy, 'truncate'] };
    await compact(messages, options);
    await compact(messages, options);
    await planCompaction(messages, options);
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);
    expect(seen.every((cache) => cache !== undefined)).toBe(true);

    const cache = createEngineCache();
    await compact(messages, { ...options, cache });
    await planCompaction(messages, { ...options, cache });
    expect(seen.slice(3)).toEqual([cache, cache]);

    const counter = createTokenCounter({ tokenizer: 'chars/4' });
    await compact(messages, { ...options, counter });
    expect(seen.at(-1)).toBe(counter.cache);
    // A library-chosen counter (a model id, no counter given) never lends its cache.
    const { window: _, ...byModel } = options;
    await compact(messages, { ...byModel, model: 'gpt-4o' });
    await compact(messages, { ...byModel, model: 'gpt-4o' });
    expect(seen.at(-1)).not.toBe(seen.at(-2));
  });

  it('a cache passed in keeps its memo hits: the same transform of the same message is the same object', async () => {
    const messages = history(8);
    const cache = createEngineCache();
    // Reads of the same two files: the older outputs are superseded (replaced by stubs).
    const options = { window: 4000, mode: 'manual' as const, strategy: 'supersede', cache };
    const first = await compact(messages, options);
    const again = await compact(messages, options);
    const masked = first.messages.filter((message) => message.metadata?.chatfold !== undefined);
    expect(first.plan.replaced.length).toBe(masked.length);
    expect(masked.length).toBeGreaterThan(0);
    for (const message of masked) expect(again.messages).toContain(message);
    // Without the cache, equal messages but new objects: nothing was remembered between calls.
    const { cache: __, ...withoutCache } = options;
    const fresh = await compact(messages, withoutCache);
    expect(fresh.messages).toEqual(first.messages);
    expect(fresh.messages.filter((message) => masked.includes(message))).toEqual([]);
  });

  it('two sessions never share a cache; a session keeps one cache across its compactions', async () => {
    const { strategy, seen } = recorder();
    const counter = createMockTokenCounter();
    const chatfold = createChatfold({ window: 6000, counter, strategy: [strategy, 'truncate'] });
    const a = await chatfold.session('a');
    const b = await chatfold.session('b');
    await a.append(history(8));
    await b.append(history(8));
    await a.compact();
    await b.compact();
    // More history for `a` (fresh message and call ids), then its second compaction.
    await a.append(
      history(8)
        .slice(2)
        .map(
          (message) =>
            JSON.parse(JSON.stringify(message).replace(/"(m|call_)(\d+)"/g, '"late-$1$2"')) as Message,
        ),
    );
    await a.compact();
    expect(seen).toHaveLength(3);
    const [a1, b1, a2] = seen;
    expect(a1).toBeDefined();
    expect(a1).toBe(a2);
    expect(b1).not.toBe(a1);
    // Not the cache of the counter the sessions were given either (that counter is shared).
    expect(counter.cache).toBeUndefined();
    expect(compactionCache({ counter })).not.toBe(a1);
  });

  it('reads a cache only from what is one', () => {
    const cache = createEngineCache();
    expect(compactionCache({ cache })).toBe(cache);
    expect(compactionCache({ cache: { table: 'no' } })).not.toBe(cache);
    expect(compactionCache({ counter: { cache } })).toBe(cache);
    expect(compactionCache({ counter: 'counter' })).toEqual(
      expect.objectContaining({ table: expect.any(Function) }),
    );
  });
});
