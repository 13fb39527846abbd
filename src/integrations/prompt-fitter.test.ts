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

describe('createPromptFitter without a session', () => {
  it('keeps the window learned from an overflow for the model that reported it (RT-3)', async () => {
    // One OpenAI client (one fitter) calls several models.
    const fitter = createPromptFitter({});
    const long = fromOpenAI([
      { role: 'system', content: 'Be brief.' },
      ...Array.from({ length: 40 }, (_, i) => ({
        role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: `Turn ${i}: ${'a fairly long sentence about rivers and their sources. '.repeat(40)}`,
      })),
    ]);
    const small = await fitter.refit(
      { messages: long, model: 'gpt-4o-mini' },
      { provider: 'openai', limit: 8_000, message: 'context_length_exceeded' },
    );
    expect(small.length).toBeLessThan(long.length);
    const other = await fitter.fit({ messages: long, model: 'claude-sonnet-4-5' });
    expect(other).toEqual(long); // 200k window: nothing to compact
    const same = await fitter.fit({ messages: long, model: 'gpt-4o-mini' });
    expect(same.length).toBeLessThan(long.length); // still compacted for the model that overflowed
  });
});
