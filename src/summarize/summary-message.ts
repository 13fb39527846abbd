import { emptyFactLists } from './ledger.ts';
import type { FactLedger, SummaryWithLedger } from './types.ts';

const HEADER = /^\[chatfold summary of ([\d,]+) earlier messages?\]\n/;
const LEDGER_HEADING = '\n\n## Fact ledger (extracted mechanically from the summarized messages)\n';
const FOOTER = '\n[end of chatfold summary]';

const SECTIONS: readonly [keyof FactLedger, string][] = [
  ['filesModified', 'Files modified'],
  ['filesRead', 'Files read'],
  ['commands', 'Commands run'],
  ['errors', 'Errors seen'],
  ['urls', 'URLs'],
  ['identifiers', 'Identifiers'],
  ['numbers', 'Numbers'],
];

/** Renders the fact ledger as the markdown block that follows a summary. */
export function formatLedger(ledger: FactLedger): string {
  const blocks: string[] = [];
  for (const [key, title] of SECTIONS) {
    const items = ledger[key];
    if (items.length === 0) continue;
    // Multi-line items (heredoc commands) continue on lines indented by two spaces.
    blocks.push(`${title}:\n${items.map((item) => `- ${item.replaceAll('\n', '\n  ')}`).join('\n')}`);
  }
  return blocks.join('\n');
}

/**
 * The text of the summary message placed in the projection (SUM-7): clearly marked as a
 * chatfold summary, with the ledger after it, and parseable back by {@link parseSummaryMessage}.
 */
export function formatSummaryMessage({
  text,
  ledger,
  messagesSummarized,
}: SummaryWithLedger & { messagesSummarized: number }): string {
  const ledgerText = formatLedger(ledger);
  const count = messagesSummarized.toLocaleString('en-US');
  return `[chatfold summary of ${count} earlier message${messagesSummarized === 1 ? '' : 's'}]\n${text.trim()}${ledgerText ? `${LEDGER_HEADING}${ledgerText}` : ''}${FOOTER}`;
}

/** Recovers summary text and ledger from a summary message; undefined when it is not one. */
export function parseSummaryMessage(
  message: string,
): (SummaryWithLedger & { messagesSummarized: number }) | undefined {
  const header = HEADER.exec(message);
  if (header === null) return undefined;
  let body = message.slice(header[0].length);
  const footerAt = body.lastIndexOf(FOOTER);
  if (footerAt >= 0) body = body.slice(0, footerAt);
  const ledgerAt = body.indexOf(LEDGER_HEADING);
  const text = ledgerAt >= 0 ? body.slice(0, ledgerAt) : body;
  const ledger = emptyFactLists();
  if (ledgerAt >= 0) {
    let current: string[] | undefined;
    for (const line of body.slice(ledgerAt + LEDGER_HEADING.length).split('\n')) {
      const section = SECTIONS.find(([, title]) => line === `${title}:`);
      if (section !== undefined) current = ledger[section[0]];
      else if (line.startsWith('- ') && current !== undefined) current.push(line.slice(2));
      else if (line.startsWith('  ') && current !== undefined && current.length > 0) {
        current[current.length - 1] += `\n${line.slice(2)}`;
      }
    }
  }
  return {
    text: text.trim(),
    ledger,
    messagesSummarized: Number((header[1] as string).replaceAll(',', '')),
  };
}
