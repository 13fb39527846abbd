/**
 * What `npm pack` ships (issue 9 §4): only what works from node_modules — no source maps
 * pointing at `src/` files that are not in the tarball, no `.ts` examples Node refuses to run
 * there, not the 3 MB example session (the demo runs in a clone) — and every `bin` and
 * `exports` target is in it. Needs the build (`npm test` builds first).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

interface PackedFile {
  readonly path: string;
  readonly size: number;
}

const packed = new Promise<{ files: PackedFile[]; size: number; unpackedSize: number }>((resolve, reject) => {
  execFile('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root }, (error, stdout) => {
    if (error !== null) reject(error);
    else resolve(JSON.parse(stdout)[0]);
  });
});

/** Every file path a `bin` or `exports` entry of package.json points at. */
function declaredTargets(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('package.json', `file://${root}`), 'utf8'));
  const targets: string[] = Object.values(pkg.bin as Record<string, string>);
  const walk = (value: unknown): void => {
    if (typeof value === 'string') targets.push(value);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
  };
  walk(pkg.exports);
  return targets.map((target) => target.replace(/^\.\//, ''));
}

describe('the npm package', () => {
  it('ships no source maps and no TypeScript sources or examples that cannot run from node_modules', async () => {
    const { files } = await packed;
    const paths = files.map((file) => file.path);
    expect(paths.filter((path) => path.endsWith('.map'))).toEqual([]);
    expect(paths.filter((path) => /\.(m|c)?ts$/.test(path) && !/\.d\.(m|c)?ts$/.test(path))).toEqual([]);
    expect(paths.filter((path) => path.startsWith('src/') || path.startsWith('test/'))).toEqual([]);
    expect(paths.filter((path) => path.startsWith('examples/sessions/'))).toEqual([]);
    // The compiled JavaScript does not point at maps it does not ship.
    const main = readFileSync(`${root}dist/cli/main.js`, 'utf8');
    expect(main).not.toContain('sourceMappingURL');
  });

  it('contains every bin and exports target, the README and the licence', async () => {
    const paths = new Set((await packed).files.map((file) => file.path));
    for (const target of declaredTargets()) expect(paths, target).toContain(target);
    expect(paths).toContain('README.md');
    expect(paths).toContain('LICENSE');
  });
});
