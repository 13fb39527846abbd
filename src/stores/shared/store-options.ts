import { z } from 'zod';
import { fn, parseOptions, withMethods } from '../../options/parse-options.ts';

const clock = fn<() => Date>('a clock').optional();
const positiveInt = z.number().int().positive();

const sqliteSchema = z
  .object({
    path: z.string().min(1),
    busyTimeoutMs: z.number().int().nonnegative().optional(),
    synchronous: z.enum(['full', 'normal']).optional(),
    now: clock,
  })
  .strict();

const jsonlSchema = z
  .object({
    dir: z.string().min(1),
    fsync: z.enum(['always', 'never']).optional(),
    lockTimeoutMs: positiveInt.optional(),
    staleLockMs: positiveInt.optional(),
    cachedSessions: positiveInt.optional(),
    now: clock,
  })
  .strict();

const postgresShared = { schema: z.string().optional(), now: clock };
const postgresSchemas = {
  connectionString: z
    .object({
      connectionString: z.string().min(1),
      max: positiveInt.optional(),
      importPg: fn('a loader of pg (tests)').optional(),
      ...postgresShared,
    })
    .strict(),
  pool: z.object({ pool: withMethods('a pg pool', ['query', 'connect']), ...postgresShared }).strict(),
  pglite: z.object({ pglite: withMethods('a PGlite instance', ['query']), ...postgresShared }).strict(),
} as const;
const postgresWhere = z.object({ connectionString: z.string().min(1) }).loose();

const memorySchema = z.object({ now: clock }).strict();

/** Checks `memoryStore` options when given (`E_INVALID_OPTIONS`). */
export function checkMemoryOptions<T>(options: T): T {
  return parseOptions<T>(memorySchema, options, 'memoryStore');
}

/** Checks `sqliteStore` options when given (`E_INVALID_OPTIONS`). */
export function checkSqliteOptions<T>(options: T): T {
  return parseOptions<T>(sqliteSchema, options ?? null, 'sqliteStore');
}

/** Checks `jsonlStore` options when given (`E_INVALID_OPTIONS`). */
export function checkJsonlOptions<T>(options: T): T {
  return parseOptions<T>(jsonlSchema, options ?? null, 'jsonlStore');
}

/** Checks `postgresStore` options when given (`E_INVALID_OPTIONS`). */
export function checkPostgresOptions<T>(options: T): T {
  // One of three ways to connect: check the one the caller chose, so errors name its fields.
  const chosen =
    typeof options === 'object' && options !== null
      ? (Object.keys(postgresSchemas) as (keyof typeof postgresSchemas)[]).find((key) => key in options)
      : undefined;
  return parseOptions<T>(
    chosen === undefined ? postgresWhere : postgresSchemas[chosen],
    options ?? null,
    'postgresStore',
  );
}
