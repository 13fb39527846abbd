/**
 * chatfold installs cleanly next to the AI SDK (issue 14 §4): `npm install chatfold ai@7
 * @ai-sdk/openai` in a fresh app resolves without ERESOLVE, `npm ls --all` exits 0 (ai-tokenizer's
 * peer `ai@^5` broke both; the repo's own `overrides` hid it), the AI SDK middleware type-checks
 * against ai 7, and counting works from the installed package with the counts of this checkout.
 *
 * Packs this checkout as it is, so it needs the build (`npm test` builds first). Slow (an npm
 * install); skipped, saying why, only when the npm registry cannot be reached.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fromOpenAI, type OpenAIMessage } from '../../src/messages/openai.ts';
import { countTokens } from '../../src/tokens/count-tokens.ts';
import { createTokenCounter } from '../../src/tokens/create-token-counter.ts';

const root = new URL('../..', import.meta.url).pathname;
const MINUTE = 60_000;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command; never rejects (the exit code is in the result). */
function run(command: string, args: readonly string[], cwd: string, timeout = 5 * MINUTE): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr: error !== null && stderr === '' ? String(error) : stderr });
    });
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'chatfold-install-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const conversation: OpenAIMessage[] = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Count me: naïve café, 数え方, and a long run ==========.' },
];

describe('npm install chatfold ai@7 @ai-sdk/openai (issue 14)', () => {
  it(
    'installs without peer conflicts, npm ls passes, the middleware type-checks and counting works',
    async (context) => {
      const ping = await run('npm', ['ping'], scratch, MINUTE);
      if (ping.code !== 0) context.skip(`the npm registry is unreachable (npm ping: ${ping.stderr.trim()})`);
      if (!existsSync(join(root, 'dist/index.js')))
        throw new Error('dist/ is missing: run `npm run build` first (npm test does)');

      const pack = await run(
        'npm',
        ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch],
        root,
      );
      expect(pack.code, pack.stderr).toBe(0);
      const tarball = join(scratch, (JSON.parse(pack.stdout) as { filename: string }[])[0]?.filename ?? '');

      const app = join(scratch, 'app');
      mkdirSync(app);
      writeFileSync(
        join(app, 'package.json'),
        JSON.stringify({ name: 'app', private: true, type: 'module' }),
      );
      const install = await run(
        'npm',
        ['install', '--no-audit', '--no-fund', tarball, 'ai@7', '@ai-sdk/openai'],
        app,
        10 * MINUTE,
      );
      expect(install.code, install.stderr).toBe(0);
      expect(install.stderr).not.toMatch(/ERESOLVE|peer dep/i);
      const ls = await run('npm', ['ls', '--all'], app);
      expect(ls.code, `${ls.stdout}\n${ls.stderr}`).toBe(0);
      expect(ls.stdout).not.toContain('ai-tokenizer');
      const ai = await run('node', ['-p', "require('ai/package.json').version"], app);
      expect(ai.stdout.trim()).toMatch(/^7\./);

      // The README's middleware use against ai 7's types (ai 5 gave 7 type errors here).
      writeFileSync(
        join(app, 'check.ts'),
        [
          "import { createOpenAI } from '@ai-sdk/openai';",
          "import { wrapLanguageModel } from 'ai';",
          "import { chatfoldMiddleware } from 'chatfold/ai-sdk';",
          "const openai = createOpenAI({ apiKey: 'key' });",
          "export const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: chatfoldMiddleware() });",
        ].join('\n'),
      );
      writeFileSync(
        join(app, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2024',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: [],
          },
          files: ['check.ts'],
        }),
      );
      const typecheck = await run(join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], app);
      expect(typecheck.code, typecheck.stdout).toBe(0);

      // Counting from the installed package: the CLI and the library, each encoding.
      writeFileSync(join(app, 'chat.json'), JSON.stringify(conversation));
      const messages = fromOpenAI(conversation);
      for (const model of ['gpt-4o', 'gpt-4', 'claude-sonnet-4-5']) {
        const count = await run(
          'npx',
          ['--no-install', 'chatfold', 'count', 'chat.json', '--model', model, '--json'],
          app,
        );
        expect(count.code, count.stderr).toBe(0);
        expect((JSON.parse(count.stdout) as { total: number }).total, model).toBe(
          countTokens(messages, { model }).total,
        );
      }
      const library = await run(
        'node',
        [
          '--input-type=module',
          '-e',
          "import { createTokenCounter } from 'chatfold'; console.log(createTokenCounter({ tokenizer: 'anthropic:claude' }).countText('x'.repeat(100000)));",
        ],
        app,
      );
      expect(library.code, library.stderr).toBe(0);
      expect(Number(library.stdout)).toBe(
        createTokenCounter({ tokenizer: 'anthropic:claude' }).countText('x'.repeat(100_000)),
      );
    },
    20 * MINUTE,
  );
});
