import { describe, expect, it } from 'vitest';
import { parseShellCommand } from './shell-command.ts';

const effect = (command: string, directory?: string) =>
  parseShellCommand(command, directory === undefined ? {} : { directory }).effect;

// Commands below are from the recorded sessions (Claude Code Bash, SWE-agent bash) or their
// direct variants.
describe('parseShellCommand (STR-1 shell reads and listings)', () => {
  it('reads cat FILE as a whole-file read, quotes and escapes as a shell does', () => {
    expect(effect('cat src/app.py')).toEqual({ kind: 'read', path: 'src/app.py' });
    expect(effect('cat -n "my file.py"')).toEqual({ kind: 'read', path: 'my file.py' });
    expect(effect("cat 'a b'/c.py")).toEqual({ kind: 'read', path: 'a b/c.py' });
    expect(effect('cat a.py b.py')).toBeUndefined();
    expect(effect('cat -A a.py')).toBeUndefined();
  });

  it('reads head, tail and sed -n as partial reads, the same lines spelled the same way', () => {
    const output = '/tmp/claude-1000/-home-USER-projects-spotter-worktrees-spotter-gqc/tasks/bd0afab.output';
    expect(effect(`tail -30 ${output}`)).toEqual({ kind: 'read', path: output, range: 'last 30 lines' });
    expect(effect(`tail -n 30 ${output}`)).toEqual(effect(`tail -30 ${output}`));
    expect(effect('tail -n +5 a.log')).toEqual({ kind: 'read', path: 'a.log', range: 'lines 5-$' });
    expect(effect('head -20 a.py')).toEqual({ kind: 'read', path: 'a.py', range: 'lines 1-20' });
    expect(effect('sed -n 1,20p a.py')).toEqual(effect('head -n20 a.py'));
    expect(effect("sed -n '7p' a.py")).toEqual({ kind: 'read', path: 'a.py', range: 'lines 7-7' });
    expect(effect('head a.py')).toEqual({ kind: 'read', path: 'a.py', range: 'lines 1-10' });
    expect(effect('head -c 100 a.bin')).toEqual({ kind: 'read', path: 'a.bin', range: 'first 100 bytes' });
    expect(effect('tail -f server.log')).toBeUndefined();
    expect(effect('sed -i s/a/b/ a.py')).toBeUndefined();
  });

  it('reads ls and find as listings with what they show', () => {
    expect(effect('ls -F')).toEqual({ kind: 'list', path: '.', shows: ['types'] });
    expect(effect('ls -la src/')).toEqual({
      kind: 'list',
      path: 'src',
      shows: ['details', 'hidden', 'types'],
    });
    expect(effect('ls -R src')).toEqual({ kind: 'list', path: 'src', shows: ['recursive'] });
    expect(effect('ls /home/USER/projects/spotter-worktrees/spotter-gqc/spotter-plugin/hooks/ 2>&1')).toEqual(
      {
        kind: 'list',
        path: '/home/USER/projects/spotter-worktrees/spotter-gqc/spotter-plugin/hooks',
        shows: [],
      },
    );
    expect(effect('find src')).toEqual({ kind: 'list', path: 'src', shows: ['hidden', 'recursive'] });
    expect(effect('find /srv/app/assets -name "*.css" -type f')).toEqual({
      kind: 'list',
      path: '/srv/app/assets',
      shows: ['hidden', 'recursive'],
      filter: 'find "-name" "*.css" "-type" "f"',
    });
    expect(effect('ls -t src')).toBeUndefined(); // a sort order is not followed
    expect(effect('ls -d src')).toBeUndefined();
    expect(effect('ls a b')).toBeUndefined();
    expect(effect('find . -name "*.pyc" -delete')).toBeUndefined();
    expect(effect('find . -exec cat {} ;')).toBeUndefined();
  });

  it('narrows a read or listing piped through filters, and ignores outputs piped through anything else', () => {
    expect(effect('cat a.py | grep def')).toEqual({
      kind: 'read',
      path: 'a.py',
      range: 'all | "grep" "def"',
    });
    expect(
      effect(
        'find /home/USER/projects/spotter-worktrees/spotter-dov/priv -name "*.css" 2>/dev/null | head -5',
      ),
    ).toMatchObject({ kind: 'list', filter: 'find "-name" "*.css" | "head" "-5"' });
    expect(effect('cat a.py | python -')).toBeUndefined();
    expect(effect('mix compile 2>&1 | head -40')).toBeUndefined();
  });

  it('follows cd DIR && … inside the line, and refuses what it cannot follow', () => {
    expect(effect('cd src && cat a.py')).toEqual({ kind: 'read', path: 'src/a.py' });
    expect(effect('cd /testbed && cat setup.py', undefined)).toEqual({
      kind: 'read',
      path: '/testbed/setup.py',
    });
    expect(effect('cd src; cat a.py')).toBeUndefined(); // cd may have failed
    expect(effect('cd ~ && cat a.py')).toBeUndefined();
    expect(parseShellCommand('cat a.py', { directory: undefined }).effect).toBeUndefined();
    expect(parseShellCommand('cat /testbed/a.py', { directory: undefined }).effect).toEqual({
      kind: 'read',
      path: '/testbed/a.py',
    });
    expect(parseShellCommand('cd lib').directoryAfter).toBe('lib');
    expect(parseShellCommand('cd lib').changesDirectory).toBe(true);
    expect(parseShellCommand('(cd lib && ls)').changesDirectory).toBe(true);
    expect(parseShellCommand('ls').changesDirectory).toBe(false);
  });

  it('gives no effect to compound, substituted, redirected or multi-line commands', () => {
    for (const command of [
      'ls src && cat a.py',
      'cat $FILE',
      'cat "$HOME/a.py"',
      'cat `which python`',
      'cat a.py > b.py',
      'cat < a.py',
      'cat a.py &',
      'cat *.py',
      'cat a.py\nrm a.py',
      'git commit -m "$(cat <<\'EOF\'\nfeat: x\nEOF\n)"',
      'python reproduce.py',
      'rm reproduce.py',
    ]) {
      expect(effect(command), command).toBeUndefined();
    }
  });

  it('says whether every program is read-only, for repeated commands', () => {
    expect(parseShellCommand('git log --oneline -5 2>&1').isReadOnly).toBe(true);
    expect(parseShellCommand('ls -F').isReadOnly).toBe(true);
    expect(parseShellCommand('grep -rn TODO src | head -20').isReadOnly).toBe(true);
    expect(parseShellCommand('git status 2>&1').isReadOnly).toBe(false);
    expect(parseShellCommand('mix test 2>&1 | tail -5').isReadOnly).toBe(false);
    expect(parseShellCommand('find . -delete').isReadOnly).toBe(false);
    expect(parseShellCommand('bd show spotter-gqc 2>&1', { readOnlyCommands: ['bd show'] }).isReadOnly).toBe(
      true,
    );
  });

  it('reports the programs and whether errors were discarded, for failure checks', () => {
    const analysis = parseShellCommand('cat missing.txt 2>/dev/null');
    expect(analysis.programs).toEqual(['cat']);
    expect(analysis.hidesErrors).toBe(true);
  });
});
