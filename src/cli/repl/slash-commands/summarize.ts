import { plural } from '../../plural.ts';
import { createEventRenderer } from '../render-events.ts';
import type { ReplContext, SlashCommand } from './types.ts';

const count = (n: number): string => n.toLocaleString('en-US');

/** Runs one summary with progress; true when it succeeded. */
async function summarizeOnce(instructions: string, context: ReplContext): Promise<boolean> {
  const { agent, terminal, signal } = context;
  const renderer = createEventRenderer(terminal);
  const before = (await agent.session.status()).tokens;
  let summaryText = '';
  let failed = false;
  for await (const event of agent.summarize({ signal, ...(instructions === '' ? {} : { instructions }) })) {
    if (event.type === 'compaction-end') summaryText = event.report.summary?.text ?? '';
    if (event.type === 'error') failed = true;
    renderer.handle(event);
  }
  const done = renderer.finish();
  if (failed || done?.reason !== 'stop') return done?.reason === 'aborted';
  const status = await agent.session.status();
  const after = status.tokens;
  const saved = before - after;
  // How many messages the summary stands for in all: the number /context and /compactions show.
  terminal.write(
    `Summary ready: ${count(before)} → ${count(after)} tokens in the prompt (${count(Math.max(0, saved))} saved); it covers ${plural(status.messagesSummarized, 'message')}.\n`,
  );
  if (summaryText !== '') {
    const preview = summaryText.replace(/\s+/g, ' ').trim();
    terminal.write(terminal.style.dim(`  ${preview.length > 200 ? `${preview.slice(0, 200)}…` : preview}\n`));
  }
  return true;
}

/**
 * `/summarize [instructions]` (CLI-1, WEB-5 in a terminal): shows the preview (messages to
 * summarize, estimated tokens after), runs with a progress indicator, prints the result and the
 * tokens saved. A failure leaves the history as it was and offers a retry.
 */
export const summarizeCommand: SlashCommand = {
  name: 'summarize',
  usage: '/summarize [instructions]',
  help: 'summarize the history now; optional instructions for the summary',
  async run(args, context) {
    const { agent, terminal } = context;
    const instructions = args.trim();
    const preview = await agent.previewSummary(instructions === '' ? {} : { instructions });
    if (!preview.willCompact) {
      terminal.write(`Nothing to summarize: ${preview.reason}.\n`);
      return;
    }
    terminal.write(
      `Summarizing ${count(preview.messagesToSummarize)} of ${plural(preview.messagesInHistory, 'message')}: about ${count(preview.tokensBefore)} → ${count(preview.tokensAfter)} tokens${instructions === '' ? '' : ` (instructions: ${instructions})`}.\n`,
    );
    for (;;) {
      if (await summarizeOnce(instructions, context)) return;
      const answer = await context.ask('Summarizing failed; the history is unchanged. Retry? [y/N] ');
      if (answer === undefined) {
        terminal.write('Run /summarize again to retry.\n');
        return;
      }
      if (!/^y(es)?$/i.test(answer.trim())) return;
    }
  },
};
