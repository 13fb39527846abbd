// Adds lockfile entries for platform-specific optional packages that this machine's registry
// mirror does not serve (it carries only the linux builds), so `npm ci` succeeds on every
// platform. npm skips entries whose os/cpu/libc do not match; on the matching platform it
// fetches the package by name and version from the user's registry.
// Run after `npm install` changes the lockfile: node scripts/lockfile-platforms.ts
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as {
  packages: Record<string, Record<string, unknown>>;
};

/** `@biomejs/cli-win32-arm64` → `{ os: 'win32', cpu: 'arm64' }`, `-musl` → libc. */
function platformOf(name: string): { os: string; cpu: string; libc?: string } | undefined {
  const match = /-(android|darwin|linux|win32|freebsd)-(x64|arm64|ia32|arm)(-(musl|gnu|msvc))?$/.exec(name);
  if (match === null) return undefined;
  const [, os = '', cpu = '', , abi] = match;
  if (os === 'linux') return { os, cpu, libc: abi === 'musl' ? 'musl' : 'glibc' };
  return { os, cpu };
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  const optional = entry.optionalDependencies as Record<string, string> | undefined;
  if (optional === undefined) continue;
  const base = path.slice(0, path.lastIndexOf('node_modules/'));
  for (const [name, version] of Object.entries(optional)) {
    const key = `${base}node_modules/${name}`;
    if (lock.packages[key] !== undefined || lock.packages[`node_modules/${name}`] !== undefined) continue;
    const platform = platformOf(name);
    if (platform === undefined) continue;
    lock.packages[key] = {
      version,
      cpu: [platform.cpu],
      ...(entry.dev === true ? { dev: true } : {}),
      ...(platform.libc === undefined ? {} : { libc: [platform.libc] }),
      license: entry.license,
      optional: true,
      os: [platform.os],
      ...(entry.engines === undefined ? {} : { engines: entry.engines }),
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) =>
    a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0,
  ),
);
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lockfile: added ${added} platform entries`);
