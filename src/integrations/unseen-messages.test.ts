import { describe, expect, it } from 'vitest';
import { normalizeMessages } from '../messages/normalize.ts';
import { fromOpenAI } from '../messages/openai.ts';
import type { Message, MessageInput } from '../messages/types.ts';
import type { Session } from '../session/types.ts';
import type { StoredMessage } from '../stores/types.ts';
import { contentKeys, createHistoryTracker } from './unseen-messages.ts';

function memorySession(): Session & { rows: StoredMessage[] } {
  const rows: StoredMessage[] = [];
  return {
    id: 's',
    rows,
    async append(input: MessageInput | readonly MessageInput[]) {
      const list = (Array.isArray(input) ? input : [input]) as MessageInput[];
      const messages = normalizeMessages(
        list.map((message, i) => ({ ...message, id: `r${rows.length + i}` })),
      );
      for (const message of messages)
        rows.push({ sessionId: 's', seq: rows.length + 1, message, storedAt: '' });
      return messages;
    },
    prepare: async () => ({ messages: [], report: {} as never, tokens: 0, cachedPrefixTokens: 0 }),
    recordUsage: async () => undefined,
    compact: async () => ({}) as never,
    status: async () => ({}) as never,
    history: async () => [...rows],
    on: () => () => undefined,
  };
}

describe('contentKeys', () => {
  it('matches a reply rebuilt by the app (other provider details) and tells repeated turns apart', () => {
    const [fromResponse] = fromOpenAI([
      { role: 'assistant', content: 'Done.', refusal: null, annotations: [] } as never,
    ]);
    const [rebuilt] = fromOpenAI([{ role: 'assistant', content: 'Done.' }]);
    expect(contentKeys([fromResponse as Message])).toEqual(contentKeys([rebuilt as Message]));
    const yes = fromOpenAI([
      { role: 'user', content: 'yes' },
      { role: 'user', content: 'yes' },
    ]);
    const [first, second] = contentKeys(yes);
    expect(first).not.toBe(second);
  });
});

describe('createHistoryTracker', () => {
  it('appends only the messages of a resent history the session does not hold', async () => {
    const session = memorySession();
    const tracker = createHistoryTracker(session);
    const turn1 = fromOpenAI([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'yes' },
    ]);
    await tracker.append(await tracker.unseen(turn1));
    const reply = fromOpenAI([{ role: 'assistant', content: 'OK', refusal: null } as never])[0] as Message;
    expect(await tracker.appendReply(turn1, reply)).toMatchObject({ id: 'r2', role: 'assistant' });
    const turn2 = fromOpenAI([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'yes' },
      { role: 'assistant', content: 'OK' },
      { role: 'user', content: 'yes' },
    ]);
    const unseen = await tracker.unseen(turn2);
    expect(unseen).toEqual([turn2[3]]);
    await tracker.append(unseen);
    expect(session.rows.map((row) => row.message.parts)).toEqual(turn2.map((message) => message.parts));
    // A second tracker (a restarted app) reads what the session holds.
    expect(await createHistoryTracker(session).unseen(turn2)).toEqual([]);
  });
});
