import { describe, expect, it } from 'vitest';
import { fromOpenAI } from '../messages/openai.ts';
import { createChatfold } from '../session/create-chatfold.ts';
import { createPromptFitter } from './prompt-fitter.ts';

describe('createPromptFitter with a session', () => {
  it('stores each message once when two calls with the same history run at the same time', async () => {
    const session = await createChatfold({ window: 100_000 }).session('parallel');
    const fitter = createPromptFitter({ session });
    const history = fromOpenAI([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Name three rivers.' },
    ]);
    const [a, b] = await Promise.all([fitter.fit({ messages: history }), fitter.fit({ messages: history })]);
    expect((await session.history()).map((row) => row.message.parts)).toEqual(
      history.map((message) => message.parts),
    );
    expect(a.length).toBe(history.length);
    expect(b.length).toBe(history.length);
  });
});
