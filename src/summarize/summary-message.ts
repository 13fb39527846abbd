import { formatCount } from '../messages/format-count.ts';
import { emptyFactLists } from './ledger.ts';
import type { FactKind, FactLedger, SummaryWithLedger } from './types.ts';

const HEADER = /^\[chatfold summary of ([\d,]+) earlier messages?(?: \(ids ([^\s)]+)\))?\]\n/;
const LEDGER_HEADING = '\n\n## Fact ledger (extracted mechanically from the summarized messages)\n';
const FOOTER = '\n[end of chatfold summary]';

const SECTIONS: readonly [FactKind, string][] = [
  ['filesModified', 'Files modified'],
  ['filesRead', 'Files read'],
  ['pathsMentioned', 'Paths seen in tool output'],
  ['commands', 'Commands run'],
  ['errors', 'Errors seen'],
  ['urls', 'URLs'],
  ['identifiers', 'Identifiers'],
  ['numbers', 'Numbers'],
];

/** What follows a section's title when older facts of its kind were left out. */
const LEFT_OUT_NOTE = ' (the newest only; older ones were left out)';

/** A fence for a multi-line item: longer than any run of tildes that starts one of its lines. */
function fenceFor(item: string): string {
  let fence = '~~~';
  while (item.split('\n').some((line) => line.startsWith(fence))) fence += '~';
  return fence;
}

/**
 * Renders the fact ledger as the markdown block that follows a summary. Every item appears
 * literally: a multi-line item (a heredoc command) is a fenced block of its exact lines, so a
 * search for the whole command finds it.
 */
export function formatLedger(ledger: FactLedger): string {
  const blocks: string[] = [];
  for (const [key, title] of SECTIONS) {
    const items = ledger[key] ?? [];
    if (items.length === 0) continue;
    const lines = items.map((item) => {
      if (!item.includes('\n')) return `- ${item}`;
      const fence = fenceFor(item);
      return `${fence}\n${item}\n${fence}`;
    });
    const note = ledger.leftOut?.includes(key) === true ? LEFT_OUT_NOTE : '';
    blocks.push(`${title}${note}:\n${lines.join('\n')}`);
  }
  return blocks.join('\n');
}

/**
 * The text of the summary message placed in the projection (SUM-7): clearly marked as a
 * chatfold summary, naming the ids it covers (`first..last`, issue 21: `chatfold_recall`
 * returns the originals), with the ledger after it, and parseable back by
 * {@link parseSummaryMessage}.
 */
export function formatSummaryMessage({
  text,
  ledger,
  messagesSummarized,
  ids,
}: SummaryWithLedger & { messagesSummarized: number; ids?: string | undefined }): string {
  const ledgerText = formatLedger(ledger);
  const count = formatCount(messagesSummarized);
  const named = ids === undefined || ids === '' ? '' : ` (ids ${ids})`;
  return `[chatfold summary of ${count} earlier message${messagesSummarized === 1 ? '' : 's'}${named}]\n${text.trim()}${ledgerText ? `${LEDGER_HEADING}${ledgerText}` : ''}${FOOTER}`;
}

/** Recovers summary text and ledger from a summary message; undefined when it is not one. */
export function parseSummaryMessage(
  message: string,
): (SummaryWithLedger & { messagesSummarized: number; ids?: string }) | undefined {
  const header = HEADER.exec(message);
  if (header === null) return undefined;
  let body = message.slice(header[0].length);
  const footerAt = body.lastIndexOf(FOOTER);
  if (footerAt >= 0) body = body.slice(0, footerAt);
  const ledgerAt = body.indexOf(LEDGER_HEADING);
  const text = ledgerAt >= 0 ? body.slice(0, ledgerAt) : body;
  const ledger: Record<FactKind, string[]> = emptyFactLists();
  const leftOut: FactKind[] = [];
  if (ledgerAt >= 0) {
    let current: string[] | undefined;
    let block: { fence: string; lines: string[] } | undefined;
    for (const line of body.slice(ledgerAt + LEDGER_HEADING.length).split('\n')) {
      if (block !== undefined) {
        if (line === block.fence) {
          current?.push(block.lines.join('\n'));
          block = undefined;
        } else block.lines.push(line);
        continue;
      }
      const section = SECTIONS.find(
        ([, title]) => line === `${title}:` || line === `${title}${LEFT_OUT_NOTE}:`,
      );
      if (section !== undefined) {
        current = ledger[section[0]];
        if (line.endsWith(`${LEFT_OUT_NOTE}:`)) leftOut.push(section[0]);
      } else if (/^~{3,}$/.test(line) && current !== undefined) block = { fence: line, lines: [] };
      else if (line.startsWith('- ') && current !== undefined) current.push(line.slice(2));
      else if (line.startsWith('  ') && current !== undefined && current.length > 0) {
        // Multi-line items as earlier versions wrote them (continued on indented lines).
        current[current.length - 1] += `\n${line.slice(2)}`;
      }
    }
  }
  return {
    text: text.trim(),
    ledger: leftOut.length === 0 ? ledger : { ...ledger, leftOut },
    messagesSummarized: Number((header[1] as string).replaceAll(',', '')),
    ...(header[2] === undefined ? {} : { ids: header[2] }),
  };
}
