import { describe, expect, it } from 'vitest';
import { POLICIES } from '../policy/presets.ts';
import { contextToChatfoldOptions } from './context-options.ts';

describe('contextToChatfoldOptions (AG-1, TRG-2): one policy, and only what was set', () => {
  it('nothing set: the library default policy, with no message-count trigger', () => {
    const { policy } = contextToChatfoldOptions();
    expect(policy).toEqual(POLICIES.default);
    expect(policy.triggers.some((group) => group.messages !== undefined)).toBe(false);
  });

  it('history: truncate is the truncating agent policy (80 % → 70 %, marker), with no 30-messages trigger', () => {
    const { policy } = contextToChatfoldOptions({}, 'truncate');
    expect(policy).toEqual(POLICIES['agent-truncate']);
    expect(policy.triggers).toEqual([{ fraction: 0.8 }]);
    expect(contextToChatfoldOptions({}, 'summarize').policy).toEqual(POLICIES['agent-summarize']);
  });

  it('N or K set: the rolling summary, with the numbers given', () => {
    const { policy } = contextToChatfoldOptions({
      maxMessagesBeforeSummary: 15,
      maxTokensBeforeSummary: 32_000,
    });
    expect(policy.name).toBe('rolling-summary (customized)');
    expect(policy.triggers).toEqual([{ messages: 15 }, { tokens: 32_000 }]);
    expect(policy.retention).toEqual({ messages: 6 });
  });

  it('maps every setting onto its field', () => {
    const { policy } = contextToChatfoldOptions({
      maxMessagesBeforeSummary: 15,
      maxTokensBeforeSummary: 32_000,
      minRecentMessages: 4,
      responseReserve: 2048,
      threshold: 0.9,
      target: 0.4,
      retentionTokens: 500,
    });
    expect(policy).toMatchObject({
      triggers: [{ messages: 15 }, { tokens: 32_000 }, { fraction: 0.9 }],
      target: { fraction: 0.4 },
      responseReserve: 2048,
      retention: { messages: 4, tokens: 500 },
      protect: { recentMessages: 4 },
    });
  });

  it('a named policy is the base; a key overrides its field', () => {
    const { policy } = contextToChatfoldOptions({ policy: 'chat-app', threshold: 0.9, retentionTokens: 200 });
    expect(policy).toMatchObject({
      triggers: [{ fraction: 0.9 }],
      retention: { tokens: 200 },
      summary: { placement: 'system' },
    });
  });

  it('autoSummarize: false leaves no trigger (a prompt that does not fit still compacts)', () => {
    expect(
      contextToChatfoldOptions({ autoSummarize: false, maxMessagesBeforeSummary: 5 }).policy.triggers,
    ).toEqual([]);
  });

  it('another history name replaces the pipeline', () => {
    expect(contextToChatfoldOptions({}, 'importance').policy.pipeline).toEqual(['importance']);
  });

  it('teaches supersede the workspace tools (path argument, ranged reads)', () => {
    const supersede = contextToChatfoldOptions().strategyOptions?.supersede;
    expect(supersede?.tools?.read_file).toEqual({ kind: 'read', path: ['path'], range: ['offset', 'limit'] });
    expect(supersede?.tools?.edit_file).toMatchObject({ kind: 'edit', path: ['path'] });
    expect(supersede?.idempotentTools).toContain('search');
  });
});
