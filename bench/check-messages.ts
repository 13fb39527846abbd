/**
 * Entry-check benchmark (MSG-4): `assertMessages` runs at the top of every public function
 * taking neutral messages, so it must be cheap. Cold: message objects never seen (a fresh
 * copy per run); warm: the same objects again (one WeakSet lookup each). Zod parsing the same
 * messages with the schema the check mirrors is the comparison that made the check
 * hand-written. Sessions are the recorded 344-message agent session repeated (corpus.ts).
 *
 *   node bench/check-messages.ts        (writes bench/results/check-messages.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { assertMessages } from '../src/messages/check-messages.ts';
import { messageSchema } from '../src/messages/message-schema.ts';
import { syntheticSession } from './corpus.ts';
import { machine, medianMs } from './harness.ts';

const schema = z.array(messageSchema);
const rows: { messages: number; coldMs: number; warmMs: number; zodMs: number; coldPerMessageUs: number }[] =
  [];
for (const size of [1000, 10_000, 100_000]) {
  const messages = syntheticSession(size);
  const runs = size >= 100_000 ? 5 : 15;
  // Fresh objects for every cold run (copied before timing).
  const copies = Array.from({ length: runs + 2 }, () => structuredClone(messages));
  let next = 0;
  const coldMs = await medianMs(() => assertMessages(copies[next++], 'bench'), { runs, warmup: 2 });
  const warmMs = await medianMs(() => assertMessages(messages, 'bench'), { runs: 25, warmup: 3 });
  const zodMs = await medianMs(() => schema.safeParse(messages), { runs, warmup: 2 });
  rows.push({
    messages: messages.length,
    coldMs,
    warmMs,
    zodMs,
    coldPerMessageUs: Math.round((coldMs / messages.length) * 1e6) / 1000,
  });
}
console.table(rows);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/check-messages.json', import.meta.url),
  `${JSON.stringify({ machine: machine(), rows }, null, 2)}\n`,
);
