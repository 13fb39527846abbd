import { describe, expect, it } from 'vitest';
import { agentRun as sharedAgentRun } from '../../test/integrations/agent-run.ts';
import { compact } from '../compaction/compact.ts';
import type { CompactionEvent } from '../compaction/types.ts';
import type { Message } from '../messages/types.ts';
import type { SummaryRequest } from '../summarize/types.ts';
import { createMockSummarizer } from './mock-summarizer.ts';
import { createMockTokenCounter } from './mock-token-counter.ts';

const options = { counter: createMockTokenCounter(), window: 8000, responseReserve: 1000 } as const;

/** An agent run long enough that a compaction summarizes its older rounds. */
const agentRun = (rounds = 20): Message[] =>
  sharedAgentRun(rounds, 60, { system: 'You are a coding agent.' });

/** A request as the compaction builds it, for calling the double directly. */
function request(overrides: Partial<SummaryRequest> = {}): SummaryRequest {
  const empty: readonly string[] = [];
  return {
    messages: agentRun(1),
    ledger: {
      filesRead: empty,
      filesModified: empty,
      commands: empty,
      urls: empty,
      identifiers: empty,
      numbers: empty,
      errors: empty,
    },
    variant: 'code',
    maxTokens: 500,
    prompt: { system: 'Summarize.', user: 'The conversation' },
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('createMockSummarizer (SUM-5)', () => {
  it('answers every compaction with the same summary and records what it was asked', async () => {
    const summarizer = createMockSummarizer('The agent read src/module0.ts to src/module19.ts.');
    const { plan } = await compact(agentRun(), { ...options, summarizer });
    expect(plan.summary).toMatchObject({
      text: 'The agent read src/module0.ts to src/module19.ts.',
      source: 'llm',
    });
    expect(summarizer.calls).toHaveLength(1);
    expect(summarizer.calls[0]?.prompt.user).toContain('src/module3.ts');
    expect(summarizer.calls[0]?.messages.length).toBeGreaterThan(0);
  });

  it('reports the model of a { text, model } answer in the plan', async () => {
    const text = 'The agent read the twenty files one by one.';
    const summarizer = createMockSummarizer({ text, model: 'gpt-4o-mini' });
    const { plan } = await compact(agentRun(), { ...options, summarizer });
    expect(plan.summary).toMatchObject({ text, model: 'gpt-4o-mini', source: 'llm' });
  });

  it('answers from a function of the request', async () => {
    const summarizer = createMockSummarizer(
      (req) => `The agent's work so far, over ${req.messages.length} messages.`,
    );
    const { plan } = await compact(agentRun(), { ...options, summarizer });
    expect(plan.summary?.text).toBe(
      `The agent's work so far, over ${summarizer.calls[0]?.messages.length} messages.`,
    );
  });

  it('fails the calls whose answer is an Error: the compaction falls back to the extractive summary (RT-4)', async () => {
    const summarizer = createMockSummarizer([
      new Error('503 Service Unavailable'),
      'The second try worked: twenty files were read.',
    ]);
    const events: CompactionEvent[] = [];
    const first = await compact(agentRun(), { ...options, summarizer, onEvent: (e) => events.push(e) });
    expect(first.plan.summary?.source).toBe('extractive');
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'compaction-fallback',
        source: 'summarizer',
        reason: expect.stringContaining('503'),
      }),
    );
    const second = await compact(agentRun(), { ...options, summarizer });
    expect(second.plan.summary).toMatchObject({
      text: 'The second try worked: twenty files were read.',
      source: 'llm',
    });
    expect(summarizer.calls).toHaveLength(2);
  });

  it('fails a call past the end of its per-call answers with E_INVALID_OPTIONS', async () => {
    const summarizer = createMockSummarizer(['only one']);
    await expect(summarizer(request())).resolves.toBe('only one');
    await expect(summarizer(request())).rejects.toMatchObject({
      code: 'E_INVALID_OPTIONS',
      message: expect.stringMatching(/call 2 has no scripted answer \(1 given\)/),
    });
  });

  it('streams the summary through onDelta, word by word, as compaction-progress events', async () => {
    const text = 'The agent read twenty files and found the failing assertion.';
    const summarizer = createMockSummarizer(text, { stream: true });
    const deltas: string[] = [];
    const { plan } = await compact(agentRun(), {
      ...options,
      summarizer,
      onEvent: (event) => {
        if (event.type === 'compaction-progress' && event.delta !== undefined) deltas.push(event.delta);
      },
    });
    expect(deltas.length).toBe(text.split(' ').length);
    expect(deltas.join('')).toBe(text);
    expect(plan.summary?.text).toBe(text);
  });

  it('does not stream without stream: true', async () => {
    const deltas: string[] = [];
    await createMockSummarizer('a b c')(request({ onDelta: (delta) => deltas.push(delta) }));
    expect(deltas).toEqual([]);
  });

  it('hangs until the compaction is aborted, then rejects with the abort reason', async () => {
    const summarizer = createMockSummarizer('never sent', { delayMs: Number.POSITIVE_INFINITY });
    const controller = new AbortController();
    const pending = compact(agentRun(), { ...options, summarizer, signal: controller.signal });
    await expect.poll(() => summarizer.calls.length).toBe(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(summarizer.calls[0]?.signal.aborted).toBe(true);
  });

  it('waits delayMs before answering, and stops streaming when aborted mid-summary', async () => {
    const controller = new AbortController();
    const deltas: string[] = [];
    const summarizer = createMockSummarizer('one two three four', { stream: true, delayMs: 5 });
    const pending = summarizer(
      request({
        signal: controller.signal,
        onDelta: (delta) => {
          deltas.push(delta);
          if (deltas.length === 2) controller.abort(new Error('user pressed Esc'));
        },
      }),
    );
    await expect(pending).rejects.toThrow('user pressed Esc');
    expect(deltas).toEqual(['one ', 'two ']);
  });
});
