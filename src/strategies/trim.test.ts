import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { trimToTokens } from './trim.ts';

const counter = createMockTokenCounter();

const step = fc.oneof(
  fc.record({ kind: fc.constant('talk' as const), text: fc.string({ maxLength: 600 }) }),
  fc.record({
    kind: fc.constant('tools' as const),
    sizes: fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('orphan' as const) }),
);

function build(steps: { kind: string; text?: string; sizes?: number[] }[]): Message[] {
  const builder = buildConversation().system('system prompt').user('goal');
  for (const s of steps) {
    if (s.kind === 'talk') builder.assistant(`a${s.text}`).user(`u${s.text}`);
    else if (s.kind === 'tools') {
      builder.toolRound(
        (s.sizes ?? []).map((size, i) => ({ name: 'Read', args: { i }, result: 'x'.repeat(size) })),
      );
    }
  }
  const messages = builder.build();
  // Plant orphan tool results (a recording that lost the call) where the steps ask for them.
  const out: Message[] = [];
  let orphans = 0;
  for (const [i, m] of messages.entries()) {
    out.push(m);
    const s = steps[Math.floor(i / 2)];
    if (s?.kind === 'orphan' && m.role === 'user') {
      out.push({
        id: `orphan${orphans}`,
        role: 'tool',
        createdAt: m.createdAt,
        parts: [
          { type: 'tool-result', callId: `lost_${orphans++}`, content: [{ type: 'text', text: 'late' }] },
        ],
      });
    }
  }
  return out;
}

describe('trimToTokens (STR-3, MSG-3)', () => {
  it('keeps the newest units that fit, valid for every provider', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 0, maxLength: 30 }),
        fc.integer({ min: 40, max: 8000 }),
        (steps, max) => {
          const messages = build(steps);
          const kept = trimToTokens(messages, { maxTokens: max, counter });
          expect(counter.count(kept).total).toBeLessThanOrEqual(max);
          expect(kept[0]?.role).toBe('system');
          for (const provider of ['openai', 'anthropic', 'gemini'] as const) {
            const problems = validate(kept, { provider, allowPendingToolCalls: true }).filter(
              (p) => p.kind !== 'empty-message',
            );
            expect(problems).toEqual([]);
          }
          // Order is kept and the messages are the caller's objects.
          const positions = kept.map((m) => messages.indexOf(m));
          expect(positions.every((p, i) => p >= 0 && (i === 0 || p > (positions[i - 1] as number)))).toBe(
            true,
          );
          // A suffix: after the first kept non-system message, every non-orphan message is kept.
          const start = positions[1];
          if (start !== undefined) {
            const tail = messages.slice(start).filter((m) => !m.id.startsWith('orphan'));
            expect(kept.slice(1)).toEqual(tail);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps as much as fits: one more unit would exceed the budget or break the start rule', () => {
    const messages = build(
      Array.from({ length: 20 }, (_, i) =>
        i % 3 === 0 ? { kind: 'tools', sizes: [400, 200] } : { kind: 'talk', text: 'x'.repeat(300) },
      ),
    );
    for (const max of [200, 500, 1000, 2000, 4000]) {
      const kept = trimToTokens(messages, { maxTokens: max, counter });
      const firstKept = messages.indexOf(kept[1] as Message);
      // The previous user turn before the cut, with everything after it, must not fit.
      let previousUser = firstKept - 1;
      while (previousUser > 1 && messages[previousUser]?.role !== 'user') previousUser--;
      const bigger = [messages[0] as Message, ...messages.slice(previousUser)];
      if (firstKept > 1) expect(counter.count(bigger).total).toBeGreaterThan(max);
    }
  });

  it('never splits a tool call from its results, parallel calls included', () => {
    const messages = buildConversation()
      .system('s')
      .user('go')
      .toolRound([
        { name: 'Read', args: { a: 1 }, result: 'r'.repeat(400) },
        { name: 'Read', args: { a: 2 }, result: 'r'.repeat(400) },
      ])
      .assistant('done')
      .build();
    const withAll = trimToTokens(messages, { maxTokens: 10_000, counter });
    expect(withAll).toEqual(messages);
    const without = trimToTokens(messages, { maxTokens: 150, counter, startOn: 'any' });
    expect(without.map((m) => m.role)).toEqual(['system', 'assistant']);
  });

  it('keeps a trailing tool call that is still in flight', () => {
    const messages = buildConversation().system('s').user('go').build();
    messages.push({
      id: 'pending',
      role: 'assistant',
      createdAt: '',
      parts: [{ type: 'tool-call', id: 'c9', name: 'Bash', arguments: '{}' }],
    });
    expect(trimToTokens(messages, { maxTokens: 1000, counter }).at(-1)?.id).toBe('pending');
  });

  it('rejects a budget the system prompt cannot meet, and bad options', () => {
    const messages = buildConversation().system('s'.repeat(4000)).user('go').build();
    expect(() => trimToTokens(messages, { maxTokens: 100, counter })).toThrow(
      expect.objectContaining({ code: 'E_BUDGET_IMPOSSIBLE' }),
    );
    expect(trimToTokens(messages, { maxTokens: 100, counter, keepSystem: false }).map((m) => m.role)).toEqual(
      ['user'],
    );
    expect(() => trimToTokens(messages, { maxTokens: Number.NaN, counter })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_OPTIONS' }),
    );
    expect(() => trimToTokens('x' as never, { maxTokens: 1, counter })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_MESSAGES' }),
    );
  });
});
