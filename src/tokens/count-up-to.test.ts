import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/types.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { createCalibratedTokenCounter } from './calibrated-counter.ts';
import { countUpTo, estimatesOf, splitAtLimit, tokensAtMost } from './count-up-to.ts';
import { createTokenCounter, utf8Length } from './create-token-counter.ts';

const history = (texts: readonly string[]): Message[] => {
  const builder = buildConversation().system('you help');
  texts.forEach((text, i) => {
    if (i % 2 === 0) builder.user(text);
    else builder.assistant(text);
  });
  return builder.build();
};

describe('countUpTo (issue 19 §3: count only what decides)', () => {
  it('compares with every threshold up to its limit as the whole count does (property)', () => {
    const counter = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 300 }), { minLength: 0, maxLength: 40 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 0, max: 3000 }),
        (texts, limit, threshold) => {
          const messages = history(texts);
          const whole = counter.count(messages).total;
          const bounded = countUpTo(counter, messages, limit);
          if (bounded.exact) expect(bounded.total).toBe(whole);
          else {
            // Only a prompt above the limit is estimated, and the estimate stays above it.
            expect(whole).toBeGreaterThan(limit);
            expect(bounded.total).toBeGreaterThan(limit);
          }
          if (threshold <= limit) expect(bounded.total > threshold).toBe(whole > threshold);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('counts the newest messages only until they pass the limit', () => {
    const counter = createMockTokenCounter({ countText: (text) => text.length });
    const messages = history(Array.from({ length: 1000 }, (_, i) => `message ${i} `.padEnd(100, '.')));
    const bounded = countUpTo(counter, messages, 1000);
    expect(bounded.exact).toBe(false);
    // ~103 tokens a message: the newest ten pass 1,000; nothing older is counted.
    expect(counter.calls.countMessage.length).toBeLessThanOrEqual(11);
    expect(new Set(counter.calls.countMessage)).toEqual(
      new Set(messages.slice(-counter.calls.countMessage.length)),
    );
    // The estimate is in the right place: within a few percent of the whole count.
    const whole = counter.count(messages).total;
    expect(Math.abs(bounded.total - whole) / whole).toBeLessThan(0.05);
  });

  it('counts everything with an approximate counter, or without a finite limit', () => {
    const messages = history(Array.from({ length: 100 }, () => 'x'.repeat(50)));
    const approximate = createMockTokenCounter({ accuracy: 'approximate' });
    expect(countUpTo(approximate, messages, 10)).toEqual({
      total: approximate.count(messages).total,
      exact: true,
    });
    const exact = createMockTokenCounter();
    expect(countUpTo(exact, messages, Number.POSITIVE_INFINITY).exact).toBe(true);
    expect(splitAtLimit(exact, messages, Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('estimates only the messages it did not count', () => {
    const counter = createMockTokenCounter();
    const messages = history(Array.from({ length: 50 }, (_, i) => `m${i}`.padEnd(400, '-')));
    const split = splitAtLimit(counter, messages, 500);
    expect(split).toBeDefined();
    if (split === undefined) return;
    const estimate = estimatesOf(messages, split);
    messages.forEach((message, index) => {
      if (index < split.uncounted) expect(estimate(message)).toBeGreaterThan(0);
      else expect(estimate(message)).toBeUndefined();
    });
  });
});

describe('tokensAtMost', () => {
  const counters = [
    createTokenCounter({ tokenizer: 'openai:o200k_base' }),
    createTokenCounter({ tokenizer: 'openai:cl100k_base' }),
    createTokenCounter({ tokenizer: 'anthropic:claude' }),
    createTokenCounter({ tokenizer: 'google:gemini' }),
    createTokenCounter({ tokenizer: 'estimate:claude' }),
  ];

  it('is never below the count of chatfold byte-pair counters (property)', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'grapheme', maxLength: 100 }),
      fc.string({ unit: 'binary', maxLength: 100 }),
    );
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 6 }),
        fc.string({ maxLength: 20 }),
        (texts, name) => {
          const messages = buildConversation()
            .user(texts[0] as string)
            .toolRound([
              {
                name: name || 'Read',
                args: { file_path: texts[1] ?? '' },
                result: texts.slice(2).join('\n'),
              },
            ])
            .assistant(texts.at(-1) as string)
            .build();
          for (const counter of counters)
            for (const message of messages)
              expect(tokensAtMost(counter, message)).toBeGreaterThanOrEqual(counter.countMessage(message));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('scales with a calibrated counter, and is unknown for custom and approximate ones', () => {
    const [message] = history(['some text to count']);
    if (message === undefined) throw new Error('no message');
    const calibrated = createCalibratedTokenCounter(createTokenCounter({ tokenizer: 'openai:o200k_base' }));
    expect(tokensAtMost(calibrated, message)).toBeGreaterThanOrEqual(calibrated.countMessage(message));
    const custom = createTokenCounter({ tokenizer: 'mine', encode: (text) => text.length * 10 });
    expect(tokensAtMost(custom, message)).toBe(Number.POSITIVE_INFINITY);
    expect(tokensAtMost(createTokenCounter({ tokenizer: 'chars/4' }), message)).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(tokensAtMost(createMockTokenCounter(), message)).toBe(Number.POSITIVE_INFINITY);
  });

  it('utf8Length is what an encoder writes, lone surrogates included (property)', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(utf8Length(text)).toBe(encoder.encode(text).length);
      }),
      { numRuns: 500 },
    );
    expect(utf8Length('\ud800')).toBe(3);
    expect(utf8Length('\udc00x')).toBe(4);
    expect(utf8Length('😀')).toBe(4);
  });
});
