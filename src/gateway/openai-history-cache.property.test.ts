import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromOpenAI, type OpenAIMessage } from '../messages/openai.ts';
import { messageKey } from './conversation-key.ts';
import { createOpenAIHistoryCache } from './openai-history-cache.ts';

/** A wire conversation: user turns, answers, and tool calls answered by tool results (sometimes late). */
const turn = fc.oneof(
  fc.constantFrom('a', 'b', 'hello').map((text): OpenAIMessage[] => [{ role: 'user', content: text }]),
  fc.constantFrom('ok', 'sure').map((text): OpenAIMessage[] => [{ role: 'assistant', content: text }]),
  fc
    .tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom('read', 'grep'), fc.nat(1000))
    .map(([count, name, seed]): OpenAIMessage[] => {
      const ids = Array.from({ length: count }, (_, index) => `call_${seed}_${index}`);
      return [
        {
          role: 'assistant',
          content: null,
          tool_calls: ids.map((id) => ({
            id,
            type: 'function' as const,
            function: { name, arguments: '{"path":"x"}' },
          })),
        },
        ...ids.map((id): OpenAIMessage => ({ role: 'tool', tool_call_id: id, content: `result ${id}` })),
      ];
    }),
);
const conversation = fc.array(turn, { minLength: 1, maxLength: 8 }).map((turns) => turns.flat());

describe('the Chat Completions history cache', () => {
  it('gives what fromOpenAI gives for every request, however the requests extend, cut or change the history', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(conversation, fc.nat()), { minLength: 1, maxLength: 6 }), (steps) => {
        const cache = createOpenAIHistoryCache();
        let history: OpenAIMessage[] = [];
        for (const [more, cut] of steps) {
          // Keep a prefix of the last request (its length chosen by `cut`), then add new messages:
          // a cut may split a tool call from its results, as an edited history can.
          history = [...history.slice(0, history.length === 0 ? 0 : cut % (history.length + 1)), ...more];
          const cached = cache.convert('scope', history);
          const direct = fromOpenAI(history);
          expect(cached.map((message) => messageKey(message))).toEqual(
            direct.map((message) => messageKey(message)),
          );
          expect(cached.map((message) => message.parts)).toEqual(direct.map((message) => message.parts));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('converts only the new messages when a request extends the last one', () => {
    const cache = createOpenAIHistoryCache();
    const first: OpenAIMessage[] = [{ role: 'user', content: 'hi' }];
    const firstConverted = cache.convert('scope', first);
    const second = cache.convert('scope', [...first, { role: 'assistant', content: 'hello' }]);
    // The first message is the very object converted before: it was not converted again.
    expect(second[0]).toBe(firstConverted[0]);
  });
});
