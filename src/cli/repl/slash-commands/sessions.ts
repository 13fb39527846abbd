import { formatCreated } from '../context-view.ts';
import type { SlashCommand } from './types.ts';

/** Sessions `/sessions` lists at most. */
export const SESSIONS_LIMIT = 20;

/** `/sessions` (CLI-1): the store's sessions, most recent first, the current one marked. */
export const sessionsCommand: SlashCommand = {
  name: 'sessions',
  usage: '/sessions',
  help: 'list the sessions in the store (resume one with chatfold chat --session ID)',
  async run(_args, { agent, terminal, store }) {
    const sessions = await store.store.listSessions({ limit: SESSIONS_LIMIT });
    terminal.write(`Sessions in ${store.description}:\n`);
    for (const info of sessions) {
      const current = info.id === agent.session.id;
      const agentName = typeof info.metadata?.agent === 'string' ? `  agent ${info.metadata.agent}` : '';
      const line = `  ${current ? '*' : ' '} ${info.id.padEnd(14)} ${String(info.messageCount).padStart(5)} ${info.messageCount === 1 ? 'message ' : 'messages'}  updated ${formatCreated(info.updatedAt)}${agentName}`;
      terminal.write(`${current ? terminal.style.bold(line) : line}\n`);
    }
  },
};
