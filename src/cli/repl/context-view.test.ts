import { describe, expect, it } from 'vitest';
import { POLICIES } from '../../policy/presets.ts';
import type { SessionStatus } from '../../session/types.ts';
import { compactCount, contextView, policyLines, triggerBar } from './context-view.ts';
import { createStyle } from './terminal.ts';

/** A status with seed 004's numbers; the fields /context does not print are filler. */
function status(change: Partial<SessionStatus>): SessionStatus {
  return {
    tokens: 45_000,
    budget: 180_000,
    window: 200_000,
    percent: 25,
    messagesSinceCompaction: 8,
    messagesTrigger: 30,
    tokensTrigger: 128_000,
    willCompactNextTurn: false,
    promptTokens: 45_000,
    policy: POLICIES['rolling-summary'],
    conditions: [],
    reason: 'no trigger fired',
    heldByFloor: false,
    accuracy: 'calibrated',
    tokenizer: 'anthropic:claude',
    sessionId: 'abc123',
    messagesInHistory: 52,
    messagesSummarized: 25,
    text: '52 messages in history (25 summarized)',
    compactions: 1,
    breakdown: {
      systemPrompt: 0,
      tools: 0,
      summary: 850,
      messages: 44_150,
      reservedOutput: 10_000,
      safetyMargin: 10_000,
      free: 135_000,
    },
    ...change,
  } as SessionStatus;
}

const summary = {
  messagesSummarized: 25,
  tokens: 850,
  createdAt: new Date(2024, 0, 15, 10, 30).toISOString(),
};

describe('/context (CLI-1, seed 004 scenarios 3 and 4)', () => {
  it('prints scenario 3 exactly, then the window line and which counts are exact', () => {
    const lines = contextView(status({ summary }), { model: 'claude-sonnet-4-5' });
    expect(lines.slice(0, 10).join('\n')).toBe(
      [
        '',
        'Context Status',
        '  Last summary: 25 messages → 850 tokens',
        '  Created: 2024-01-15 10:30',
        '',
        'Summarization Triggers (N messages OR K tokens)',
        '  Messages: 8 / 30 (27%)',
        '           [█████░░░░░░░░░░░░░░░]',
        '  Tokens:   45,000 / 128,000 (35%)',
        '           [███████░░░░░░░░░░░░░]',
      ].join('\n'),
    );
    expect(lines).not.toContain('  ⚡ Summarization will trigger on next message');
    expect(lines.slice(10, 14)).toEqual([
      '',
      'claude-sonnet-4-5 • 45k/200k tokens (23 %)',
      '  Message counts are exact; token counts are calibrated (estimate corrected by the provider-reported usage), tokenizer anthropic:claude',
      '  History: 52 messages in history (25 summarized)',
    ]);
    // Then the policy in force (nothing that decides is hidden).
    expect(lines[15]).toBe('Policy: rolling-summary');
  });

  it('prints scenario 4 exactly, with the ⚡ line when the next message will trigger', () => {
    const lines = contextView(
      status({ summary, messagesSinceCompaction: 28, tokens: 95_000, willCompactNextTurn: true }),
      { model: 'm' },
    );
    expect(lines.slice(6, 13).join('\n')).toBe(
      [
        '  Messages: 28 / 30 (93%)',
        '           [██████████████████░░]',
        '  Tokens:   95,000 / 128,000 (74%)',
        '           [██████████████░░░░░░]',
        '',
        '  ⚡ Summarization will trigger on next message',
        '',
      ].join('\n'),
    );
  });

  it('says when the server under-reports and the counts are chatfold’s own', () => {
    const fresh = contextView(
      status({ underReport: { reason: 'fresh-only', reported: 6, estimate: 172 }, tokens: 172 }),
      { model: 'm' },
    );
    expect(fresh).toContain('  Note: server reports fresh tokens only; counting locally');
    expect(fresh).toContain('  Tokens:   172 / 128,000 (0%)');
    const tools = contextView(
      status({ underReport: { reason: 'tools-excluded', reported: 6, estimate: 900 } }),
      { model: 'm' },
    );
    expect(tools).toContain(
      '  Note: server leaves the tool definitions out of its input tokens; counting locally',
    );
    expect(contextView(status({}), { model: 'm' }).some((line) => line.includes('Note:'))).toBe(false);
  });

  it('colours like seed 004 when the terminal has colours: cyan headings, dim labels, a yellow ⚡ line', () => {
    const lines = contextView(status({ summary, willCompactNextTurn: true }), {
      model: 'm',
      style: createStyle(true),
    });
    const cyan = (text: string) => `\u001b[36m${text}\u001b[39m`;
    const dim = (text: string) => `\u001b[2m${text}\u001b[22m`;
    expect(lines.slice(1, 6)).toEqual([
      cyan('Context Status'),
      `  ${dim('Last summary:')} 25 messages → 850 tokens`,
      `  ${dim('Created:')} 2024-01-15 10:30`,
      '',
      cyan('Summarization Triggers (N messages OR K tokens)'),
    ]);
    expect(lines).toContain('  \u001b[33m⚡ Summarization will trigger on next message\u001b[39m');
    expect(contextView(status({}), { model: 'm', style: createStyle(true) })[2]).toBe(
      `  ${dim('No summary yet')}`,
    );
    // Without colours (NO_COLOR, a pipe) the same text, no escapes.
    expect(contextView(status({ summary }), { model: 'm' }).join('\n')).not.toContain('\u001b');
  });

  it('says when there is no summary yet', () => {
    expect(contextView(status({}), { model: 'm' }).slice(1, 3)).toEqual([
      'Context Status',
      '  No summary yet',
    ]);
  });

  it('bars are 20 cells, one per 5 %, clamped', () => {
    expect(triggerBar(0)).toBe(`[${'░'.repeat(20)}]`);
    expect(triggerBar(99.9)).toBe(`[${'█'.repeat(19)}░]`);
    expect(triggerBar(250)).toBe(`[${'█'.repeat(20)}]`);
    expect(triggerBar(-5)).toBe(`[${'░'.repeat(20)}]`);
    expect([compactCount(950), compactCount(36_400), compactCount(1_048_576)]).toEqual(['950', '36k', '1M']);
  });

  it('shows the policy in force: window triggers, the budget, and a floor holding a trigger back', () => {
    const lines = policyLines(
      status({
        policy: { ...POLICIES['chat-app'], triggers: [{ fraction: 0.95 }, { messages: 10 }] },
        conditions: [
          { group: 0, kind: 'fraction', value: 1500, threshold: 190_000, percent: 0.8, holds: false },
          { group: 1, kind: 'messages', value: 17, threshold: 10, percent: 170, holds: true },
        ],
        heldByFloor: true,
      }),
    );
    expect(lines).toEqual([
      '',
      'Policy: chat-app',
      '  Window:   1,500 / 190,000 (1% of the 95 % trigger)',
      '           [░░░░░░░░░░░░░░░░░░░░]',
      '  Budget:   180,000 tokens for messages (reserve 10,000, margin 10,000, tools 0); a prompt over it is always compacted',
      '  Floor:    no automatic compaction below 2,000 tokens — holding a trigger back now',
    ]);
    expect(policyLines(status({ policy: { ...POLICIES.default, triggers: [] } }))).toContain(
      '  No automatic triggers: only a prompt that does not fit is compacted',
    );
  });
});
