import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { jsonlStore } from '../jsonl/index.ts';
import { memoryStore } from '../memory/index.ts';
import { postgresStore } from '../postgres/index.ts';
import { sqliteStore } from '../sqlite/index.ts';

describe('store factories check their options when given (E_INVALID_OPTIONS)', () => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      'sqlite path of the wrong type',
      () => sqliteStore({ path: 5 } as never),
      /sqliteStore: path: expected string/,
    ],
    [
      'sqlite unknown option',
      () => sqliteStore({ path: ':memory:', journal: 'wal' } as never),
      /unknown option "journal"/,
    ],
    ['sqlite no options', () => sqliteStore(null as never), /sqliteStore: options: expected object/],
    [
      'sqlite bad synchronous',
      () => sqliteStore({ path: ':memory:', synchronous: 'off' } as never),
      /synchronous/,
    ],
    [
      'jsonl unknown option',
      () => jsonlStore({ dir: '/tmp/x', fsnc: 'never' } as never),
      /unknown option "fsnc"/,
    ],
    ['jsonl bad fsync', () => jsonlStore({ dir: '/tmp/x', fsync: true } as never), /fsync/],
    ['postgres nothing to connect to', () => postgresStore(42 as never), /postgresStore/],
    [
      'postgres unknown option',
      () => postgresStore({ connectionString: 'postgres://x', pol: 1 } as never),
      /unknown option "pol"/,
    ],
    ['memory bad clock', () => memoryStore({ now: 5 } as never), /memoryStore: now: expected a clock/],
  ];
  for (const [name, build, message] of cases) {
    it(name, () => {
      let error: unknown;
      try {
        build();
      } catch (caught) {
        error = caught;
      }
      expect(ChatfoldError.hasCode(error, 'E_INVALID_OPTIONS')).toBe(true);
      expect((error as Error).message).toMatch(message);
    });
  }

  it('takes one options object (the string shorthands stay)', async () => {
    const stores = [
      sqliteStore({ path: ':memory:' }),
      sqliteStore(':memory:'),
      jsonlStore({ dir: `/tmp/chatfold-options-${process.pid}`, fsync: 'never' }),
      memoryStore({ now: () => new Date(0) }),
    ];
    for (const store of stores) {
      expect(typeof store.append).toBe('function');
      await store.close();
    }
  });
});
