import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compact } from '../compaction/compact.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { Message } from '../messages/types.ts';
import { summarize } from '../strategies/summarize.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { counterFor } from '../tokens/count-tokens.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { EMPTY_LEDGER } from './ledger.ts';
import { summarizeSpan } from './summarize-span.ts';
import type { SummaryRequest } from './types.ts';

// Issue 19 item 5: the summarizer's input is cut by its own window (tokens of its own counter),
// oldest messages first, the earlier summary and the ledger kept, and the request (prompt plus
// the answer asked for) never exceeds that window.

const counter = createMockTokenCounter();
/** A different tokenizer for the summarizer: one token per 2 characters (twice the default's count). */
const summarizerCounter = createMockTokenCounter({ countText: (text) => Math.ceil(text.length / 2) });

function longSpan(rounds: number): Message[] {
  const builder = buildConversation().user('Migrate the service to the new queue');
  for (let i = 0; i < rounds; i++) {
    builder.toolRound([
      {
        name: 'Bash',
        args: { command: `npm test -- shard-${i}` },
        result: `shard ${i}: ${'ok '.repeat(200)}`,
      },
    ]);
    builder.assistant(`Shard ${i} passes; moving on to shard ${i + 1} of the migration.`);
  }
  return builder.build();
}

const previousSummary = {
  text: 'EARLIER-SUMMARY: the queue client was rewritten in src/queue.ts and the old broker removed.',
  ledger: { ...EMPTY_LEDGER, filesModified: ['src/queue.ts'] },
};

function recordingSummarizer() {
  const requests: SummaryRequest[] = [];
  const summarizer = async (request: SummaryRequest) => {
    requests.push(request);
    return 'A summary of the migration work that is long enough to be accepted by the checks.';
  };
  return { requests, summarizer };
}

const promptTokens = (request: SummaryRequest, tokens: TokenCounter = summarizerCounter): number =>
  tokens.countText(request.prompt.system) + tokens.countText(request.prompt.user);

describe('the summarizer is bounded by its own window', () => {
  it('cuts the oldest messages, keeps the earlier summary and the ledger, and says so', async () => {
    const messages = longSpan(60);
    const { requests, summarizer } = recordingSummarizer();
    const window = 4000;
    const result = await summarizeSpan({
      messages,
      previousSummary,
      summarizer,
      variant: 'code',
      maxTokens: 500,
      timeoutMs: 1000,
      counter,
      summarizerWindow: window,
      summarizerCounter,
    });
    expect(result.source).toBe('llm');
    const [request] = requests as [SummaryRequest];
    // The whole request, in the summarizer's tokens: the prompt and the answer asked for.
    expect(promptTokens(request) + request.maxTokens).toBeLessThanOrEqual(window);
    // The whole span would not have fit: this is a real cut.
    expect(request.messages.length).toBeLessThan(messages.length);
    expect(request.messages.at(-1)).toBe(messages.at(-1));
    expect(request.prompt.user).toContain(previousSummary.text);
    expect(request.prompt.user).toContain(
      `${messages.length - request.messages.length} earlier messages were left out`,
    );
    // The newest message is in the prompt, the oldest shard is not; the ledger still names it.
    expect(request.prompt.user).toContain('Shard 59 passes');
    expect(request.prompt.user).not.toContain('Shard 0 passes');
    expect(request.prompt.user).toContain('- npm test -- shard-0');
    expect(result.ledger.commands).toContain('npm test -- shard-0');
  });

  it('leaves the prompt whole when it fits', async () => {
    const messages = longSpan(3);
    const { requests, summarizer } = recordingSummarizer();
    await summarizeSpan({
      messages,
      summarizer,
      variant: 'code',
      maxTokens: 300,
      timeoutMs: 1000,
      counter,
      summarizerWindow: 100_000,
    });
    expect(requests[0]?.messages).toEqual(messages);
    expect(requests[0]?.prompt.user).not.toContain('left out here');
  });

  it('property: any span and window: the request fits, or no request is made and the fallback says why', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 50, max: 6000 }),
        fc.integer({ min: 64, max: 800 }),
        fc.boolean(),
        async (rounds, window, maxTokens, withPrevious) => {
          const { requests, summarizer } = recordingSummarizer();
          const result = await summarizeSpan({
            messages: longSpan(rounds),
            ...(withPrevious ? { previousSummary } : {}),
            summarizer,
            variant: 'code',
            maxTokens,
            timeoutMs: 1000,
            counter,
            summarizerWindow: window,
            summarizerCounter,
          });
          if (requests.length === 0) {
            expect(result.source).toBe('extractive');
            expect(result.fallbackReason).toMatch(/summarizer's window/);
          } else {
            const request = requests[0] as SummaryRequest;
            expect(promptTokens(request) + maxTokens).toBeLessThanOrEqual(window);
            // The earlier summary is the last thing to give way: whole whenever the window holds it.
            if (withPrevious && window - maxTokens > 1500)
              expect(request.prompt.user).toContain(previousSummary.text);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is set through strategyOptions.summarize and defaults to the compacting model’s window', async () => {
    // Far over the window (an overflow): the span alone is larger than the compacting model's window.
    const messages = longSpan(300);
    const tokenizer = counterFor('openai:o200k_base');
    expect(tokenizer.count(messages).total).toBeGreaterThan(40_000);
    for (const summarizerWindow of [undefined, 3000]) {
      const { requests, summarizer } = recordingSummarizer();
      const window = 16_000;
      const { plan } = await compact(messages, {
        window,
        counter: tokenizer,
        summarizer,
        ...(summarizerWindow === undefined ? {} : { strategyOptions: { summarize: { summarizerWindow } } }),
      });
      expect(plan.compacted).toBe(true);
      const [request] = requests as [SummaryRequest];
      expect(promptTokens(request, tokenizer) + request.maxTokens).toBeLessThanOrEqual(
        summarizerWindow ?? window,
      );
      expect(request.prompt.user).toContain('earlier messages were left out');
      expect(plan.summary?.source).toBe('llm');
    }
  });

  it('rejects a window that is not a positive integer, naming the option', () => {
    for (const summarizerWindow of [0, -5, 1.5, Number.NaN]) {
      expect(() => summarize({ summarizerWindow })).toThrow(
        expect.objectContaining({
          code: 'E_INVALID_OPTIONS',
          details: expect.objectContaining({ option: 'summarize.summarizerWindow' }),
        }),
      );
    }
    expect(() => summarize({ summarizerCounter: {} as never })).toThrow(ChatfoldError);
  });
});
