import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/types.ts';
import { chatfoldMetadata } from '../projection/chatfold-metadata.ts';
import { clipText } from '../projection/clip-text.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { applyStrategy, withProjection } from './apply-strategy.ts';
import { clip } from './clip.ts';
import { importance } from './importance.ts';
import { mask } from './mask.ts';
import { protectedIds } from './protect.ts';
import { groupUnits } from './tool-groups.ts';
import { fitToBudget, truncate } from './truncate.ts';
import type { StrategyContext, StrategyResult } from './types.ts';

const counter = createMockTokenCounter();

function contextFor(
  messages: readonly Message[],
  target: number,
  budget = target,
  keepRecent = 2,
): StrategyContext {
  return {
    counter,
    target,
    budget,
    reservedTokens: 0,
    protectedIds: protectedIds(messages, groupUnits(messages), { keepRecent }),
  };
}

function agentRun(rounds: number): Message[] {
  const builder = buildConversation()
    .system('You are a coding agent.')
    .user('Fix the failing test in src/app.ts');
  for (let i = 0; i < rounds; i++) {
    builder.assistant(`Step ${i}: I will look at file ${i}.`).toolRound([
      {
        name: 'Read',
        args: { file_path: `src/file${i}.ts` },
        result: `export const v${i} = ${i};\n`.repeat(40),
      },
      {
        name: 'Bash',
        args: { command: `grep -n v${i} src` },
        result: `src/file${i}.ts:1:v${i}\n`.repeat(10),
      },
    ]);
  }
  return builder.user('Thanks, now run the tests').build();
}

describe('groupUnits', () => {
  it('keeps a tool call and its parallel results together', () => {
    const messages = agentRun(2);
    const units = groupUnits(messages);
    expect(units.map((u) => u.end - u.start)).toEqual([1, 1, 1, 3, 1, 3, 1]);
  });
});

describe('clip (STR-6)', () => {
  it('clips head and tail with a marker naming the removed size', () => {
    const text = `HEAD${'x'.repeat(10_000)}TAIL`;
    const out = clipText(text, 1000, 'm1');
    expect(out.startsWith('HEAD')).toBe(true);
    expect(out.endsWith('TAIL')).toBe(true);
    expect(out).toContain('chatfold clipped 9,008 of 10,008 characters');
  });

  it('never splits a surrogate pair', () => {
    const out = clipText('😀'.repeat(1000), 101, 'm1');
    expect(out.isWellFormed()).toBe(true);
  });

  it('clips only unprotected messages above their share of the budget', () => {
    const messages = buildConversation().user('goal').assistant('y'.repeat(40_000)).user('latest').build();
    const result = withProjection(
      messages,
      clip({ maxShare: 0.25 }).apply(messages, contextFor(messages, 1000, 4000, 1)) as StrategyResult,
    );
    if (result instanceof Promise) throw new Error('sync expected');
    expect(result.effect.clipped).toBe(1);
    const clipped = result.messages[1] as Message;
    expect(counter.countMessage(clipped)).toBeLessThanOrEqual(1000);
    expect(chatfoldMetadata(clipped)?.transform).toBe('clipped');
    expect(clipped.id).toBe(messages[1]?.id);
  });

  it('leaves an earlier summary to summarize: its marker and ledger survive', () => {
    const messages = buildConversation().user('goal').user('s'.repeat(40_000)).user('latest').build();
    const summary: Message = {
      ...(messages[1] as Message),
      metadata: { chatfold: { transform: 'summary', summarized: 12, source: 'extractive' } },
    };
    const withSummary = [messages[0] as Message, summary, messages[2] as Message];
    const result = withProjection(
      withSummary,
      clip({ maxShare: 0.05 }).apply(withSummary, contextFor(withSummary, 1000, 4000, 1)) as StrategyResult,
    );
    if (result instanceof Promise) throw new Error('sync expected');
    expect(result.effect.clipped).toBe(0);
    expect(result.messages[1]).toBe(summary);
  });
});

