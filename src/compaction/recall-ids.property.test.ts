import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/types.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { planWithOptions } from './plan-compaction.ts';

// Issue 21, recall: every stub, placeholder, marker and summary names the ids of what it
// replaced, so the model can ask for any of it back by id.

const counter = createMockTokenCounter();
const STRATEGIES = [
  'clip',
  'supersede',
  'mask',
  'summarize',
  'truncate',
  'importance',
  'hybrid',
  'deterministic',
];

const step = fc.oneof(
  fc.record({
    kind: fc.constant('talk' as const),
    user: fc.string({ maxLength: 400 }).map((s) => `u${s}`),
    reply: fc.string({ maxLength: 2000 }).map((s) => `a${s}`),
  }),
  fc.record({
    kind: fc.constant('tools' as const),
    calls: fc.array(
      fc.record({
        name: fc.constantFrom('Read', 'Write', 'Bash', 'LS'),
        path: fc.constantFrom('a.ts', 'b.ts', 'src/c.ts', '.'),
        size: fc.integer({ min: 1, max: 6000 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  }),
);

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function conversation(steps: readonly Step[]): Message[] {
  const builder = buildConversation().system('system prompt').user('the goal of this session');
  for (const s of steps) {
    if (s.kind === 'talk') builder.assistant(s.reply).user(s.user);
    else
      builder.toolRound(
        s.calls.map((c) => ({
          name: c.name,
          args: c.name === 'Bash' ? { command: `cat ${c.path}` } : { file_path: c.path },
          result: `${c.path}\n${'x'.repeat(c.size)}`,
        })),
      );
  }
  return builder.user('the latest question').build();
}

/** Every text the model reads in a message: its words, tool outputs and tool-call arguments. */
function textsOf(message: Message): string {
  return message.parts
    .map((part) => {
      if (part.type === 'text' || part.type === 'reasoning') return part.text;
      if (part.type === 'tool-call') return part.arguments;
      if (part.type === 'tool-result')
        return part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join('\n');
      return '';
    })
    .join('\n');
}

/** The input indexes a projection's texts name: single ids (`m4`) and spans (`m4..m9`). */
function namedIndexes(out: readonly Message[], indexOf: ReadonlyMap<string, number>): Set<number> {
  const named = new Set<number>();
  for (const message of out) {
    for (const [, first, last] of textsOf(message).matchAll(/\b(m\d+)(?:\.\.(m\d+))?\b/g)) {
      const from = indexOf.get(first as string);
      const to = indexOf.get(last ?? (first as string));
      if (from === undefined || to === undefined) continue;
      for (let i = from; i <= to; i++) named.add(i);
    }
  }
  return named;
}

describe('recall ids (issue 21)', () => {
  it('every input message that is not in the projection as it was is named by id in the projection', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 3000, max: 40_000 }),
        fc.constantFrom(...STRATEGIES),
        async (steps, window, strategy) => {
          const messages = conversation(steps);
          const { messages: out } = await planWithOptions(messages, {
            counter,
            window,
            responseReserve: 500,
            strategy,
            mode: 'manual',
          });
          const indexOf = new Map(messages.map((message, index) => [message.id, index]));
          const kept = new Map(out.map((message) => [message.id, message]));
          const named = namedIndexes(out, indexOf);
          const unnamed = messages
            .map((message, index) => ({ message, index }))
            .filter(({ message, index }) => {
              const now = kept.get(message.id);
              const unchanged =
                now !== undefined && JSON.stringify(now.parts) === JSON.stringify(message.parts);
              return !unchanged && !named.has(index);
            })
            .map(({ message }) => message.id);
          expect(unnamed).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
