import type { Message } from '../../../messages/types.ts';
import type { HistoryEntry } from '../../../session/types.ts';
import { plural } from '../../plural.ts';
import type { SlashCommand } from './types.ts';

/** Messages `/history` shows at most (the newest). */
export const HISTORY_LIMIT = 50;

const STATUS_LABEL: Readonly<Record<string, string>> = {
  'in-context': 'in context',
  summarized: 'summarized',
  omitted: 'omitted',
  superseded: 'superseded',
  masked: 'masked',
  clipped: 'clipped',
};

/** One line of a message: its text, or its tool calls and results. */
export function messageSummary(message: Message, width = 90): string {
  const pieces = message.parts.map((part) => {
    switch (part.type) {
      case 'text':
        return part.text;
      case 'tool-call':
        return `[${part.name} ${part.arguments}]`;
      case 'tool-result':
        return `[${part.toolName ?? 'result'}: ${part.content.map((c) => (c.type === 'text' ? c.text : `(${c.kind})`)).join(' ')}]`;
      case 'reasoning':
        return '(reasoning)';
      default:
        return `(${part.kind})`;
    }
  });
  const text = pieces.join(' ').replace(/\s+/g, ' ').trim();
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/**
 * `/history [query]` (CLI-1, ST-3): the full history or a search over it, each message marked
 * with its place: in the active context, summarized, or superseded / masked / clipped / omitted.
 */
export const historyCommand: SlashCommand = {
  name: 'history',
  usage: '/history [query]',
  help: 'list (or search) the full history; marks what is in context and what is summarized',
  async run(args, { agent, terminal }) {
    const query = args.trim();
    const found: readonly HistoryEntry[] = await agent.session.history({
      limit: HISTORY_LIMIT,
      ...(query === '' ? {} : { text: query }),
    });
    const entries = [...found].sort((a, b) => a.seq - b.seq); // oldest first, like a transcript
    const { style } = terminal;
    const total = (await agent.session.status()).messagesInHistory;
    terminal.write(
      query === ''
        ? `History: ${plural(total, 'message')}${total > entries.length ? ` (the last ${entries.length})` : ''}; nothing is ever deleted, the marks say what the model sees.\n`
        : `${entries.length} ${entries.length === 1 ? 'message matches' : 'messages match'} ${JSON.stringify(query)}${entries.length === HISTORY_LIMIT ? ` (the first ${HISTORY_LIMIT})` : ''}.\n`,
    );
    for (const entry of entries) {
      const label = (STATUS_LABEL[entry.status] ?? entry.status).padEnd(10);
      const mark = entry.status === 'in-context' ? style.green(label) : style.dim(label);
      terminal.write(
        `  #${String(entry.seq).padEnd(5)} ${entry.message.role.padEnd(9)} ${mark}  ${messageSummary(entry.message)}\n`,
      );
    }
  },
};
