import { compactionsCommand } from './compactions.ts';
import { contextCommand } from './context.ts';
import { exitCommand } from './exit.ts';
import { historyCommand } from './history.ts';
import { sessionsCommand } from './sessions.ts';
import { summarizeCommand } from './summarize.ts';
import type { SlashCommand } from './types.ts';

/** `/help`: generated from {@link SLASH_COMMANDS}, never written twice. */
const helpCommand: SlashCommand = {
  name: 'help',
  usage: '/help',
  help: 'this list',
  async run(_args, { terminal }) {
    const width = Math.max(...SLASH_COMMANDS.map((command) => command.usage.length));
    terminal.write('Commands:\n');
    for (const command of SLASH_COMMANDS)
      terminal.write(`  ${command.usage.padEnd(width)}  ${command.help}\n`);
    terminal.write('Ctrl-C cancels the running turn (history kept); a second Ctrl-C or Ctrl-D exits.\n');
  },
};

/** Every slash command of `chatfold chat`, in `/help` order (CLI-1). */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  contextCommand,
  summarizeCommand,
  historyCommand,
  compactionsCommand,
  sessionsCommand,
  helpCommand,
  exitCommand,
];

/** The command a line names (`/hist` is not `/history`: names are exact), or undefined. */
export function findSlashCommand(name: string): SlashCommand | undefined {
  return SLASH_COMMANDS.find((command) => command.name === name);
}

export type { ReplContext, SlashCommand } from './types.ts';
