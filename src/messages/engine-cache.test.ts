import { describe, expect, it } from 'vitest';
import { buildConversation } from '../test/build-conversation.ts';
import { caughtError } from '../test/caught-error.ts';
import { assertMessages } from './check-messages.ts';
import { cacheTable, createEngineCache } from './engine-cache.ts';
import { toAnthropic } from './to-anthropic.ts';
import { toOpenAI } from './to-openai.ts';
import type { Message } from './types.ts';
import { validate } from './validate.ts';

const messages = buildConversation()
  .user('read a.ts')
  .toolRound([{ name: 'Read', args: { file_path: 'a.ts' }, result: 'export {}' }])
  .build();

/** Counts the property reads of a message (a Proxy), to see whether a check read it again. */
function counted(message: Message): { message: Message; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(message, {
    get(target, key, receiver) {
      reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { message: proxy, reads: () => reads };
}

describe('EngineCache (issue 22 §3)', () => {
  it('declares tables once and makes them per cache, on first use', () => {
    let made = 0;
    const table = cacheTable('test.table', () => {
      made++;
      return new WeakMap<object, number>();
    });
    const cache = createEngineCache();
    expect(made).toBe(0);
    expect(cache.table(table)).toBe(cache.table(table));
    expect(made).toBe(1);
    expect(createEngineCache().table(table)).not.toBe(cache.table(table));
    expect(Object.isFrozen(table)).toBe(true);
  });

  it('the entry check reads a message once per cache; without a cache, on every call', () => {
    const { message, reads } = counted(messages[0] as Message);
    const cache = createEngineCache();
    assertMessages([message], 'test', { cache });
    const once = reads();
    expect(once).toBeGreaterThan(0);
    assertMessages([message], 'test', { cache });
    validate([message], { cache });
    toOpenAI([message], { cache });
    // Only the converter's own reads: the check was not run again.
    const converted = reads() - once;
    toOpenAI([message]);
    expect(reads() - once - converted).toBeGreaterThan(converted);
  });

  it('converters take a cache and convert as without one', () => {
    const cache = createEngineCache();
    expect(toOpenAI(messages, { cache })).toEqual(toOpenAI(messages));
    expect(toAnthropic(messages, { cache })).toEqual(toAnthropic(messages));
  });

  it('a cache option that is not a cache is E_INVALID_OPTIONS naming it', () => {
    for (const bad of [5, 'cache', null, {}, { table: 1 }]) {
      for (const run of [
        () => toOpenAI(messages, { cache: bad as never }),
        () => validate(messages, { cache: bad as never }),
        () => assertMessages(messages, 'test', { cache: bad as never }),
      ]) {
        const error = caughtError(run);
        expect(error.code, String(bad)).toBe('E_INVALID_OPTIONS');
        expect(error.details).toMatchObject({ option: 'cache' });
      }
    }
  });
});
