import { describe, expect, it } from 'vitest';
import { agentRun as sharedAgentRun } from '../../test/integrations/agent-run.ts';
import { compact } from '../compaction/compact.ts';
import type { CompactionEvent } from '../compaction/types.ts';
import type { Message } from '../messages/types.ts';
import { buildConversation } from './build-conversation.ts';
import { createMockTokenCounter } from './mock-token-counter.ts';

const agentRun = (rounds = 20): Message[] =>
  sharedAgentRun(rounds, 60, { system: 'You are a coding agent.' });

describe('createMockTokenCounter (TOK-1)', () => {
  it('counts ⌈chars / 4⌉ per text, 3 per message and 3 per prompt by default', () => {
    const counter = createMockTokenCounter();
    const messages = buildConversation().system('Be brief.').user('Fix the bug').build();
    expect(counter.countText('12345')).toBe(2);
    // 'Be brief.' = 3, 'Fix the bug' = 3, plus 3 per message and 3 for the prompt.
    expect(counter.count(messages)).toEqual({
      total: 15,
      perMessage: [6, 6],
      tools: 0,
      overhead: 3,
      tokenizer: 'mock',
      accuracy: 'exact',
    });
  });

  it('takes a number or a function per text, and its own overheads', () => {
    const messages = buildConversation().user('one two three').build();
    expect(createMockTokenCounter({ countText: 10, perMessage: 0, perPrompt: 0 }).count(messages).total).toBe(
      10,
    );
    const words = createMockTokenCounter({
      countText: (text) => text.split(' ').length,
      perMessage: 1,
      perPrompt: 2,
    });
    expect(words.count(messages).total).toBe(3 + 1 + 2);
    const tools = [{ name: 'Read', parameters: { type: 'object' } }];
    expect(words.count(messages, { tools }).tools).toBe(JSON.stringify(tools[0]).split(' ').length);
  });

  it('records the calls made to it by method, not the counts it makes itself', () => {
    const counter = createMockTokenCounter();
    const messages = buildConversation().user('hello').assistant('hi').build();
    counter.countText('x');
    counter.countMessage(messages[0] as Message);
    counter.count(messages);
    expect(counter.calls.countText).toEqual(['x']);
    expect(counter.calls.countMessage).toEqual([messages[0]]);
    expect(counter.calls.count).toEqual([[messages, undefined]]);
    expect(counter.calls.countExact).toEqual([]);
    expect(counter.countExact).toBeUndefined();
  });

  it('stands in for a provider count endpoint: compaction takes its exact count near the trigger', async () => {
    const counter = createMockTokenCounter({ accuracy: 'approximate', countExact: 9_999 });
    const messages = agentRun();
    const { plan } = await compact(messages, { counter, window: 8000, responseReserve: 1000 });
    expect(counter.calls.countExact).toHaveLength(1);
    expect(counter.calls.countExact[0]?.[0]).toEqual(messages); // the checked copy of the input (read once)
    expect(plan.tokensBefore).toBe(9_999);
    const exact = await counter.countExact?.(messages);
    expect(exact).toMatchObject({
      total: 9_999,
      accuracy: 'exact',
      perMessage: counter.count(messages).perMessage,
    });
  });

  it('answers countExact per call; an Error is a counter fault the compaction falls back from', async () => {
    const counter = createMockTokenCounter({
      accuracy: 'approximate',
      countExact: [new Error('429 rate limited'), 42],
    });
    const events: CompactionEvent[] = [];
    const { plan } = await compact(agentRun(), {
      counter,
      window: 8000,
      responseReserve: 1000,
      onEvent: (event) => events.push(event),
    });
    expect(plan.tokensBefore).toBe(counter.count(agentRun()).total);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'compaction-fallback',
        source: 'counter',
        reason: expect.stringContaining('429'),
      }),
    );
    await expect(counter.countExact?.(agentRun(1))).resolves.toMatchObject({ total: 42 });
  });

  it('countExact honours an aborted signal', async () => {
    const counter = createMockTokenCounter({ countExact: 1 });
    const controller = new AbortController();
    controller.abort();
    await expect(counter.countExact?.([], { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});
