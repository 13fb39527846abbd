import type { SlashCommand } from './types.ts';

/** `/exit`: leaves the REPL and prints the command that resumes the session. */
export const exitCommand: SlashCommand = {
  name: 'exit',
  usage: '/exit',
  help: 'leave (Ctrl-D does the same); prints the command that resumes this session',
  async run(_args, { exit }) {
    exit();
  },
};
