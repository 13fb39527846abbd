import { contextView } from '../context-view.ts';
import type { SlashCommand } from './types.ts';

/** `/context`: seed 004's status with bars, the window line and which counts are exact (TRG-6). */
export const contextCommand: SlashCommand = {
  name: 'context',
  usage: '/context',
  help: 'context status: last summary, N-messages and K-tokens trigger bars, window use',
  async run(_args, { agent, terminal }) {
    const status = await agent.session.status();
    terminal.write(
      `${contextView(status, { model: agent.modelLabel, style: terminal.style }).join('\n')}\n\n`,
    );
  },
};
