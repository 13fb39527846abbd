// Fails when tsconfig.json's `paths` differ from package.json's `exports` (scripts/subpaths.ts),
// naming each difference; `--write` rewrites `paths` from `exports`. Part of `npm test`.
//   node scripts/check-subpaths.ts [--write]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { sourceEntryPoints } from './subpaths.ts';

const root = new URL('../', import.meta.url);
const tsconfigUrl = new URL('tsconfig.json', root);
const entries = sourceEntryPoints(root);
const expected = Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, [`./${file}`]]));

const problems: string[] = [];
for (const [name, file] of Object.entries(entries))
  if (!existsSync(new URL(file, root))) problems.push(`${name}: ${file} does not exist`);

const text = readFileSync(tsconfigUrl, 'utf8');
const tsconfig = JSON.parse(text) as { compilerOptions: { paths?: Record<string, string[]> } };
const actual = tsconfig.compilerOptions.paths ?? {};
for (const [name, [file]] of Object.entries(expected) as [string, string[]][])
  if (actual[name]?.[0] !== file)
    problems.push(
      `${name}: tsconfig.json paths has ${JSON.stringify(actual[name])}, exports says ["${file}"]`,
    );
for (const name of Object.keys(actual))
  if (!(name in expected)) problems.push(`${name}: in tsconfig.json paths but not in package.json exports`);

if (problems.length === 0) process.exit(0);
if (process.argv.includes('--write')) {
  // Only the `paths` object is replaced, in the file's own layout (one entry a line).
  const lines = Object.entries(expected).map(
    ([name, files]) => `      ${JSON.stringify(name)}: ${JSON.stringify(files)}`,
  );
  const paths = `"paths": {\n${lines.join(',\n')}\n    }`;
  const rewritten = /"paths": \{[^}]*\}/.test(text)
    ? text.replace(/"paths": \{[^}]*\}/, paths)
    : text.replace(/"compilerOptions": \{/, `"compilerOptions": {\n    ${paths},`);
  writeFileSync(tsconfigUrl, rewritten);
  process.stdout.write(
    `tsconfig.json: paths rewritten from package.json exports (${problems.length} fixed)\n`,
  );
  process.exit(0);
}
process.stderr.write(
  `tsconfig.json paths and package.json exports disagree (fix: node scripts/check-subpaths.ts --write):\n${problems
    .map((problem) => `  ${problem}\n`)
    .join('')}`,
);
process.exit(1);
