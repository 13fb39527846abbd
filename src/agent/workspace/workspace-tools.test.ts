import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import type { AgentTool, AgentToolOutput } from '../types.ts';
import { openWorkspaceRoot, type WorkspaceRoot } from './workspace-root.ts';
import { workspaceTools } from './workspace-tools.ts';

let base: string;
let root: string;
let outside: string;
let workspace: WorkspaceRoot;
let tools: Record<string, AgentTool<unknown>>;

const signal = new AbortController().signal;
async function call(name: string, input: unknown): Promise<AgentToolOutput> {
  const tool = tools[name] as AgentTool<unknown>;
  try {
    const result = await tool.execute(input, { signal, callId: 'call_1' });
    return typeof result === 'string' ? { output: result } : result;
  } catch (error) {
    // The run loop turns a thrown error into an error result; tests see the same thing.
    return { output: `Error: ${(error as Error).message}`, isError: true };
  }
}

beforeEach(async () => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'chatfold-ws-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  mkdirSync(path.join(root, 'src', 'deep'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET\n');
  writeFileSync(path.join(root, 'notes.md'), 'hello teh world\nline two\nteh end\n');
  writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(path.join(root, 'src', 'deep', 'b.ts'), 'export const b = 2;\n// TODO: more\n');
  writeFileSync(path.join(root, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
  workspace = await openWorkspaceRoot(root);
  tools = workspaceTools(workspace);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('workspace root (AG-2)', () => {
  it('refuses "..", absolute paths and home paths with E_WORKSPACE_PATH', async () => {
    for (const bad of [
      '../outside/secret.txt',
      'src/../../outside/secret.txt',
      '/etc/passwd',
      '~/x',
      'C:\\x',
    ]) {
      await expect(workspace.resolve(bad)).rejects.toSatisfy((error) =>
        ChatfoldError.hasCode(error, 'E_WORKSPACE_PATH'),
      );
    }
  });

  it('refuses a symlink that leads outside, also a dangling one and one in a parent folder', async () => {
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-out'));
    symlinkSync(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling-out'));
    symlinkSync(outside, path.join(root, 'dir-out'));
    for (const bad of ['link-out', 'dangling-out', 'dir-out/secret.txt', 'dir-out/new.txt']) {
      await expect(workspace.resolve(bad)).rejects.toThrow(/symbolic link leads outside/);
    }
  });

  it('follows a symlink that stays inside', async () => {
    symlinkSync(path.join(root, 'notes.md'), path.join(root, 'link-in'));
    const resolved = await workspace.resolve('link-in');
    expect(resolved).toMatchObject({ relative: 'link-in', real: path.join(root, 'notes.md'), exists: true });
  });

  it('any path with a ".." segment or a leading "/" is refused; any other resolves inside the root (property)', async () => {
    const segment = fc.constantFrom('a', 'b', '.', '..', 'src', 'deep', 'notes.md', '', ' x');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), async (segments) => {
        const requested = segments.join('/');
        const result = await workspace.resolve(requested).then(
          (resolved) => resolved,
          (error: unknown) => error,
        );
        if (segments.includes('..') || requested.startsWith('/')) {
          expect(ChatfoldError.hasCode(result, 'E_WORKSPACE_PATH')).toBe(true);
        } else {
          const { real } = result as { real: string };
          expect(real === root || real.startsWith(root + path.sep)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('fails at construction on a missing folder', async () => {
    await expect(openWorkspaceRoot(path.join(base, 'nope'))).rejects.toThrow(/not an existing folder/);
  });
});

describe('read_file', () => {
  it('returns the exact content, or a line range', async () => {
    expect(await call('read_file', { path: 'notes.md' })).toEqual({
      output: 'hello teh world\nline two\nteh end\n',
      truncated: false,
    });
    expect((await call('read_file', { path: 'notes.md', offset: 2, limit: 1 })).output).toBe('line two');
  });

  it('an escaping path is an error result the model sees, not a crash', async () => {
    const result = await call('read_file', { path: '../outside/secret.txt' });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^Error: path "..\/outside\/secret.txt" refused/);
    expect(result.output).not.toContain('TOP SECRET');
  });

  it('caps a long file with a note saying what was cut (a note supersede recognises)', async () => {
    writeFileSync(path.join(root, 'big.txt'), 'x'.repeat(10_000));
    const small = workspaceTools(workspace, { limits: { readChars: 1000 } });
    const result = (await (small.read_file as AgentTool<unknown>).execute(
      { path: 'big.txt' },
      { signal, callId: 'c' },
    )) as AgentToolOutput;
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBeLessThan(1200);
    expect(result.output).toMatch(
      /\n\[Output truncated: showing the first 1,000 characters of a 10,000-byte file; read the rest with offset and limit\]$/,
    );
  });

  it('refuses binary files and folders', async () => {
    expect((await call('read_file', { path: 'image.png' })).output).toMatch(/binary file/);
    expect((await call('read_file', { path: 'src' })).output).toMatch(/is a directory; use list_directory/);
    expect((await call('read_file', { path: 'missing.md' })).output).toMatch(/does not exist/);
  });
});

describe('write_file and edit_file', () => {
  it('a write replaces the file in place: its mode is kept, a link inside is written through and stays a link', async () => {
    const script = path.join(root, 'run.sh');
    writeFileSync(script, '#!/bin/sh\necho teh\n', { mode: 0o755 });
    await call('edit_file', { path: 'run.sh', old_string: 'teh', new_string: 'the' });
    expect(statSync(script).mode & 0o777).toBe(0o755);
    expect(readFileSync(script, 'utf8')).toBe('#!/bin/sh\necho the\n');
    symlinkSync('notes.md', path.join(root, 'link-in'));
    expect((await call('write_file', { path: 'link-in', content: 'via link\n' })).output).toBe(
      'Overwrote notes.md (1 lines, 9 bytes)',
    );
    expect(lstatSync(path.join(root, 'link-in')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(root, 'notes.md'), 'utf8')).toBe('via link\n');
    // No temporary file is left behind.
    expect(readdirSync(root).filter((name) => name.startsWith('.chatfold-'))).toEqual([]);
  });

  it('write_file creates folders inside the root and never writes outside', async () => {
    expect((await call('write_file', { path: 'new/dir/c.txt', content: 'one\ntwo\n' })).output).toBe(
      'Created new/dir/c.txt (2 lines, 8 bytes)',
    );
    expect(readFileSync(path.join(root, 'new', 'dir', 'c.txt'), 'utf8')).toBe('one\ntwo\n');
    symlinkSync(outside, path.join(root, 'dir-out'));
    const refused = await call('write_file', { path: 'dir-out/pwned.txt', content: 'x' });
    expect(refused.isError).toBe(true);
    expect(() => readFileSync(path.join(outside, 'pwned.txt'))).toThrow();
  });

  it('edit_file replaces one exact occurrence and shows the changed lines', async () => {
    const result = await call('edit_file', {
      path: 'notes.md',
      old_string: 'hello teh',
      new_string: 'hello the',
    });
    expect(result.isError).toBeUndefined();
    expect(result.output).toContain('Edited notes.md: replaced 1 occurrence (lines 1-1 now read):');
    expect(result.output).toContain('1  hello the world');
    expect(readFileSync(path.join(root, 'notes.md'), 'utf8')).toBe('hello the world\nline two\nteh end\n');
  });

  it('edit_file fails when the text is absent or not unique, and leaves the file alone', async () => {
    const twice = await call('edit_file', { path: 'notes.md', old_string: 'teh', new_string: 'the' });
    expect(twice).toMatchObject({ isError: true });
    expect(twice.output).toMatch(/occurs 2 times in notes.md/);
    const absent = await call('edit_file', { path: 'notes.md', old_string: 'nowhere', new_string: 'x' });
    expect(absent.output).toMatch(/was not found in notes.md/);
    expect(readFileSync(path.join(root, 'notes.md'), 'utf8')).toBe('hello teh world\nline two\nteh end\n');
  });
});

describe('list_directory and search', () => {
  it('lists with types and sizes, recursively with a glob filter', async () => {
    const top = (await call('list_directory', {})).output;
    expect(top.split('\n')).toEqual([
      'workspace root: 3 entries',
      'image.png  (8 bytes)',
      'notes.md  (33 bytes)',
      'src/',
    ]);
    const ts = (await call('list_directory', { path: 'src', pattern: '**/*.ts', recursive: true })).output;
    expect(ts.split('\n')).toEqual([
      'src/: 2 entries matching **/*.ts',
      'a.ts  (20 bytes)',
      'deep/b.ts  (34 bytes)',
    ]);
  });

  it('caps a long listing with a note', async () => {
    for (let i = 0; i < 30; i++) writeFileSync(path.join(root, `f${String(i).padStart(2, '0')}.txt`), '');
    const small = workspaceTools(workspace, { limits: { listEntries: 10 } });
    const result = (await (small.list_directory as AgentTool<unknown>).execute(
      {},
      { signal, callId: 'c' },
    )) as AgentToolOutput;
    expect(result.truncated).toBe(true);
    expect(result.output).toMatch(/\[Output truncated: showing 10 of 33 entries/);
  });

  it('searches line by line with path:line output, bounded, skipping binary files', async () => {
    const result = (await call('search', { pattern: 'export const [ab]' })).output;
    expect(result.split('\n')).toEqual([
      '2 matches for /export const [ab]/',
      'src/a.ts:1: export const a = 1;',
      'src/deep/b.ts:1: export const b = 2;',
    ]);
    expect((await call('search', { pattern: 'todo', ignoreCase: true, glob: '**/*.ts' })).output).toContain(
      'src/deep/b.ts:2: // TODO: more',
    );
    expect((await call('search', { pattern: '(' })).output).toMatch(/not a valid regular expression/);
    const escaped = await call('search', { pattern: 'SECRET', path: '../outside' });
    expect(escaped.isError).toBe(true);
  });
});
