import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/types.ts';
import { memoryStore } from '../stores/memory/index.ts';
import { messageKey } from './conversation-key.ts';
import { createConversationMap, MAX_BRANCH_DEPTH } from './conversation-map.ts';

const message = (role: 'user' | 'assistant', text: string): Message => ({
  id: `m-${role}-${text}`,
  role,
  parts: [{ type: 'text', text }],
  createdAt: '2026-01-01T00:00:00.000Z',
});

/** A conversation as a client resends it: alternating turns from a small alphabet (so repeats happen). */
const conversation = fc
  .array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 8 })
  .map((texts) => texts.map((text, index) => message(index % 2 === 0 ? 'user' : 'assistant', text)));

/** Appends what `match` said is new, as the gateway does, straight to the store. */
async function send(
  map: ReturnType<typeof createConversationMap>,
  store: ReturnType<typeof memoryStore>,
  request: readonly Message[],
) {
  const match = await map.match('root', request);
  if (match.newMessages.length > 0) {
    await store.append(
      match.sessionId,
      match.newMessages.map((item) => ({ message: item })),
    );
  }
  return match;
}

describe('the conversation map', () => {
  it('always lands on a session whose history is exactly the request, whatever the order of requests', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(conversation, { minLength: 1, maxLength: 12 }), async (requests) => {
        const store = memoryStore();
        const map = createConversationMap({ store });
        for (const request of requests) {
          const match = await send(map, store, request);
          const stored = await store.messages(match.sessionId);
          expect(stored.map((row) => messageKey(row.message))).toEqual(
            request.map((item) => messageKey(item)),
          );
        }
      }),
      { numRuns: 60 },
    );
  });

  it('appends only the suffix when a request extends the session, and finds a branch again', async () => {
    const store = memoryStore();
    const map = createConversationMap({ store });
    const base = [message('user', 'q1'), message('assistant', 'a1')];
    expect((await send(map, store, base)).newMessages).toHaveLength(2);
    const longer = [...base, message('user', 'q2')];
    const extended = await send(map, store, longer);
    expect(extended.newMessages.map((item) => item.parts)).toEqual([[{ type: 'text', text: 'q2' }]]);
    expect(extended.sessionId).toBe('root');
    // A regenerate (the request is shorter than the session): a branch, found again next time.
    const regenerate = await send(map, store, base.slice(0, 1));
    expect(regenerate.branchedFrom).toBe('root');
    const again = await send(map, store, [base[0] as Message, message('assistant', 'other')]);
    expect(again.sessionId).toBe(regenerate.sessionId);
  });

  it('gives the same new message the same id in two processes, so the store keeps one row', async () => {
    const store = memoryStore();
    const one = createConversationMap({ store });
    const two = createConversationMap({ store });
    const request = [message('user', 'hello')];
    const [first, second] = await Promise.all([one.match('root', request), two.match('root', request)]);
    expect(first.newMessages[0]?.id).toBe(second.newMessages[0]?.id);
    await store.append(
      'root',
      (first.newMessages as Message[]).map((item) => ({ message: item })),
    );
    await store.append(
      'root',
      (second.newMessages as Message[]).map((item) => ({ message: item })),
    );
    expect(await store.messages('root')).toHaveLength(1);
  });

  it('stops following branches after MAX_BRANCH_DEPTH and gives the request a fresh session', async () => {
    const store = memoryStore();
    const map = createConversationMap({ store });
    const question = message('user', 'q');
    // Each regenerate of the same question diverges from every earlier answer.
    for (let attempt = 0; attempt <= MAX_BRANCH_DEPTH; attempt++) {
      const match = await send(map, store, [question]);
      await store.append(match.sessionId, [
        { message: { ...message('assistant', `answer ${attempt}`), id: `a${attempt}` } },
      ]);
    }
    const last = await map.match('root', [question]);
    expect(last.sessionId).toMatch(/^root~[0-9a-f-]{36}$/);
    expect(last.newMessages).toHaveLength(1);
  });
});
