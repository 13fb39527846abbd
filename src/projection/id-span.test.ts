import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/types.ts';
import { applyStrategy } from '../strategies/apply-strategy.ts';
import { protectedIds } from '../strategies/protect.ts';
import { groupUnits } from '../strategies/tool-groups.ts';
import { truncate } from '../strategies/truncate.ts';
import type { StrategyContext } from '../strategies/types.ts';
import { emptyFactLists } from '../summarize/ledger.ts';
import { formatSummaryMessage, parseSummaryMessage } from '../summarize/summary-message.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { chatfoldMetadata } from './chatfold-metadata.ts';
import { formatIdSpan, parseIdSpan } from './id-span.ts';

const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/);

describe('id spans (issue 21, recall)', () => {
  it('one id reads back as itself, a span as its two ends', () => {
    fc.assert(
      fc.property(id, id, (first, last) => {
        const text = formatIdSpan(first, last);
        expect(parseIdSpan(text)).toEqual({ firstId: first, lastId: last });
        if (first === last) expect(text).toBe(first);
      }),
    );
  });

  it('a summary names the ids it covers and reads them back', () => {
    const text = formatSummaryMessage({
      text: 'We fixed the parser.',
      ledger: emptyFactLists(),
      messagesSummarized: 12,
      ids: 'gw-a1..gw-b2',
    });
    expect(text.split('\n')[0]).toBe('[chatfold summary of 12 earlier messages (ids gw-a1..gw-b2)]');
    expect(parseSummaryMessage(text)).toMatchObject({ messagesSummarized: 12, ids: 'gw-a1..gw-b2' });
    // Summaries written before ids were named still read.
    expect(parseSummaryMessage('[chatfold summary of 3 earlier messages]\nold')).toMatchObject({
      text: 'old',
      messagesSummarized: 3,
    });
  });
});

describe('omission markers name the ids they stand for', () => {
  const counter = createMockTokenCounter();
  const messages = buildConversation()
    .system('system')
    .user('goal')
    .assistant('a'.repeat(2000))
    .user('b'.repeat(2000))
    .assistant('c'.repeat(2000))
    .user('latest')
    .build();
  const context: StrategyContext = {
    counter,
    target: 600,
    budget: 600,
    reservedTokens: 0,
    protectedIds: protectedIds(messages, groupUnits(messages), { keepRecent: 1 }),
  };
  const markerOf = async (marker?: string): Promise<Message> => {
    const result = await applyStrategy(truncate(marker === undefined ? {} : { marker }), messages, context);
    return result.messages.find((m) => chatfoldMetadata(m)?.transform === 'marker') as Message;
  };

  it("chatfold's wording names them inline", async () => {
    expect((await markerOf()).parts).toEqual([
      {
        type: 'text',
        text: '[chatfold: 2 earlier messages omitted here to fit the context window; they are kept in the history (ids m2..m3)]',
      },
    ]);
  });

  it('a template places them with {ids}; without it they follow in a second part, the wording kept exactly', async () => {
    expect((await markerOf('[{count} dropped: {ids}]')).parts).toEqual([
      { type: 'text', text: '[2 dropped: m2..m3]' },
    ]);
    expect((await markerOf('[{count} earlier messages truncated to fit context window]')).parts).toEqual([
      { type: 'text', text: '[2 earlier messages truncated to fit context window]' },
      { type: 'text', text: '[ids m2..m3: chatfold_recall returns them]' },
    ]);
  });
});
