import { LRUCache } from 'lru-cache';
import { deepFreeze } from '../shared/deep-freeze.ts';
import type { Snapshot, SnapshotKind } from '../types.ts';
import type { SqlQueries } from './queries.ts';
import { type SnapshotRow, toSnapshot } from './rows.ts';
import type { SqlDialect } from './sql-dialect.ts';
import type { SqlExecutor } from './sql-driver.ts';

/** Parsed snapshots kept by id (snapshots never change once written). */
const KEPT_SNAPSHOTS = 64;

/**
 * "The latest snapshot of a session" for the SQL store. A session asks for it every turn to
 * see whether another writer compacted: the answer is one index-only probe for the id, and
 * the snapshot itself (its projection head runs to ~100 kB) is read and parsed once per id,
 * then handed out frozen.
 */
export class LatestSnapshots {
  readonly #sql: SqlQueries;
  readonly #dialect: SqlDialect;
  readonly #byId = new LRUCache<string, Snapshot>({ max: KEPT_SNAPSHOTS });

  constructor(sql: SqlQueries, dialect: SqlDialect) {
    this.#sql = sql;
    this.#dialect = dialect;
  }

  /**
   * The latest snapshot of `kind`, read through `sql` (a transaction or single statements).
   *
   * @returns The snapshot, frozen; `undefined` when the session has none of that kind.
   */
  async latest(sql: SqlExecutor, sessionId: string, kind: SnapshotKind): Promise<Snapshot | undefined> {
    const [latest] = await sql.query<{ id: number | string }>(this.#sql.latestSnapshotId, [sessionId, kind]);
    if (latest === undefined) return undefined;
    const known = this.#byId.get(String(latest.id));
    if (known !== undefined) return known;
    const [row] = await sql.query<SnapshotRow>(this.#sql.snapshotById, [latest.id]);
    return row === undefined ? undefined : this.keep(toSnapshot(row, this.#dialect));
  }

  /** Remembers a snapshot (read or just written) and returns it frozen. */
  keep(snapshot: Snapshot): Snapshot {
    const frozen = deepFreeze(snapshot);
    this.#byId.set(frozen.id, frozen);
    return frozen;
  }
}
