import {
  deleteSession,
  isDeletedSession,
  renameSession,
  sessionTitle,
} from '../../../agent/session-metadata.ts';
import { formatCreated } from '../context-view.ts';
import type { ReplContext, SlashCommand } from './types.ts';

/** Sessions `/sessions` lists at most. */
export const SESSIONS_LIMIT = 20;

async function listSessions({ agent, terminal, store }: ReplContext): Promise<void> {
  // Deleted sessions are skipped: ask for a few more so the list still shows up to the limit.
  const sessions = (await store.store.listSessions({ limit: SESSIONS_LIMIT * 2 }))
    .filter((info) => !isDeletedSession(info))
    .slice(0, SESSIONS_LIMIT);
  terminal.write(`Sessions in ${store.description}:\n`);
  for (const info of sessions) {
    const current = info.id === agent.session.id;
    const agentName = typeof info.metadata?.agent === 'string' ? `  agent ${info.metadata.agent}` : '';
    const title = sessionTitle(info);
    const line = `  ${current ? '*' : ' '} ${info.id.padEnd(14)} ${String(info.messageCount).padStart(5)} ${info.messageCount === 1 ? 'message ' : 'messages'}  updated ${formatCreated(info.updatedAt)}${agentName}${title === undefined ? '' : `  “${title}”`}`;
    terminal.write(`${current ? terminal.style.bold(line) : line}\n`);
  }
}

/**
 * `/sessions` (CLI-1): the store's sessions, most recent first, the current one marked;
 * `/sessions rename TITLE` titles the current session, `/sessions delete ID` deletes another
 * (it leaves the lists; its messages stay in the store).
 */
export const sessionsCommand: SlashCommand = {
  name: 'sessions',
  usage: '/sessions [rename TITLE | delete ID]',
  help: 'list the sessions in the store; title this one; delete another (resume one with chatfold chat --session ID)',
  async run(args, context) {
    const { agent, terminal, store } = context;
    const [action = '', ...rest] = args.trim().split(/\s+/);
    const argument = args.trim().slice(action.length).trim();
    if (action === '') return listSessions(context);
    if (action === 'rename') {
      if (argument === '') {
        terminal.write('Usage: /sessions rename TITLE (titles this session)\n');
        return;
      }
      const info = await renameSession(store.store, agent.session.id, argument);
      terminal.write(`Session ${agent.session.id} is now “${sessionTitle(info)}”.\n`);
      return;
    }
    if (action === 'delete') {
      const id = rest[0];
      if (id === undefined || rest.length > 1) {
        terminal.write('Usage: /sessions delete ID (another session; /sessions lists them)\n');
        return;
      }
      if (id === agent.session.id) {
        terminal.write('This is the session you are in; delete it from another one.\n');
        return;
      }
      const info = await store.store.getSession(id);
      if (info === undefined || isDeletedSession(info)) {
        terminal.write(`No session ${id} in ${store.description}; /sessions lists them.\n`);
        return;
      }
      await deleteSession(store.store, id);
      terminal.write(
        `Deleted session ${id} (its ${info.messageCount === 1 ? 'message stays' : 'messages stay'} in the store).\n`,
      );
      return;
    }
    terminal.write(
      `Unknown /sessions action ${JSON.stringify(action)}; use /sessions, /sessions rename TITLE or /sessions delete ID.\n`,
    );
  },
};
