import { formatLedger } from './summary-message.ts';
import type { FactKind, FactLedger } from './types.ts';

/**
 * The order in which a ledger's kinds give way when it does not fit: what an agent can find
 * again cheaply first, the files it changed last. Within a kind the oldest facts go first.
 */
const GIVE_WAY: readonly FactKind[] = [
  'numbers',
  'identifiers',
  'urls',
  'errors',
  'pathsMentioned',
  'filesRead',
  'commands',
  'filesModified',
];

/**
 * The ledger cut to at most `maxTokens` as {@link formatLedger} renders it: the oldest facts of
 * the least needed kinds leave first (each item stays whole), and every kind that lost facts is
 * named in `leftOut`, so the summary says its list is the newest only. The facts left out are
 * still in the history. Returns the ledger itself when it fits. Pure.
 *
 * A summary's ledger grows with every compaction it is merged into; in a small window the
 * protected messages leave little room, and without this bound the summary would grow until
 * the final fit clipped it in the middle (and the next compaction at once).
 */
export function fitLedger(
  ledger: FactLedger,
  maxTokens: number,
  countText: (text: string) => number,
): FactLedger {
  let tokens = countText(formatLedger(ledger));
  if (tokens <= maxTokens) return ledger;
  const lists = Object.fromEntries(GIVE_WAY.map((key) => [key, [...(ledger[key] ?? [])]])) as Record<
    FactKind,
    string[]
  >;
  const leftOut = new Set<FactKind>(GIVE_WAY.filter((key) => ledger.leftOut?.includes(key) === true));
  const build = (): FactLedger =>
    leftOut.size === 0 ? lists : { ...lists, leftOut: GIVE_WAY.filter((key) => leftOut.has(key)) };
  // Estimate each item's tokens from its own line, then verify the rendering (titles and the
  // left-out notes cost a little more); a few passes at most.
  for (let pass = 0; pass < 4 && tokens > maxTokens; pass++) {
    let over = tokens - maxTokens;
    for (const key of GIVE_WAY) {
      const list = lists[key];
      while (over > 0 && list.length > 0) {
        over -= countText(`- ${list.shift() as string}\n`);
        leftOut.add(key);
      }
      if (over <= 0) break;
    }
    tokens = countText(formatLedger(build()));
  }
  return build();
}
