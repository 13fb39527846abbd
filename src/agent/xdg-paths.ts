import { homedir } from 'node:os';
import path from 'node:path';

/** Environment variables the paths are read from (tests pass their own). */
export type PathEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * The user's chatfold config folder (XDG Base Directory): `$XDG_CONFIG_HOME/chatfold`, else
 * `~/.config/chatfold`. Agent files live in its `agents/` folder.
 */
export function userConfigDir(env: PathEnvironment = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() || path.join(env.HOME?.trim() || homedir(), '.config');
  return path.join(base, 'chatfold');
}

/**
 * The user's chatfold data folder (XDG): `$XDG_DATA_HOME/chatfold`, else `~/.local/share/chatfold`.
 * The terminal agent's default SQLite store lives there.
 */
export function userDataDir(env: PathEnvironment = process.env): string {
  const base = env.XDG_DATA_HOME?.trim() || path.join(env.HOME?.trim() || homedir(), '.local', 'share');
  return path.join(base, 'chatfold');
}
