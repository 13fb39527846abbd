import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildConversation } from '../test/build-conversation.ts';
import { createProjectionMemory } from './projection-memory.ts';

const history = (turns: number, tag = '') => {
  const builder = buildConversation();
  for (let i = 0; i < turns; i++) builder.user(`question ${tag}${i}`).assistant(`answer ${tag}${i}`);
  return builder.build();
};

describe('createProjectionMemory', () => {
  it('recalls the projection of the longest remembered history the request starts with, plus the rest', () => {
    const memory = createProjectionMemory(4);
    const messages = history(10);
    const summary = history(1, 'summary ');
    memory.remember('m', messages.slice(0, 6), summary);
    memory.remember('m', messages.slice(0, 12), [...summary, ...messages.slice(10, 12)]);
    const recalled = memory.recall('m', messages);
    expect(recalled?.covered).toBe(12);
    expect(recalled?.messages).toEqual([...summary, ...messages.slice(10)]);
  });

  it('recalls nothing for another scope, an edited history or a shorter one', () => {
    const memory = createProjectionMemory(4);
    const messages = history(10);
    memory.remember('m', messages.slice(0, 6), history(1, 'summary '));
    expect(memory.recall('other', messages)).toBeUndefined();
    expect(memory.recall('m', messages.slice(0, 5))).toBeUndefined();
    const edited = [...messages.slice(0, 2), ...history(4, 'edited ').slice(2)];
    expect(memory.recall('m', edited)).toBeUndefined();
  });

  it('replaces the entry a projection was recalled from, and keeps at most its size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 40 }),
        (size, picks) => {
          const memory = createProjectionMemory(size);
          const conversations = Array.from({ length: 8 }, (_, c) => history(6, `c${c} `));
          const turns = new Array<number>(8).fill(1);
          for (const c of picks) {
            const messages = (conversations[c] ?? []).slice(0, 2 * (turns[c] ?? 1));
            const recalled = memory.recall('m', messages);
            memory.remember('m', messages, messages.slice(-1), recalled);
            turns[c] = Math.min(6, (turns[c] ?? 1) + 1);
            expect(memory.size).toBeLessThanOrEqual(Math.min(size, new Set(picks).size));
          }
        },
      ),
    );
  });
});
