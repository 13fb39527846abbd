import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromAnthropic } from '../messages/anthropic.ts';
import type { AnthropicMessageInput } from '../messages/anthropic-schema.ts';
import { createAnthropicHistoryCache } from './anthropic-history-cache.ts';
import { messageKey } from './conversation-key.ts';

/** Turns as clients send them: text, tool use, tool results followed by text, string content. */
const turn = fc.oneof(
  fc.constantFrom('a', 'b', 'hello').map((text): AnthropicMessageInput => ({ role: 'user', content: text })),
  fc
    .constantFrom('ok', 'sure')
    .map((text): AnthropicMessageInput => ({ role: 'assistant', content: [{ type: 'text', text }] })),
  fc.nat(1000).map(
    (seed): AnthropicMessageInput => ({
      role: 'assistant',
      content: [
        { type: 'text', text: 'checking' },
        { type: 'tool_use', id: `toolu_${seed}`, name: 'read', input: { path: 'x' } },
      ],
    }),
  ),
  fc.tuple(fc.nat(1000), fc.boolean()).map(
    ([seed, withText]): AnthropicMessageInput => ({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `toolu_${seed}`, content: `result ${seed}` },
        ...(withText ? [{ type: 'text' as const, text: 'and then?' }] : []),
      ],
    }),
  ),
);
const history = fc.array(turn, { minLength: 1, maxLength: 8 });
const system = fc.option(fc.constantFrom('Be brief.', 'Be kind.'), { nil: undefined });

describe('the Messages history cache', () => {
  it('gives what fromAnthropic gives for every request, however the requests extend, cut or change', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(history, fc.nat(), system), { minLength: 1, maxLength: 6 }), (steps) => {
        const cache = createAnthropicHistoryCache();
        let turns: AnthropicMessageInput[] = [];
        for (const [more, cut, prompt] of steps) {
          turns = [...turns.slice(0, turns.length === 0 ? 0 : cut % (turns.length + 1)), ...more];
          const request = { ...(prompt === undefined ? {} : { system: prompt }), messages: turns };
          const cached = cache.convert('scope', request);
          const direct = fromAnthropic(request);
          expect(cached.map((message) => messageKey(message))).toEqual(
            direct.map((message) => messageKey(message)),
          );
          expect(cached.map((message) => [message.role, message.parts])).toEqual(
            direct.map((message) => [message.role, message.parts]),
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reuses the converted prefix when a request extends the last one', () => {
    const cache = createAnthropicHistoryCache();
    const first = cache.convert('scope', {
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const second = cache.convert('scope', {
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
    });
    expect(second[1]).toBe(first[1]);
    expect(second).toHaveLength(3);
  });
});
