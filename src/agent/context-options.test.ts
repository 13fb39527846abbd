import { describe, expect, it } from 'vitest';
import { AGENT_CONTEXT_DEFAULTS, contextToChatfoldOptions } from './context-options.ts';

describe('contextToChatfoldOptions (AG-1, TRG-2)', () => {
  it('defaults: 80 % OR seed 004 N = 30 messages OR K = 128,000 tokens; 6 recent messages kept', () => {
    const options = contextToChatfoldOptions();
    expect(options.triggers).toEqual([{ fraction: 0.8 }, { messages: 30 }, { tokens: 128_000 }]);
    expect(options).toMatchObject({ target: 0.5, strategy: 'hybrid', protect: { keepRecent: 6 } });
    expect(options.strategyOptions?.summarize).toEqual({ retentionTokens: 1000, retentionMessages: 6 });
    expect(AGENT_CONTEXT_DEFAULTS.maxMessagesBeforeSummary).toBe(30);
  });

  it('maps every seed 004 setting', () => {
    const options = contextToChatfoldOptions(
      {
        maxMessagesBeforeSummary: 15,
        maxTokensBeforeSummary: 32_000,
        minRecentMessages: 4,
        responseReserve: 2048,
        threshold: 0.9,
        target: 0.4,
        retentionTokens: 500,
      },
      'summarize',
    );
    expect(options).toMatchObject({
      triggers: [{ fraction: 0.9 }, { messages: 15 }, { tokens: 32_000 }],
      target: 0.4,
      responseReserve: 2048,
      strategy: 'summarize',
      protect: { keepRecent: 4 },
      strategyOptions: { summarize: { retentionTokens: 500, retentionMessages: 4 } },
    });
  });

  it('autoSummarize: false compacts only a prompt that no longer fits', () => {
    expect(contextToChatfoldOptions({ autoSummarize: false, maxMessagesBeforeSummary: 5 }).triggers).toEqual([
      { fraction: 1 },
    ]);
  });

  it('teaches supersede the workspace tools (path argument, ranged reads)', () => {
    const supersede = contextToChatfoldOptions().strategyOptions?.supersede;
    expect(supersede?.tools?.read_file).toEqual({ kind: 'read', path: ['path'], range: ['offset', 'limit'] });
    expect(supersede?.tools?.edit_file).toMatchObject({ kind: 'edit', path: ['path'] });
    expect(supersede?.idempotentTools).toContain('search');
  });
});
