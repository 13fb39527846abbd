import { describe, expect, it } from 'vitest';
import { commands } from './commands/index.ts';
import { createProgram } from './program.ts';

describe('createProgram (CLI start-up)', () => {
  it('loads only the command argv names', async () => {
    const program = await createProgram(['node', 'chatfold', 'count', 'file.json']);
    expect(program.commands.map((command) => command.name())).toEqual(['count']);
  });

  it('loads every command, in help order, for help, --version and unknown names', async () => {
    const all = commands.map((command) => command.name);
    for (const argv of [
      ['node', 'chatfold'],
      ['node', 'chatfold', '--help'],
      ['node', 'chatfold', 'cuont'],
    ]) {
      const program = await createProgram(argv);
      expect(program.commands.map((command) => command.name())).toEqual(all);
    }
  });

  it("each entry's name is the command its module registers", async () => {
    for (const entry of commands) {
      const program = await createProgram(['node', 'chatfold', entry.name]);
      expect(program.commands.map((command) => command.name())).toEqual([entry.name]);
    }
  });
});
