import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message, runStoreConformance } from '../../../test/stores/conformance.ts';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { MIGRATIONS, SCHEMA_VERSION } from '../sql/schema.ts';
import { sqliteStore } from './sqlite-store.ts';

let dir = '';
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-sqlite-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
const freshPath = (): string => join(dir, `store-${++files}.db`);

runStoreConformance('sqlite', async () => {
  const path = freshPath();
  return { store: sqliteStore(path), reopen: async () => sqliteStore(path) };
});

describe('sqliteStore', () => {
  it('creates the ST-2 schema and records the migration', async () => {
    const path = freshPath();
    const store = sqliteStore(path);
    await store.append('s', [{ message: message('hello') }]);
    await store.close();
    const db = new DatabaseSync(path);
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
      .all()
      .map((row) => row.name);
    expect(tables).toEqual(
      expect.arrayContaining([
        'chat_messages',
        'schema_migrations',
        'session_leases',
        'session_snapshots',
        'sessions',
        'settings',
      ]),
    );
    expect(
      db
        .prepare('SELECT version FROM schema_migrations ORDER BY version')
        .all()
        .map((r) => r.version),
    ).toEqual(MIGRATIONS.map((migration) => migration.version));
    expect(MIGRATIONS.at(-1)?.version).toBe(SCHEMA_VERSION);
    expect(db.prepare('PRAGMA journal_mode').get()?.journal_mode).toBe('wal');
    const row = db.prepare('SELECT role, search_text, content FROM chat_messages').get();
    expect(row?.role).toBe('user');
    expect(row?.search_text).toBe('hello');
    db.close();
  });

  it('refuses a database migrated by a newer chatfold with E_STORE_SCHEMA', async () => {
    const path = freshPath();
    const first = sqliteStore(path);
    await first.getSession('x');
    await first.close();
    const db = new DatabaseSync(path);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
      SCHEMA_VERSION + 1,
      'from the future',
      new Date().toISOString(),
    );
    db.close();
    const store = sqliteStore(path);
    await expect(store.getSession('x')).rejects.toSatisfy((e: unknown) =>
      ChatfoldError.hasCode(e, 'E_STORE_SCHEMA'),
    );
    await store.close();
  });

  it('reports a file it cannot open as E_STORE', async () => {
    const store = sqliteStore(join(dir, 'no-such-folder', 'x.db'));
    await expect(store.listSessions()).rejects.toSatisfy((e: unknown) => ChatfoldError.hasCode(e, 'E_STORE'));
    await store.close();
  });

  it('works in memory', async () => {
    const store = sqliteStore(':memory:');
    await store.append('s', [{ message: message('in memory') }]);
    expect((await store.messages('s')).length).toBe(1);
    await store.close();
  });
});
