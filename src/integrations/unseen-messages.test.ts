import { describe, expect, it } from 'vitest';
import { createRecordingSession } from '../../test/integrations/recording-session.ts';
import { fromOpenAI } from '../messages/openai.ts';
import type { Message } from '../messages/types.ts';
import { contentKeys, createHistoryTracker } from './unseen-messages.ts';

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
    const session = createRecordingSession('s');
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
