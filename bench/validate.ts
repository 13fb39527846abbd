/**
 * Validator benchmark (MSG-3, EV-1): `validate()` runs after every compaction pipeline, so it
 * must stay linear and cheap. Sessions are the recorded 344-message agent session repeated
 * with fresh ids (see corpus.ts), checked with Anthropic rules and a call in flight allowed.
 *
 *   node bench/validate.ts        (writes bench/results/validate.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { validate } from '../src/messages/validate.ts';
import { syntheticSession } from './corpus.ts';
import { machine, medianMs } from './harness.ts';

const rows: { messages: number; provider: string; problems: number; ms: number; perMessageUs: number }[] = [];
for (const size of [1000, 10_000, 100_000]) {
  const messages = syntheticSession(size);
  for (const provider of ['none', 'openai', 'anthropic'] as const) {
    const options = provider === 'none' ? {} : { provider, allowPendingToolCalls: true };
    const problems = validate(messages, options).length;
    const ms = await medianMs(() => validate(messages, options), { runs: 25, warmup: 5 });
    rows.push({
      messages: messages.length,
      provider,
      problems,
      ms,
      perMessageUs: Math.round((ms / messages.length) * 1e6) / 1000,
    });
  }
}
console.table(rows);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/validate.json', import.meta.url),
  `${JSON.stringify({ machine: machine(), rows }, null, 2)}\n`,
);
