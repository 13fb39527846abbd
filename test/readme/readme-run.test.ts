/**
 * Every ```ts block of the README and of docs/*.md runs (issue 20), not only type-checks: each
 * block is written to its own module and run by Node (it strips the types) in a scratch folder,
 * with `chatfold` and `chatfold/*` pointing at the sources, against chatfold's fake provider —
 * the OpenAI and Anthropic SDKs read `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` — so nothing
 * reaches a real provider. It must exit 0 on its own: an example that leaves a queue or a pool
 * open fails here. Blocks that need a PostgreSQL server run where `DATABASE_URL` is set.
 *
 * The names readme-code.test.ts lets a block use without declaring them (`openai`, `messages`,
 * `tools`, …) are given real values on `globalThis` before the block runs.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { sourceEntryPoints } from '../../scripts/subpaths.ts';
import { type FakeProviderServer, startFakeProvider } from '../../src/fake-provider/index.ts';
import { allTypescriptBlocks, type CodeBlock, root } from './markdown-blocks.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const sources = Object.fromEntries(
  Object.entries(sourceEntryPoints(new URL('../../', import.meta.url))).map(([name, file]) => [
    name,
    new URL(file, `file://${root}/`).href,
  ]),
);

/** What the surrounding prose says the reader already has, as values (see README_CONTEXT). */
const PRELUDE = `
import __OpenAI from 'openai';
import { toOpenAI as __toOpenAI } from '${sources.chatfold}';
import { buildConversation as __buildConversation } from '${sources['chatfold/test']}';
import { createChatfold as __createChatfold, memoryStore as __memoryStore } from '${sources.chatfold}';
const __context = globalThis as Record<string, unknown>;
__context.openai = new __OpenAI();
__context.messages = __buildConversation()
  .system('You are terse.')
  .user('Read the config')
  .toolRound([{ name: 'read_file', args: { path: 'config.json' }, result: '{"port": 5432}' }])
  .assistant('The port is 5432.')
  .user('And the host?')
  .build();
__context.storedMessages = __toOpenAI(__context.messages as never);
__context.tools = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];
__context.session = await __createChatfold({ model: 'gpt-4o-mini', store: __memoryStore() }).session('reader');
await (__context.session as { append(messages: unknown): Promise<unknown> }).append(__context.messages);
__context.apiKey = 'fake-key';
__context.log = () => {};
__context.modelFolder = '${root}/test/fixtures/hf-tokenizer/qwen3-mini';
__context.connectionString = process.env.DATABASE_URL;
if (process.env.DATABASE_URL !== undefined) {
  const { default: __pg } = await import('pg');
  __context.pool = new __pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2, allowExitOnIdle: true });
}
`;

/** The block with `chatfold` imports pointing at the sources. */
const rewrite = (code: string) =>
  code.replace(/from '(chatfold(?:\/[\w-]+)?)'/g, (whole, name: string) =>
    sources[name] === undefined ? whole : `from '${sources[name]}'`,
  );

/** Why a block cannot run here, if it cannot. */
function needs(block: CodeBlock): string | undefined {
  if (block.flags.includes('norun')) return 'marked norun in the page (type-checked, not run)';
  if (
    DATABASE_URL === undefined &&
    /\b(pool|connectionString)\b/.test(block.code.replace(/connectionString:/g, ''))
  )
    return 'needs a PostgreSQL server: set DATABASE_URL';
  return undefined;
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let server: FakeProviderServer;
let scratch: string;
beforeAll(async () => {
  server = await startFakeProvider();
  scratch = mkdtempSync(join(tmpdir(), 'chatfold-readme-run-'));
  // Bare imports in the blocks (`openai`, `ai`, …) resolve from the scratch folder.
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
});
afterAll(async () => {
  await server?.close();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

function run(block: CodeBlock): Promise<Run> {
  const folder = mkdtempSync(join(scratch, 'block-'));
  symlinkSync(join(scratch, 'node_modules'), join(folder, 'node_modules'));
  const file = join(folder, 'block.mts');
  // The prelude's imports are hoisted like the block's own; the block's lines keep their numbers
  // after a fixed offset, so a stack trace can be mapped back.
  writeFileSync(file, `${PRELUDE}\n${rewrite(block.code)}\nexport {};\n`);
  const env = {
    ...process.env,
    OPENAI_API_KEY: 'fake-key',
    OPENAI_BASE_URL: `${server.url}/v1`,
    ANTHROPIC_API_KEY: 'fake-key',
    ANTHROPIC_BASE_URL: server.url,
    NODE_NO_WARNINGS: '1',
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [file],
      { cwd: folder, env, timeout: 60_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : null,
          stdout,
          stderr,
        });
      },
    );
  });
}

// Each block is its own process in its own folder: they run side by side (Vitest's maxConcurrency).
describe.concurrent('README and docs examples run', () => {
  const blocks = allTypescriptBlocks();

  it('finds the blocks', ({ expect }) => {
    expect(blocks.length).toBeGreaterThanOrEqual(20);
  });

  for (const block of blocks) {
    it(`${block.source}:${block.line}`, async ({ expect, skip }) => {
      const reason = needs(block);
      if (reason !== undefined) skip(reason);
      const result = await run(block);
      // A block that hangs is killed at 60 s (code null): an example that never exits.
      expect({ exit: result.code, stderr: result.stderr.slice(0, 4000) }).toEqual({ exit: 0, stderr: '' });
    }, 90_000);
  }

  it('the ten-line example prints what the README says it prints', async ({ expect }) => {
    const readme = blocks.filter((block) => block.source === 'README.md');
    const tenLines = readme.find((block) => block.code.includes('compact(fromOpenAI(history)'));
    expect(tenLines).toBeDefined();
    const claim = /It prints `([^`]+)`/.exec(readFileSync(join(root, 'README.md'), 'utf8'))?.[1];
    expect(claim).toBeDefined();
    const result = await run(tenLines as CodeBlock);
    expect(result.stdout.trim()).toBe(claim);
  }, 90_000);
});
