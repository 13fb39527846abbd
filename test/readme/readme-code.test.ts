/**
 * Every ```ts block of the README and of docs/*.md type-checks strictly (issue 9 §4, issue 20), like the files in
 * `examples/` (which tests import unchanged): with the project's tsconfig (`strict`,
 * `noUncheckedIndexedAccess`, `exactOptionalPropertyTypes`) and `chatfold/*` resolved to the
 * sources through package.json's `exports`. New blocks are picked up automatically.
 *
 * Each block is its own module. A block may use the names in README_CONTEXT below without
 * declaring them (what the surrounding prose says the reader already has: `openai`, `messages`,
 * …); everything else it imports or declares. For a sketch that is not meant to compile, use
 * another fence (```js, ```text).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceEntryPoints } from '../../scripts/subpaths.ts';
import { allTypescriptBlocks, root } from './markdown-blocks.ts';

const dir = join(root, 'node_modules/.cache/chatfold-readme-code');

/** Names a README block may use without declaring them, with their types. */
const README_CONTEXT = `
declare const openai: import('openai').default;
declare const storedMessages: import('chatfold').OpenAIMessage[];
declare const messages: import('chatfold').Message[];
declare const tools: import('chatfold').ToolDefinition[];
declare const apiKey: string;
declare const connectionString: string;
declare const pool: import('pg').Pool;
declare const log: (text: string) => void;
declare const modelFolder: string;
declare const session: import('chatfold').Session;
`;

/** `chatfold` and `chatfold/x` → the source file behind each `exports` entry (scripts/subpaths.ts). */
const sourcePaths = (): Record<string, string[]> =>
  Object.fromEntries(
    Object.entries(sourceEntryPoints(new URL('../../', import.meta.url))).map(([name, file]) => [
      name,
      [join(root, file)],
    ]),
  );

interface Diagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

function typeCheck(project: string): Promise<Diagnostic[]> {
  return new Promise((resolve) => {
    execFile(
      join(root, 'node_modules/.bin/tsc'),
      ['-p', project, '--pretty', 'false'],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (_, stdout) => {
        const diagnostics = [...stdout.matchAll(/^(.+?)\((\d+),(\d+)\): (error TS\d+: .*)$/gm)].map(
          ([, file = '', line = '0', column = '0', message = '']) => ({
            file: join(root, file),
            line: Number(line),
            column: Number(column),
            message,
          }),
        );
        resolve(diagnostics);
      },
    );
  });
}

describe('README and docs code', () => {
  const blocks = allTypescriptBlocks();

  it('has TypeScript blocks to check, in the README and in the docs', () => {
    expect(blocks.filter((block) => block.source === 'README.md').length).toBeGreaterThanOrEqual(3);
    expect(blocks.length).toBeGreaterThanOrEqual(20);
  });

  it('every ```ts block type-checks strictly', async () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const files = blocks.map((block) => {
      // `export {}` makes a block without imports a module too (top-level await, own scope);
      // on the last line, so block lines stay README lines.
      const file = join(dir, `${block.source.replace(/[^\w]/g, '-')}-line-${block.line}.mts`);
      writeFileSync(file, `${block.code}\nexport {};\n`);
      return { file, block };
    });
    writeFileSync(join(dir, 'readme-context.d.ts'), README_CONTEXT);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: join(root, 'tsconfig.json'),
        compilerOptions: { noEmit: true, rootDir: root, paths: sourcePaths() },
        include: ['*.mts', 'readme-context.d.ts'],
      }),
    );
    const diagnostics = await typeCheck(join(dir, 'tsconfig.json'));
    // Errors elsewhere (a source file being edited) are the project type check's to report.
    const inReadme = diagnostics.flatMap((diagnostic) => {
      if (diagnostic.file === join(dir, 'readme-context.d.ts'))
        return [`README_CONTEXT: ${diagnostic.message}`];
      const found = files.find(({ file }) => file === diagnostic.file);
      if (found === undefined) return [];
      return [
        `${found.block.source}:${found.block.line + diagnostic.line - 1}:${diagnostic.column} ${diagnostic.message}`,
      ];
    });
    expect(inReadme).toEqual([]);
  }, 120_000);
});
