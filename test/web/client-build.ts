// Makes sure dist/web/client holds a build of the current client sources before browser tests
// (`npm test` builds it first; a test run alone rebuilds it when a source is newer).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = join(root, 'dist/web/client/.vite/manifest.json');

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Builds the client with Vite when the build is missing or older than its sources. */
export function ensureClientBuilt(): void {
  const sources = Math.max(newest(join(root, 'src/web/client')), newest(join(root, 'src/web/api-types.ts')));
  if (existsSync(manifest) && statSync(manifest).mtimeMs >= sources) return;
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'src/web/client/vite.config.ts'],
    {
      cwd: root,
      stdio: 'pipe',
      timeout: 120_000,
    },
  );
}
