import { plural } from '../../plural.ts';
import { formatCreated } from '../context-view.ts';
import { seconds } from '../format-compaction.ts';
import type { SlashCommand } from './types.ts';

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * `/compactions` (CLI-1, WEB-6): each compaction with trigger, time, tokens before → after,
 * duration, how many messages its summary covers (all of them, not only those this compaction
 * added: the number `/context` shows as "Last summary") and the summarizer.
 */
export const compactionsCommand: SlashCommand = {
  name: 'compactions',
  usage: '/compactions',
  help: 'list the compactions of this session: trigger, when, tokens before → after, duration, summarizer',
  async run(_args, { agent, terminal }) {
    const records = await agent.session.compactions();
    if (records.length === 0) {
      terminal.write('No compactions yet.\n');
      return;
    }
    terminal.write(`${records.length} compaction${records.length === 1 ? '' : 's'}:\n`);
    records.forEach((record, index) => {
      const summarizer =
        record.summarySource === undefined
          ? 'no summary'
          : record.summarySource === 'llm'
            ? `summarizer ${record.summarizerModel ?? 'LLM'}`
            : `${record.summarySource} summary`;
      terminal.write(
        `  ${String(index + 1).padStart(2)}. ${formatCreated(record.createdAt)}  ${record.mode.padEnd(8)} ${count(record.tokensBefore)} → ${count(record.tokensAfter)} tokens  ${record.durationMs === undefined ? '' : `${seconds(record.durationMs)}  `}${record.summarySource === undefined ? '' : `summary covers ${plural(record.messagesSummarized, 'message')}  `}${summarizer}\n`,
      );
    });
  },
};
