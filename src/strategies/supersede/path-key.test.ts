import { describe, expect, it } from 'vitest';
import { joinPath, normalizePath } from './path-key.ts';

describe('normalizePath (STR-1 path keys)', () => {
  it('gives ./a, a, a//b/ and a/./b/../b one key each', () => {
    expect(normalizePath('./src/a.ts')).toBe('src/a.ts');
    expect(normalizePath('src//a.ts')).toBe('src/a.ts');
    expect(normalizePath('src/./lib/../a.ts')).toBe('src/a.ts');
    expect(normalizePath('src/')).toBe('src');
    expect(normalizePath('./')).toBe('.');
  });

  it('makes absolute paths inside cwd relative, and leaves other absolute paths absolute', () => {
    const cwd = '/home/USER/projects/spotter-worktrees/spotter-gqc';
    expect(normalizePath(`${cwd}/lib/spotter/transcripts.ex`, cwd)).toBe('lib/spotter/transcripts.ex');
    expect(normalizePath('lib/spotter/transcripts.ex', cwd)).toBe('lib/spotter/transcripts.ex');
    expect(normalizePath(cwd, `${cwd}/`)).toBe('.');
    expect(normalizePath('/tmp/claude-1000/tasks/bd0afab.output', cwd)).toBe(
      '/tmp/claude-1000/tasks/bd0afab.output',
    );
    // a sibling directory that shares the prefix is not inside
    expect(normalizePath(`${cwd}-other/a.ex`, cwd)).toBe(`${cwd}-other/a.ex`);
  });

  it('keeps relative and absolute distinct when cwd is unknown, and refuses to guess ~ and $VAR', () => {
    expect(normalizePath('/testbed/setup.py')).toBe('/testbed/setup.py');
    expect(normalizePath('setup.py')).toBe('setup.py');
    expect(normalizePath('~/notes.md')).toBeUndefined();
    expect(normalizePath('$HOME/notes.md')).toBeUndefined();
    expect(normalizePath('   ')).toBeUndefined();
  });

  it('keeps .. above a relative start and drops it at the root; reads Windows drive paths', () => {
    expect(normalizePath('../other/a.ts')).toBe('../other/a.ts');
    expect(normalizePath('/../etc/hosts')).toBe('/etc/hosts');
    expect(normalizePath('C:\\repo\\src\\a.ts', 'C:\\repo')).toBe('src/a.ts');
  });

  it('joins a relative path onto a directory key', () => {
    expect(joinPath('src', 'a.ts')).toBe('src/a.ts');
    expect(joinPath('.', './a.ts')).toBe('a.ts');
    expect(joinPath('/testbed', '../x')).toBe('/x');
    expect(joinPath('src', '/abs/a.ts')).toBe('/abs/a.ts');
  });
});
