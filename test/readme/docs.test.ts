/**
 * The README and docs/*.md cannot drift from the package (issue 20): the API page lists exactly
 * the values each entry point exports; no page names a symbol that exists in the source but is
 * not exported; no page cites internal references (requirement IDs, seed documents, spec
 * sections, issue numbers) a reader does not have; every model id in a code block or a CLI
 * default is one the bundled registry knows and the Anthropic SDK does not list as retiring;
 * every link points at a file that exists.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceEntryPoints } from '../../scripts/subpaths.ts';
import { defaultModelFor } from '../../src/cli/options.ts';
import { resolveModel } from '../../src/models/resolve-model.ts';

const root = new URL('../../', import.meta.url);
const rootPath = root.pathname;
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');
const pages = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const entryPoints = sourceEntryPoints(root);

/** Runtime exports per entry point: `Object.keys` of the module, as a user's import sees them. */
async function runtimeExports(): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  for (const [name, file] of Object.entries(entryPoints)) {
    result.set(name, Object.keys(await import(new URL(file, root).href)).sort());
  }
  return result;
}

/** The names in the first cell of each table row, per `## \`entry\`` section of docs/api.md. */
function documentedExports(): Map<string, Set<string>> {
  const sections = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of read('docs/api.md').split('\n')) {
    if (line.startsWith('## ')) {
      // A heading may name several entry points (`chatfold/sqlite`, `chatfold/postgres`): one list.
      const listed = new Set<string>();
      current = listed;
      for (const [, entry] of line.matchAll(/`(chatfold(?:\/[\w-]+)?)`/g))
        sections.set(entry as string, listed);
      continue;
    }
    const cell = /^\| (.+?) \|/.exec(line)?.[1];
    if (cell === undefined || cell === 'export' || current === undefined) continue;
    for (const [, name] of cell.matchAll(/`([A-Za-z_$][\w$]*)/g)) current.add(name as string);
  }
  return sections;
}

/** Prose without fenced code blocks (blocks are type-checked by readme-code.test.ts). */
const prose = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, '');

describe('docs/api.md', () => {
  it('lists exactly the values every entry point exports', async () => {
    const documented = documentedExports();
    const problems: string[] = [];
    const exports = await runtimeExports();
    for (const [entry, names] of exports) {
      const listed = documented.get(entry);
      if (listed === undefined) {
        problems.push(`${entry}: no "## \`${entry}\`" section`);
        continue;
      }
      // A section shared by several entry points lists the union of their exports.
      const shared = [...documented].filter(([, set]) => set === listed).map(([name]) => name);
      const union = new Set(shared.flatMap((name) => exports.get(name) ?? []));
      for (const name of names)
        if (!listed.has(name)) problems.push(`${entry}: exports ${name}, the page does not list it`);
      for (const name of listed)
        if (!union.has(name)) problems.push(`${entry}: the page lists ${name}, which is not exported`);
    }
    for (const entry of documented.keys())
      if (!(entry in entryPoints))
        problems.push(`${entry}: a section for an entry point package.json does not export`);
    expect([...new Set(problems)]).toEqual([]);
  });
});

/** Names the source defines with `export`, and the ones the package's entry points make public. */
function sourceSymbols(): { defined: Set<string>; exported: Set<string> } {
  const defined = new Set<string>();
  const walk = (dir: URL): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(new URL(`${entry.name}/`, dir));
      else if (/\.tsx?$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name)) {
        const text = readFileSync(new URL(entry.name, dir), 'utf8');
        for (const [, name] of text.matchAll(
          /^export (?:declare )?(?:async )?(?:function\*?|const|let|class|interface|type) ([A-Za-z_$][\w$]*)/gm,
        ))
          defined.add(name as string);
      }
    }
  };
  walk(new URL('src/', root));
  const exported = new Set<string>();
  for (const file of Object.values(entryPoints)) {
    const text = read(file);
    for (const [, list = ''] of text.matchAll(/^export (?:type )?\{([^}]*)\}/gm))
      for (const item of list.split(',')) {
        const name = item
          .trim()
          .replace(/^type /, '')
          .split(/\s+as\s+/)
          .pop();
        if (name) exported.add(name);
      }
    for (const [, name] of text.matchAll(
      /^export (?:declare )?(?:async )?(?:function\*?|const|let|class|interface|type) ([A-Za-z_$][\w$]*)/gm,
    ))
      exported.add(name as string);
  }
  return { defined, exported };
}

describe('README and docs', () => {
  it('name no symbol of the source that the package does not export', () => {
    const { defined, exported } = sourceSymbols();
    const problems = pages.flatMap((page) =>
      [...prose(read(page)).matchAll(/`([A-Za-z_$][\w$]*)(?:\([^`]*\))?`/g)]
        .map((match) => match[1] as string)
        // API-looking names only (camelCase, PascalCase, CONSTANTS): a plain word such as
        // `preview` is more often a value than a symbol.
        .filter((name) => /[A-Z_]/.test(name) && defined.has(name) && !exported.has(name))
        .map((name) => `${page}: \`${name}\` is not exported by any entry point`),
    );
    expect([...new Set(problems)]).toEqual([]);
  });

  it('cite no internal references: requirement IDs, seed documents, spec sections, issue numbers', () => {
    const internal =
      /\b(?:(?:MSG|TOK|MOD|TRG|STR|SUM|HK|ST|RT|AG|CLI|WEB|EV)-\d+|seed \d{3}|SPEC\b|§\s?\d|issue \d+)/g;
    const problems = pages.flatMap((page) =>
      read(page)
        .split('\n')
        .flatMap((line, index) =>
          [...line.matchAll(internal)].map((match) => `${page}:${index + 1}: ${match[0]}`),
        ),
    );
    expect(problems).toEqual([]);
  });

  it('link only to files that exist (README links are absolute, the package does not ship docs/)', () => {
    const blob = 'https://github.com/chatfold/chatfold/blob/main/';
    const tree = 'https://github.com/chatfold/chatfold/tree/main/';
    const problems: string[] = [];
    for (const page of pages) {
      for (const [, target = ''] of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const path = target.split('#')[0] as string;
        let file: string | undefined;
        if (path.startsWith(blob)) file = path.slice(blob.length);
        else if (path.startsWith(tree)) file = path.slice(tree.length);
        else if (/^(https?:|mailto:)/.test(path) || path === '') continue;
        else if (page === 'README.md')
          problems.push(`README.md: relative link ${target} is missing from the package`);
        else file = relative(rootPath, join(rootPath, page, '..', path));
        if (file !== undefined) {
          try {
            readdirSync(new URL(file, root));
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR')
              problems.push(`${page}: ${target} → ${file} does not exist`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('docs/errors.md', () => {
  it('documents every error code chatfold throws', () => {
    const union =
      /export type ChatfoldErrorCode =([^;]*);/.exec(read('src/errors/chatfold-error.ts'))?.[1] ?? '';
    const codes = [...union.matchAll(/'(E_[A-Z_]+)'/g)].map((match) => match[1] as string);
    expect(codes.length).toBeGreaterThan(20);
    const page = read('docs/errors.md');
    expect(codes.filter((code) => !page.includes(`| \`${code}\` |`))).toEqual([]);
  });
});

/** The Anthropic SDK's list of models reaching end of life (it warns when one is used). */
function retiringAnthropicModels(): string[] {
  const sdk = readFileSync(
    new URL('node_modules/@anthropic-ai/sdk/resources/messages/messages.js', root),
    'utf8',
  );
  const table = /DEPRECATED_MODELS = \{([^}]*)\}/.exec(sdk)?.[1];
  if (table === undefined)
    throw new Error('@anthropic-ai/sdk no longer has DEPRECATED_MODELS: update this test');
  return [...table.matchAll(/'([^']+)':/g)].map((match) => match[1] as string);
}

describe('model ids in docs and defaults', () => {
  const inCode = pages.flatMap((page) =>
    [...read(page).matchAll(/^```[\s\S]*?^```/gm)].flatMap(([block]) =>
      [...block.matchAll(/\b((?:gpt|claude|gemini|o\d)-[a-z0-9.-]*[a-z0-9])\b/g)].map((match) => ({
        page,
        model: match[1] as string,
      })),
    ),
  );
  const defaults = (['claude-code', 'anthropic', 'gemini', 'openai'] as const).map((format) => ({
    page: `chatfold count/replay default for ${format}`,
    model: defaultModelFor(format),
  }));

  it('finds model ids to check', () => {
    expect(inCode.length).toBeGreaterThan(10);
  });

  it('are models the bundled registry knows (not a guess by prefix or the 8k default)', () => {
    const problems = [...inCode, ...defaults].flatMap(({ page, model }) => {
      const resolved = resolveModel(model);
      return resolved.source === 'registry' && resolved.matchedBy !== 'prefix'
        ? []
        : [`${page}: ${model} resolves by ${resolved.matchedBy ?? resolved.source}`];
    });
    expect([...new Set(problems)]).toEqual([]);
  });

  it('are not models the Anthropic SDK says are reaching end of life', () => {
    const retiring = new Set(retiringAnthropicModels());
    expect(retiring.size).toBeGreaterThan(0);
    const problems = [...inCode, ...defaults]
      .filter(({ model }) => retiring.has(model) || retiring.has(resolveModel(model).id))
      .map(({ page, model }) => `${page}: ${model}`);
    expect([...new Set(problems)]).toEqual([]);
  });
});
