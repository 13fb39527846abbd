import { type ChildProcess, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentToolOutput } from '../../src/agent/types.ts';
import { openWorkspaceRoot } from '../../src/agent/workspace/workspace-root.ts';
import { workspaceTools } from '../../src/agent/workspace/workspace-tools.ts';
import { callTool } from './call-tool.ts';

// Issue 24, part 1: with another process swapping a file and a folder of the workspace for
// symbolic links that lead outside it, in a tight loop, the workspace tools read, write, edit,
// list and search thousands of times; nothing outside the root is ever read, written or listed.

/** Rounds of the five tools (each round is 8 calls). */
const ROUNDS = 1500;

let base: string;
let root: string;
let outside: string;
let swapper: ChildProcess;

/** Every file outside the root with its content and modification time, and every name. */
function snapshotOutside(): Record<string, { content: string; mtimeMs: number } | 'folder'> {
  const seen: Record<string, { content: string; mtimeMs: number } | 'folder'> = {};
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const absolute = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        seen[absolute] = 'folder';
        walk(absolute);
      } else {
        seen[absolute] = { content: readFileSync(absolute, 'utf8'), mtimeMs: statSync(absolute).mtimeMs };
      }
    }
  };
  walk(outside);
  return seen;
}

beforeAll(async () => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'chatfold-race-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  mkdirSync(path.join(root, 'dir'), { recursive: true });
  mkdirSync(path.join(outside, 'dir'), { recursive: true });
  writeFileSync(path.join(root, 'file.txt'), 'INSIDE\n');
  writeFileSync(path.join(root, 'dir', 'inner.txt'), 'INSIDE DIR\n');
  // Sentinels: the same names as inside, content the tools must never show or change.
  writeFileSync(path.join(outside, 'secret.txt'), 'SENTINEL secret outside\n');
  writeFileSync(path.join(outside, 'dir', 'inner.txt'), 'SENTINEL inner outside\n');
  writeFileSync(path.join(outside, 'dir', 'outside-only-name.txt'), 'SENTINEL listed outside\n');
  swapper = spawn(process.execPath, [path.join(import.meta.dirname, 'symlink-swapper.ts'), root, outside], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: swapper.stdout as NodeJS.ReadableStream });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
});

afterAll(() => {
  swapper.kill('SIGKILL');
  rmSync(base, { recursive: true, force: true });
});

describe('workspace tools against a concurrent symlink swapper (issue 24)', () => {
  it('never read, write, edit or list anything outside the root', { timeout: 300_000 }, async () => {
    const before = snapshotOutside();
    const workspace = await openWorkspaceRoot(root);
    const tools = workspaceTools(workspace);
    const call = (name: string, input: unknown): Promise<AgentToolOutput> => callTool(tools, name, input);
    const tally = { ok: 0, refused: new Map<string, number>() };
    const check = (result: AgentToolOutput): void => {
      // Nothing from outside is shown, and no host path either.
      expect(result.output).not.toContain('SENTINEL');
      expect(result.output).not.toContain('outside-only-name');
      if (result.isError === true) {
        expect(result.output).not.toContain(base);
        const reason = /\(E_WORKSPACE_PATH: ([a-z-]+)\)$/.exec(result.output)?.[1];
        // Every failure under the race is a typed refusal, or edit_file's own "not found".
        if (reason === undefined) expect(result.output).toMatch(/^Error: old_string was not found/);
        else tally.refused.set(reason, (tally.refused.get(reason) ?? 0) + 1);
      } else tally.ok++;
    };
    for (let round = 0; round < ROUNDS; round++) {
      check(await call('read_file', { path: 'file.txt' }));
      check(await call('read_file', { path: 'dir/inner.txt' }));
      check(await call('write_file', { path: 'file.txt', content: `INSIDE\nround ${round}\n` }));
      check(await call('write_file', { path: 'dir/inner.txt', content: 'INSIDE DIR\n' }));
      // Outside, this text occurs once: an edit that escaped would change the sentinel.
      check(
        await call('edit_file', { path: 'dir/inner.txt', old_string: 'SENTINEL inner', new_string: 'PWNED' }),
      );
      check(await call('edit_file', { path: 'file.txt', old_string: 'INSIDE', new_string: 'INSIDE' }));
      check(await call('list_directory', { path: round % 2 === 0 ? 'dir' : '.', recursive: true }));
      check(await call('search', { pattern: 'SENT[I]NEL|INSIDE', path: round % 2 === 0 ? '.' : 'dir' }));
    }
    expect(swapper.exitCode).toBeNull();
    const swaps = await new Promise<number>((resolve) => {
      let text = '';
      swapper.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      swapper.once('exit', () => resolve(Number(text.trim().split('\n').at(-1))));
      swapper.kill('SIGTERM');
    });
    expect(snapshotOutside()).toEqual(before);
    // The race really ran: the swapper swapped, calls were refused for leading outside, and
    // others went through (a test that only ever saw refusals would prove nothing).
    expect(swaps).toBeGreaterThan(100);
    expect(tally.refused.get('outside-root') ?? 0).toBeGreaterThan(0);
    expect(tally.ok).toBeGreaterThan(0);
  });
});