describe('mask (STR-2)', () => {
  it('replaces old tool outputs by a placeholder with tool name, arguments and size', async () => {
    const messages = agentRun(6);
    const result = await applyStrategy(
      mask({ keepRecent: 2 }),
      messages,
      contextFor(messages, Math.floor(counter.count(messages).total * 0.6)),
    );
    expect(result.effect.masked).toBeGreaterThan(0);
    const first = result.messages[4] as Message;
    const part = first.parts[0];
    expect(part?.type === 'tool-result' && part.content[0]?.type === 'text' && part.content[0].text).toMatch(
      /^\[output omitted by chatfold: Read \{"file_path":"src\/file0\.ts"\} returned 840 characters/,
    );
    // the newest two tool messages are untouched
    expect(result.messages.at(-2)).toBe(messages.at(-2));
    expect(result.messages.at(-3)).toBe(messages.at(-3));
  });

  it('stops as soon as the target is reached', async () => {
    const messages = agentRun(6);
    const total = counter.count(messages).total;
    const result = await applyStrategy(mask({ keepRecent: 0 }), messages, contextFor(messages, total - 100));
    expect(result.effect.masked).toBe(1);
  });

  it('leaves everything to later stages when masking alone cannot reach the target', async () => {
    const messages = agentRun(6);
    const result = await applyStrategy(mask({ keepRecent: 2 }), messages, contextFor(messages, 100));
    expect(result.messages).toBe(messages);
    expect(result.effect.notes).toEqual(['masking alone cannot reach the target; left to later stages']);
  });

  it('never masks exempt tools', async () => {
    const messages = agentRun(6);
    const target = Math.floor(counter.count(messages).total * 0.6);
    expect(
      (await applyStrategy(mask({ keepRecent: 0 }), messages, contextFor(messages, target))).effect.masked,
    ).toBeGreaterThan(0);
    const result = await applyStrategy(
      mask({ keepRecent: 0, exemptTools: ['Read', 'Bash'] }),
      messages,
      contextFor(messages, target),
    );
    expect(result.effect.masked).toBe(0);
    expect(result.messages).toBe(messages);
  });
});

describe('truncate (STR-3)', () => {
  it('keeps system prompt, goal and newest messages, with an omission marker, tool groups atomic', async () => {
    const messages = agentRun(10);
    const context = contextFor(messages, 1200);
    const result = await applyStrategy(truncate(), messages, context);
    const out = result.messages;
    expect(out[0]).toBe(messages[0]);
    expect(out[1]).toBe(messages[1]);
    expect(chatfoldMetadata(out[2] as Message)).toMatchObject({
      transform: 'marker',
      omitted: result.effect.dropped,
    });
    expect(out.at(-1)).toBe(messages.at(-1));
    expect(counter.count(out).total).toBeLessThanOrEqual(1200);
    // no tool message without its call right before it
    out.forEach((message, i) => {
      if (message.role === 'tool') expect(['assistant', 'tool']).toContain(out[i - 1]?.role);
    });
  });

  it('merges a previous marker into the new one', async () => {
    const messages = agentRun(10);
    const first = await applyStrategy(truncate(), messages, contextFor(messages, 3000));
    const second = await applyStrategy(truncate(), first.messages, contextFor(first.messages, 1200));
    const markers = second.messages.filter((m) => chatfoldMetadata(m)?.transform === 'marker');
    expect(markers).toHaveLength(1);
    expect(chatfoldMetadata(markers[0] as Message)?.omitted).toBe(
      first.effect.dropped + second.effect.dropped,
    );
  });

  it('fitToBudget clips protected messages when protection alone is too big, and refuses a giant system prompt', () => {
    const messages = buildConversation().system('s').user('g'.repeat(20_000)).build();
    const result = withProjection(messages, fitToBudget(messages, contextFor(messages, 1000)));
    expect(counter.count(result.messages).total).toBeLessThanOrEqual(1000);
    const huge = buildConversation().system('s'.repeat(20_000)).user('hi').build();
    expect(() => fitToBudget(huge, contextFor(huge, 1000))).toThrowError(
      expect.objectContaining({ code: 'E_BUDGET_IMPOSSIBLE' }),
    );
  });
});

describe('importance (STR-4)', () => {
  it('drops acknowledgements before long answers and user turns, with one marker, never growing the prompt', async () => {
    const messages = buildConversation()
      .user('goal: explain src/parser.ts')
      .assistant('ok')
      .assistant('The parser in src/parser.ts works like this: '.padEnd(600, '.'))
      .user('and the lexer?')
      .assistant('sure')
      .assistant('The lexer tokenizes input. '.padEnd(600, '.'))
      .user('thanks, last question')
      .build();
    const total = counter.count(messages).total;
    const result = await applyStrategy(importance(), messages, contextFor(messages, total - 4, total, 1));
    const kept = result.messages.map((m) => m.id);
    // Acknowledgements (lowest score) go first; user turns stay.
    expect(kept).not.toContain('m1');
    expect(kept).not.toContain('m4');
    expect(kept).toContain('m3');
    // The scattered drops are stood for by one marker, and the projection is smaller than before.
    const markers = result.messages.filter((m) => chatfoldMetadata(m)?.transform === 'marker');
    expect(markers).toHaveLength(1);
    expect(counter.count(result.messages).total).toBeLessThanOrEqual(total - 4);
  });

  it('does nothing when dropping cannot pay for its marker', async () => {
    const messages = buildConversation().user('goal').assistant('ok').user('next').build();
    const total = counter.count(messages).total;
    const result = await applyStrategy(importance(), messages, contextFor(messages, total - 1, total, 1));
    expect(result.messages).toEqual(messages);
  });
});
