import fc from 'fast-check';
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

describe('createHistoryTracker across many calls', () => {
  /** What the tracker must find: every message of the prompt whose key the held history lacks. */
  const expectedUnseen = (held: readonly Message[], prompt: readonly Message[]) => {
    const keys = new Set(contentKeys(held));
    const promptKeys = contentKeys(prompt);
    return prompt.filter((_message, i) => !keys.has(promptKeys[i] ?? ''));
  };

  it("reusing the last prompt's keys finds exactly what keying every message would (resent, edited, replies)", async () => {
    const texts = ['yes', 'no', 'run the tests', 'done'];
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('extend' as const),
        texts: fc.array(fc.constantFrom(...texts), { maxLength: 4 }),
      }),
      fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), text: fc.constantFrom(...texts) }),
      fc.record({ kind: fc.constant('reply' as const), text: fc.constantFrom(...texts) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const session = createRecordingSession('p');
        const tracker = createHistoryTracker(session);
        let prompt: { role: 'user' | 'assistant'; content: string }[] = [];
        for (const next of steps) {
          if (next.kind === 'extend')
            prompt = [...prompt, ...next.texts.map((content) => ({ role: 'user' as const, content }))];
          else if (next.kind === 'edit' && prompt.length > 0)
            prompt = prompt.map((message, i) =>
              i === next.at % prompt.length ? { ...message, content: next.text } : message,
            );
          const neutral = fromOpenAI(prompt);
          const held = session.rows.map((row) => row.message);
          if (next.kind === 'reply') {
            const reply = fromOpenAI([{ role: 'assistant', content: next.text }])[0] as Message;
            const isNew = expectedUnseen(held, [...neutral, reply]).includes(reply);
            const stored = await tracker.appendReply(neutral, reply);
            expect(stored !== undefined).toBe(isNew);
            if (stored !== undefined) prompt = [...prompt, { role: 'assistant', content: next.text }];
            continue;
          }
          const expected = expectedUnseen(held, neutral);
          const stored = await tracker.appendUnseen(neutral);
          expect(stored.map((message) => message.parts)).toEqual(expected.map((message) => message.parts));
        }
      }),
      { numRuns: 200 },
    );
  });
});
