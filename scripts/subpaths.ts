// The one subpath map: package.json `exports`. Everything that resolves `chatfold` or
// `chatfold/<x>` to the sources — Vitest's aliases (vitest.config.ts), the README type check
// (test/readme) — derives it from here, and `scripts/check-subpaths.ts` keeps tsconfig.json's
// `paths` (a JSON file that cannot import this) equal to it. Adding an entry point is one edit
// to `exports`, then `node scripts/check-subpaths.ts --write`.
import { readFileSync } from 'node:fs';

/** `chatfold` or `chatfold/<x>` → the source file, relative to the repository (`src/…/index.ts`). */
export type SourceEntryPoints = Readonly<Record<string, string>>;

/**
 * Reads package.json's `exports` and maps each entry point to the source file its `types`
 * target is compiled from (`./dist/x/index.d.ts` → `src/x/index.ts`; `tsc` keeps the layout
 * because `rootDir` is `src`). Entries without `types` (`./package.json`) are not code.
 *
 * @param root - URL of the repository folder (ending in `/`).
 */
export function sourceEntryPoints(root: URL): SourceEntryPoints {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
    name: string;
    exports: Record<string, string | { types?: string }>;
  };
  const entries: Record<string, string> = {};
  for (const [key, target] of Object.entries(pkg.exports)) {
    const types = typeof target === 'string' ? undefined : target.types;
    if (types === undefined) continue;
    if (!/^\.\/dist\/.+\.d\.ts$/.test(types))
      throw new Error(`package.json exports["${key}"].types is ${types}; expected ./dist/<path>.d.ts`);
    const specifier = key === '.' ? pkg.name : `${pkg.name}/${key.replace(/^\.\//, '')}`;
    entries[specifier] = types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts');
  }
  return entries;
}
