// The ```ts blocks of the README and of docs/*.md, which test/readme type-checks
// (readme-code.test.ts) and runs (readme-run.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('../..', import.meta.url).pathname;

export interface CodeBlock {
  /** The markdown file, relative to the repository (`README.md`, `docs/api.md`). */
  readonly source: string;
  /** 1-based line of the block's first code line in that file. */
  readonly line: number;
  readonly code: string;
  /**
   * Words after the language on the fence line. `norun`: type-checked but not run, for an
   * example that needs something the test cannot give it (a server that runs until stopped).
   */
  readonly flags: readonly string[];
}

/** The markdown files whose code blocks are checked: the README and every docs page. */
export const markdownFiles = (): string[] => [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The ```ts / ```typescript blocks of a markdown file. */
export function typescriptBlocks(source: string): CodeBlock[] {
  const lines = readFileSync(join(root, source), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(?:ts|typescript)\b(.*)$/.exec(lines[i] ?? '');
    if (fence === null) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    if (end < 0) throw new Error(`${source}:${i + 1}: the code block never closes`);
    const flags = (fence[1] ?? '').trim().split(/\s+/).filter(Boolean);
    blocks.push({ source, line: i + 2, code: lines.slice(i + 1, end).join('\n'), flags });
    i = end;
  }
  return blocks;
}

/** Every ```ts block of the README and the docs. */
export const allTypescriptBlocks = (): CodeBlock[] => markdownFiles().flatMap(typescriptBlocks);
