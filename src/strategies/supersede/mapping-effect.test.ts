import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../messages/types.ts';
import { canonicalJson, effectFromMapping } from './mapping-effect.ts';
import { DEFAULT_TOOL_MAPPINGS } from './tool-mappings.ts';

const effectOf = (name: string, args: Record<string, JsonValue>, output = '', cwd?: string) => {
  const mapping = DEFAULT_TOOL_MAPPINGS[name];
  if (mapping === undefined) throw new Error(`no mapping for ${name}`);
  return effectFromMapping(mapping, { name, args, output, cwd });
};

// Argument shapes as each agent sends them: Claude Code from the recorded sessions, SWE-agent
// from its trajectory, the text editor from Anthropic's tool documentation, Cline / opencode /
// gemini-cli / Codex from their tool schemas.
describe('built-in tool mappings (STR-1)', () => {
  const cwd = '/home/USER/projects/spotter-worktrees/spotter-dov';

  it('Claude Code: Read full and partial, Write, Edit, MultiEdit, Glob, LS, Bash', () => {
    expect(effectOf('Read', { file_path: `${cwd}/lib/spotter_web/live/session_live.ex` }, '', cwd)).toEqual({
      kind: 'read',
      path: 'lib/spotter_web/live/session_live.ex',
    });
    expect(effectOf('Read', { file_path: `${cwd}/a.ex`, offset: 260, limit: 60 }, '', cwd)).toEqual({
      kind: 'read',
      path: 'a.ex',
      range: 'offset=260 limit=60',
    });
    expect(effectOf('Write', { file_path: '/repo/a.ex', content: 'x' })).toEqual({
      kind: 'write',
      path: '/repo/a.ex',
    });
    expect(
      effectOf('Edit', { file_path: '/repo/a.ex', old_string: 'a', new_string: 'b', replace_all: true }),
    ).toEqual({ kind: 'edit', path: '/repo/a.ex' });
    expect(effectOf('MultiEdit', { file_path: '/repo/a.ex', edits: [] })).toEqual({
      kind: 'edit',
      path: '/repo/a.ex',
    });
    expect(effectOf('Glob', { pattern: 'priv/repo/migrations/*.exs' })).toEqual({
      kind: 'list',
      path: '.',
      shows: ['hidden', 'recursive'],
      filter: 'pattern="priv/repo/migrations/*.exs"',
    });
    expect(effectOf('LS', { path: '/repo/lib' })).toEqual({
      kind: 'list',
      path: '/repo/lib',
      shows: ['recursive', 'types'],
      filter: 'LS',
    });
    expect(effectOf('Bash', { command: 'git status', description: 'Check git status' })).toEqual({
      kind: 'shell',
      command: 'git status',
    });
  });

  it('the text editor (SWE-agent / OpenHands str_replace_editor): by sub-command', () => {
    const view = { command: 'view', path: '/testbed/src/marshmallow/fields.py' };
    expect(effectOf('str_replace_editor', view)).toEqual({
      kind: 'read',
      path: '/testbed/src/marshmallow/fields.py',
    });
    expect(effectOf('str_replace_editor', { ...view, view_range: [1460, 1480] })).toEqual({
      kind: 'read',
      path: '/testbed/src/marshmallow/fields.py',
      range: 'view_range=[1460,1480]',
    });
    expect(
      effectOf('str_replace_editor', { command: 'create', path: '/testbed/r.py', file_text: 'x' }),
    ).toEqual({
      kind: 'write',
      path: '/testbed/r.py',
    });
    expect(
      effectOf('str_replace_based_edit_tool', {
        command: 'str_replace',
        path: 'primes.py',
        old_str: 'a',
        new_str: 'b',
      }),
    ).toEqual({ kind: 'edit', path: 'primes.py' });
    expect(
      effectOf('str_replace_editor', { command: 'insert', path: 'a.py', insert_line: 3, new_str: 'x' }),
    ).toEqual({
      kind: 'edit',
      path: 'a.py',
    });
    expect(effectOf('str_replace_editor', { command: 'undo_edit', path: 'a.py' })).toEqual({
      kind: 'edit',
      path: 'a.py',
      fullContent: true,
    });
    expect(effectOf('str_replace_editor', { command: 'frobnicate', path: 'a.py' })).toBeUndefined();
  });

  it('SWE-agent windowed tools: open with a line number is partial; edit/insert name no file', () => {
    expect(effectOf('open', { path: 'setup.py' })).toEqual({ kind: 'read', path: 'setup.py' });
    expect(effectOf('open', { path: 'src/marshmallow/fields.py', line_number: 1474 })).toEqual({
      kind: 'read',
      path: 'src/marshmallow/fields.py',
      range: 'line_number=1474',
    });
    expect(effectOf('create', { filename: 'reproduce.py' })).toEqual({ kind: 'write', path: 'reproduce.py' });
    expect(effectOf('edit', { search: 'a', replace: 'b' })).toBeUndefined();
  });

  it('Cline: replace_in_file holds the whole file only when it returns <final_file_content>', () => {
    const args = { path: 'src/a.ts', diff: '------- SEARCH\na\n=======\nb\n+++++++ REPLACE' };
    expect(effectOf('replace_in_file', args, 'The content was successfully saved to src/a.ts.')).toEqual({
      kind: 'edit',
      path: 'src/a.ts',
    });
    expect(
      effectOf('replace_in_file', args, '<final_file_content path="src/a.ts">\nb\n</final_file_content>'),
    ).toEqual({ kind: 'edit', path: 'src/a.ts', fullContent: true });
    expect(effectOf('list_files', { path: 'src', recursive: 'true' })).toEqual({
      kind: 'list',
      path: 'src',
      shows: ['recursive', 'types'],
      filter: 'list_files',
    });
    expect(effectOf('read_file', { path: 'src/a.ts' })).toEqual({ kind: 'read', path: 'src/a.ts' });
    expect(effectOf('execute_command', { command: 'ls', requires_approval: false })).toMatchObject({
      kind: 'shell',
    });
  });

  it('opencode, gemini-cli and Codex', () => {
    expect(effectOf('read', { filePath: '/repo/a.ts', offset: 10, limit: 20 })).toEqual({
      kind: 'read',
      path: '/repo/a.ts',
      range: 'offset=10 limit=20',
    });
    expect(effectOf('edit', { filePath: '/repo/a.ts', oldString: 'a', newString: 'b' })).toEqual({
      kind: 'edit',
      path: '/repo/a.ts',
    });
    expect(effectOf('read_file', { absolute_path: '/repo/a.ts', offset: 0, limit: 50 })).toMatchObject({
      range: 'offset=0 limit=50',
    });
    expect(effectOf('run_shell_command', { command: 'ls', directory: 'src' })).toEqual({
      kind: 'shell',
      command: 'ls',
      directory: 'src',
    });
    expect(effectOf('shell', { command: ['bash', '-lc', 'cat src/a.ts'], workdir: '/repo' })).toEqual({
      kind: 'shell',
      command: 'cat src/a.ts',
      directory: '/repo',
    });
    expect(effectOf('shell', { command: ['cat', 'my file.txt'] })).toEqual({
      kind: 'shell',
      command: "cat 'my file.txt'",
    });
  });

  it('needs a path: a call without one has no effect', () => {
    expect(effectOf('Read', {})).toBeUndefined();
    expect(effectOf('Write', { file_path: '  ' })).toBeUndefined();
  });

  it('canonical JSON ignores key order', () => {
    expect(canonicalJson({ path: 'src', pattern: 'TODO' })).toBe(
      canonicalJson({ pattern: 'TODO', path: 'src' }),
    );
    expect(canonicalJson({ a: [1, { c: 2, b: 1 }] })).toBe('{"a":[1,{"b":1,"c":2}]}');
  });
});
