import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message, runStoreConformance } from '../../../test/stores/conformance.ts';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { MIGRATIONS, SCHEMA_VERSION } from '../sql/schema.ts';
import { postgresStore } from './postgres-store.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const runId = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
let schemas = 0;
/** An isolated schema per store under test, dropped in cleanup. */
const freshSchema = (): string => `chatfold_test_${runId}_${++schemas}`;

let pglite: PGlite;
beforeAll(async () => {
  pglite = await PGlite.create();
});
afterAll(async () => {
  await pglite.close();
});

runStoreConformance('postgres (PGlite)', async () => {
  const schema = freshSchema();
  return {
    store: postgresStore({ pglite }, { schema }),
    reopen: async () => postgresStore({ pglite }, { schema }),
    cleanup: async () => {
      await pglite.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
});

describe.runIf(DATABASE_URL !== undefined)('postgres server (DATABASE_URL)', () => {
  const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  afterAll(async () => {
    await admin.end();
  });

  runStoreConformance('postgres (server)', async () => {
    const schema = freshSchema();
    const connectionString = DATABASE_URL as string;
    return {
      store: postgresStore({ connectionString, max: 4 }, { schema }),
      reopen: async () => postgresStore({ connectionString, max: 4 }, { schema }),
      cleanup: async () => {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      },
    };
  });

  it('uses a pool it is given and leaves it open', async () => {
    const schema = freshSchema();
    try {
      const store = postgresStore({ pool: admin }, { schema });
      await store.append('s', [{ message: message('pooled') }]);
      await store.close();
      const { rows } = await admin.query(`SELECT seq, role FROM "${schema}".chat_messages`);
      expect(rows).toEqual([{ seq: 1, role: 'user' }]);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });

  it('migrates once when many stores open the same new schema at the same time', async () => {
    const schema = freshSchema();
    const stores = Array.from({ length: 6 }, () =>
      postgresStore({ connectionString: DATABASE_URL as string, max: 1 }, { schema }),
    );
    try {
      await Promise.all(stores.map((store, i) => store.append('s', [{ message: message(`open ${i}`) }])));
      const { rows } = await admin.query(
        `SELECT version FROM "${schema}".schema_migrations ORDER BY version`,
      );
      expect(rows).toEqual(MIGRATIONS.map((migration) => ({ version: migration.version })));
      expect(rows.at(-1)).toEqual({ version: SCHEMA_VERSION });
      expect((await stores[0]?.messages('s'))?.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });
});

describe('postgresStore', () => {
  it('keeps its tables in the configured schema, content as exact JSON text', async () => {
    const schema = freshSchema();
    const store = postgresStore({ pglite }, { schema });
    const m = { ...message('Hello NUL \u0000 there'), metadata: { b: 1, a: 2 } };
    await store.append('s', [{ message: m }]);
    const tables = await pglite.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
      [schema],
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual([
      'chat_messages',
      'schema_migrations',
      'session_leases',
      'session_snapshots',
      'sessions',
      'settings',
    ]);
    const row = await pglite.query<{ content: string; search_text: string }>(
      `SELECT content::text AS content, search_text FROM "${schema}".chat_messages`,
    );
    expect(row.rows[0]?.content).toBe(JSON.stringify(m));
    expect(row.rows[0]?.search_text).toBe('hello nul \ufffd there');
    expect((await store.search('s', { text: 'NUL \u0000' })).length).toBe(1);
    await store.close();
    await pglite.exec(`DROP SCHEMA "${schema}" CASCADE`);
  });

  it('refuses a schema migrated by a newer chatfold with E_STORE_SCHEMA', async () => {
    const schema = freshSchema();
    const first = postgresStore({ pglite }, { schema });
    await first.getSession('x');
    await first.close();
    await pglite.query(
      `INSERT INTO "${schema}".schema_migrations (version, name, applied_at) VALUES ($1, 'future', now())`,
      [SCHEMA_VERSION + 1],
    );
    const store = postgresStore({ pglite }, { schema });
    await expect(store.getSession('x')).rejects.toSatisfy((e: unknown) =>
      ChatfoldError.hasCode(e, 'E_STORE_SCHEMA'),
    );
    await store.close();
    await pglite.exec(`DROP SCHEMA "${schema}" CASCADE`);
  });

  it('reports a missing pg as E_MISSING_DEPENDENCY with the install command', async () => {
    const store = postgresStore({
      connectionString: 'postgres://nowhere/db',
      importPg: () => Promise.reject(new Error("Cannot find package 'pg'")),
    } as Parameters<typeof postgresStore>[0]);
    const error = await store.listSessions().catch((e: unknown) => e);
    expect(ChatfoldError.hasCode(error, 'E_MISSING_DEPENDENCY')).toBe(true);
    expect((error as Error).message).toContain('npm install pg');
    await store.close();
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => postgresStore({ pglite }, { schema: 'x"; DROP TABLE y; --' })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_OPTIONS' }),
    );
  });
});
