import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { userDataDir } from '../agent/xdg-paths.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { jsonlStore } from '../stores/jsonl/index.ts';
import { postgresStore } from '../stores/postgres/index.ts';
import { sqliteStore } from '../stores/sqlite/index.ts';
import type { FullStore } from '../stores/types.ts';

/** Environment variable naming the store when `--store` is not given. */
export const STORE_ENV = 'CHATFOLD_STORE';

/** File name of the default SQLite store in the user's data folder. */
export const DEFAULT_STORE_FILE = 'chatfold.db';

/** An opened store and how to name it in messages (never with a password). */
export interface OpenedStore {
  readonly store: FullStore;
  /** `sqlite /home/me/.local/share/chatfold/chatfold.db`, `postgres db.example:5432/app`, … */
  readonly description: string;
}

const isDirectory = (location: string): boolean => {
  try {
    return statSync(location).isDirectory();
  } catch {
    return false;
  }
};

/** A PostgreSQL URL without its password, for messages and logs. */
function describeUrl(url: URL): string {
  return `${url.host}${url.pathname}`;
}

/**
 * Opens the store `--store` names (CLI-1, CLI-4, WEB-1): a `postgres://` or `postgresql://` URL
 * is the PostgreSQL store (a `schema` query parameter picks the schema, default `chatfold`), an
 * existing directory or a path ending in `/` the JSONL store, any other path a SQLite file.
 * Without one, `CHATFOLD_STORE`, then one SQLite file in the user's data folder (XDG,
 * `~/.local/share/chatfold/chatfold.db`).
 *
 * @param location the `--store` value, if given.
 * @param env where `CHATFOLD_STORE` and the XDG variables are read. Default `process.env`.
 */
export function openStore(location: string | undefined, env: NodeJS.ProcessEnv = process.env): OpenedStore {
  const chosen = location?.trim() || env[STORE_ENV]?.trim() || undefined;
  if (chosen === undefined) {
    const dir = userDataDir(env);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, DEFAULT_STORE_FILE);
    return { store: sqliteStore(file), description: `sqlite ${file}` };
  }
  if (/^postgres(ql)?:\/\//i.test(chosen)) {
    let url: URL;
    try {
      url = new URL(chosen);
    } catch {
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `--store: ${JSON.stringify(chosen.replace(/:[^:@/]*@/, ':***@'))} is not a valid PostgreSQL URL; expected postgres://user:password@host:5432/database`,
        { option: 'store' },
      );
    }
    const schema = url.searchParams.get('schema') ?? undefined;
    url.searchParams.delete('schema');
    return {
      store: postgresStore({ connectionString: url.toString() }, schema === undefined ? {} : { schema }),
      description: `postgres ${describeUrl(url)}${schema === undefined ? '' : ` (schema ${schema})`}`,
    };
  }
  const resolved = path.resolve(chosen);
  // A named store goes where it is asked, into a folder that exists: a typo in a path must not
  // quietly create a tree of folders (only the default location is created).
  const parent = path.dirname(resolved);
  if (!isDirectory(resolved) && !isDirectory(parent)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `--store ${chosen}: the folder ${parent} does not exist; create it first (mkdir -p ${parent}) or choose another path`,
      { option: 'store', folder: parent },
    );
  }
  if (chosen.endsWith('/') || chosen.endsWith(path.sep) || isDirectory(resolved)) {
    return { store: jsonlStore(resolved), description: `jsonl ${resolved}` };
  }
  return { store: sqliteStore(resolved), description: `sqlite ${resolved}` };
}
