import { describe, expect, it } from 'vitest';
import { agentFolders, loadAgentFile } from '../../src/agent/agent-file/find-agents.ts';
import { createAgent } from '../../src/agent/create-agent.ts';
import { createLanguageModel } from '../../src/agent/language-model.ts';
import type { AgentOptions } from '../../src/agent/types.ts';
import { ChatfoldError } from '../../src/errors/chatfold-error.ts';
import { createMockLanguageModel } from '../../src/test/mock-language-model.ts';
import { createCalibratedTokenCounter } from '../../src/tokens/calibrated-counter.ts';
import { createTokenCounter } from '../../src/tokens/create-token-counter.ts';
import type { TokenCounter } from '../../src/tokens/types.ts';

// Issue 18 item 4: createAgent rejects unknown keys (E_INVALID_OPTIONS naming the key with a
// did-you-mean) instead of ignoring them; a custom counter is honoured, never dropped.

async function rejection(options: unknown): Promise<ChatfoldError> {
  try {
    await createAgent(options as AgentOptions);
  } catch (error) {
    if (ChatfoldError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('createAgent accepted the options');
}

const model = () => createMockLanguageModel('Hello.');

describe('createAgent options are strict (E_INVALID_OPTIONS)', () => {
  it.each([
    [
      { context: { maxMessagesBeforeSumary: 5 } },
      'createAgent: unknown option "maxMessagesBeforeSumary" (did you mean maxMessagesBeforeSummary?) in context',
    ],
    [{ maxStep: 3 }, 'createAgent: unknown option "maxStep" (did you mean maxSteps?)'],
    [{ instruction: 'Be brief.' }, 'createAgent: unknown option "instruction" (did you mean instructions?)'],
    [
      { context: { max_tokens_before_summary: 9000 } },
      'createAgent: unknown option "max_tokens_before_summary" (did you mean maxTokensBeforeSummary?) in context',
    ],
    [
      { hooks: { beforeCompaction: () => undefined } },
      'createAgent: unknown option "beforeCompaction" (did you mean beforeCompact?) in hooks',
    ],
    [{ colour: 'blue' }, 'createAgent: unknown option "colour"'],
  ])('%j → %s', async (extra, message) => {
    const error = await rejection({ model: model(), ...extra });
    expect(error.code).toBe('E_INVALID_OPTIONS');
    expect(error.message).toBe(message);
  });

  it('checks a model spec key by key', async () => {
    const error = await rejection({
      model: {
        provider: 'openai-compatible',
        name: 'qwen2.5:32b',
        baseURL: 'http://127.0.0.1:1/v1',
        maxInputToken: 32_000,
      },
    });
    expect(error.message).toBe(
      'createAgent: unknown option "maxInputToken" (did you mean maxInputTokens?) in model',
    );
    expect((await rejection({ model: { provider: 'mistral', name: 'large' } })).message).toMatch(
      /^createAgent: model\.provider: .*received "mistral"$/,
    );
  });

  it('refuses a counter that is not one, and a context value of the wrong type', async () => {
    expect((await rejection({ model: model(), counter: { count: () => 1 } })).message).toMatch(
      /^createAgent: counter: expected a token counter \(an object with count, countMessage, countText\)/,
    );
    expect((await rejection({ model: model(), context: { minRecentMessages: 'six' } })).message).toMatch(
      /^createAgent: context\.minRecentMessages: .*received "six"$/,
    );
  });

  it('honours a custom counter: the session counts with it', async () => {
    const base = createTokenCounter({ tokenizer: 'chars/4' });
    let calls = 0;
    const counter: TokenCounter = {
      tokenizer: 'test:doubling',
      accuracy: 'exact',
      countText: (text) => base.countText(text) * 2,
      countMessage: (message) => {
        calls++;
        return base.countMessage(message) * 2;
      },
      count: (messages, options) => {
        calls++;
        const counted = base.count(messages, options);
        return { ...counted, total: counted.total * 2, tokenizer: 'test:doubling', accuracy: 'exact' };
      },
    };
    const agent = await createAgent({ model: model(), counter });
    for await (const event of agent.run('Hello there')) if (event.type === 'error') throw event.error;
    const status = await agent.session.status();
    expect(status.tokenizer).toBe('test:doubling');
    expect(calls).toBeGreaterThan(0);
  });
});

describe('the other public factories of chatfold/agent and the calibrated counter are strict too', () => {
  it('createLanguageModel: an unknown key of the spec, with a did-you-mean', async () => {
    await expect(
      createLanguageModel({
        provider: 'openai-compatible',
        name: 'm',
        baseUrl: 'http://127.0.0.1:1/v1',
      } as never),
    ).rejects.toMatchObject({
      code: 'E_INVALID_OPTIONS',
      message: 'createLanguageModel: unknown option "baseUrl" (did you mean baseURL?)',
    });
  });

  it('loadAgentFile and agentFolders: unknown search options', async () => {
    await expect(loadAgentFile('dev', { cdw: '/tmp' } as never)).rejects.toMatchObject({
      code: 'E_INVALID_OPTIONS',
      message: 'loadAgentFile: unknown option "cdw" (did you mean cwd?)',
    });
    expect(() => agentFolders({ enviroment: {} } as never)).toThrow(
      /^agentFolders: unknown option "enviroment"/,
    );
  });

  it('createCalibratedTokenCounter: refuses what is not a counter', () => {
    expect(() => createCalibratedTokenCounter({ count: () => 1 } as never)).toThrow(
      'createCalibratedTokenCounter: expected a token counter (an object with count, countMessage, countText), received an object without countMessage, countText',
    );
    expect(() => createCalibratedTokenCounter(undefined as never)).toThrow(/received undefined$/);
  });
});
