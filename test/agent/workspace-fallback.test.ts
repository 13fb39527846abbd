import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentTool, AgentToolOutput } from '../../src/agent/types.ts';
import { callTool } from './call-tool.ts';

// Issue 24: the workspace tools where `/proc/self/fd` does not exist (macOS, Windows). The
// checks fall back to comparing the opened file with its real path; this runs the tools'
// ordinary behaviour and their refusals on that path (on Linux, by hiding /proc/self/fd).
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return { ...fs, existsSync: (target: string) => target !== '/proc/self/fd' && fs.existsSync(target) };
});

const { HAS_DESCRIPTOR_PATHS } = await import('../../src/agent/workspace/open-inside.ts');
const { openWorkspaceRoot } = await import('../../src/agent/workspace/workspace-root.ts');
const { workspaceTools } = await import('../../src/agent/workspace/workspace-tools.ts');

let base: string;
let root: string;
let tools: Record<string, AgentTool<unknown>>;

const call = (name: string, input: unknown): Promise<AgentToolOutput> => callTool(tools, name, input);

beforeEach(async () => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'chatfold-fallback-')));
  root = path.join(base, 'root');
  mkdirSync(path.join(root, 'src'), { recursive: true });
  mkdirSync(path.join(base, 'outside'));
  writeFileSync(path.join(base, 'outside', 'secret.txt'), 'SENTINEL\n');
  writeFileSync(path.join(root, 'notes.md'), 'hello teh world\n');
  writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  symlinkSync(path.join(base, 'outside'), path.join(root, 'dir-out'));
  symlinkSync(path.join(base, 'outside', 'secret.txt'), path.join(root, 'link-out'));
  tools = workspaceTools(await openWorkspaceRoot(root));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('workspace tools without /proc/self/fd (issue 24)', () => {
  it('runs on the fallback', () => {
    expect(HAS_DESCRIPTOR_PATHS).toBe(false);
  });

  it('reads, writes into new folders, edits, lists and searches', async () => {
    expect((await call('read_file', { path: 'notes.md' })).output).toBe('hello teh world\n');
    expect((await call('write_file', { path: 'new/deep/c.txt', content: 'one\n' })).output).toBe(
      'Created new/deep/c.txt (1 lines, 4 bytes)',
    );
    expect(readFileSync(path.join(root, 'new', 'deep', 'c.txt'), 'utf8')).toBe('one\n');
    expect(
      (await call('edit_file', { path: 'notes.md', old_string: 'teh', new_string: 'the' })).isError,
    ).toBe(undefined);
    expect(readFileSync(path.join(root, 'notes.md'), 'utf8')).toBe('hello the world\n');
    expect((await call('list_directory', { path: 'src' })).output).toBe('src/: 1 entry\na.ts  (20 bytes)');
    expect((await call('search', { pattern: 'export', path: 'src' })).output).toBe(
      '1 match for /export/\nsrc/a.ts:1: export const a = 1;',
    );
  });

  it('refuses links out for every tool, and walks do not enter them', async () => {
    for (const [name, input] of [
      ['read_file', { path: 'link-out' }],
      ['write_file', { path: 'dir-out/pwned.txt', content: 'x' }],
      ['write_file', { path: 'link-out', content: 'x' }],
      ['edit_file', { path: 'link-out', old_string: 'SENTINEL', new_string: 'x' }],
      ['list_directory', { path: 'dir-out' }],
      ['search', { pattern: 'SENT[I]NEL', path: 'dir-out' }],
    ] as const) {
      const result = await call(name, input);
      expect(result.output).toMatch(/\(E_WORKSPACE_PATH: outside-root\)$/);
    }
    expect((await call('search', { pattern: 'SENT[I]NEL' })).output).toBe('0 matches for /SENT[I]NEL/');
    expect(readFileSync(path.join(base, 'outside', 'secret.txt'), 'utf8')).toBe('SENTINEL\n');
  });
});
