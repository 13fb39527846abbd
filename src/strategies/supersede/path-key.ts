/**
 * Path keys for comparing the files and directories tool calls name (STR-1). Pure string work,
 * no file system: two spellings of one path get one key, and nothing is guessed (`~`, `$HOME`
 * or a relative path with no known working directory stay as written).
 */

const WINDOWS_DRIVE = /^[A-Za-z]:[\\/]/;

function segmentsOf(path: string): string[] {
  const out: string[] = [];
  const absolute = path.startsWith('/');
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && out.length > 0 && out.at(-1) !== '..') out.pop();
    else if (segment !== '..' || !absolute) out.push(segment);
  }
  return out;
}

/** `a/./b/../c` → `a/c`, `/x//y/` → `/x/y`, `./` → `.`; `..` above a relative start is kept. */
function collapse(path: string): string {
  const absolute = path.startsWith('/');
  const joined = segmentsOf(path).join('/');
  return absolute ? `/${joined}` : joined === '' ? '.' : joined;
}

/**
 * `path` joined onto `base` (a directory key), or `path` itself when it is absolute. An
 * empty or `.` base means "the working directory", so the result stays relative.
 */
export function joinPath(base: string, path: string): string {
  if (path.startsWith('/') || base === '' || base === '.') return collapse(path);
  return collapse(`${base}/${path}`);
}

/**
 * The comparison key of a path: separators, `.` and `..` collapsed, Windows `C:\a\b` written
 * `C:/a/b`, and — when `cwd` is given — an absolute path inside it made relative to it, a
 * relative one kept relative, so `/repo/src/a.ts`, `./src/a.ts` and `src//a.ts` under
 * `cwd: '/repo'` are all `src/a.ts`. Returns undefined for an empty path or one that starts
 * with `~` or `$` (home and variables are not expanded: the key would be a guess).
 *
 * @param path - a path as a tool call spelled it
 * @param cwd - the working directory the call ran in, if known
 */
export function normalizePath(path: string, cwd?: string): string | undefined {
  let value = path.trim();
  if (value === '' || value.startsWith('~') || value.includes('$')) return undefined;
  if (WINDOWS_DRIVE.test(value)) value = `/${value.replaceAll('\\', '/')}`;
  const key = collapse(value);
  if (cwd === undefined || !key.startsWith('/')) return key;
  const root = normalizePath(cwd);
  if (root === undefined || !root.startsWith('/')) return key;
  if (key === root) return '.';
  const prefix = root === '/' ? '/' : `${root}/`;
  return key.startsWith(prefix) ? key.slice(prefix.length) : key;
}
