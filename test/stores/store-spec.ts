/**
 * Which store a cross-process test (ST-4, ST-5) and its child writers open: the same spec, as
 * JSON, in the test and in `node test/stores/store-child.ts` processes.
 */
import { jsonlStore } from '../../src/stores/jsonl/jsonl-store.ts';
import { postgresStore } from '../../src/stores/postgres/postgres-store.ts';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.ts';
import type { FullStore } from '../../src/stores/types.ts';

export type StoreSpec =
  | { readonly kind: 'jsonl'; readonly dir: string; readonly fsync: 'always' | 'never' }
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly connectionString: string; readonly schema: string };

/**
 * Opens the store a spec names.
 *
 * @param spec - The store.
 * @param poolMax - Postgres pool size (children use 1, the test's own stores 2).
 * @returns The store; SQL stores connect and migrate on first use.
 */
export function openStore(spec: StoreSpec, poolMax = 2): FullStore {
  switch (spec.kind) {
    case 'jsonl':
      return jsonlStore(spec.dir, { fsync: spec.fsync });
    case 'sqlite':
      return sqliteStore(spec.path);
    case 'postgres':
      return postgresStore(
        { connectionString: spec.connectionString, max: poolMax },
        { schema: spec.schema },
      );
  }
}
