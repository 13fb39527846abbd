import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { Message } from '../messages/types.ts';
import { createCalibratedTokenCounter } from './calibrated-counter.ts';
import { createTokenCounter } from './create-token-counter.ts';
import { extendTokenCount } from './extend-count.ts';

const message = (i: number, text = `message number ${i} with some words`): Message => ({
  id: `m${i}`,
  role: i % 2 === 0 ? 'user' : 'assistant',
  createdAt: '2026-01-01T00:00:00.000Z',
  parts: [{ type: 'text', text }],
});

const tools = [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: {} } }];

describe('extendTokenCount (TOK-6: recount after an append costs the new message)', () => {
  it('equals a full recount, for every length, tools or not', () => {
    const counter = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    const history = Array.from({ length: 100 }, (_, i) => message(i));
    let count = counter.count(history.slice(0, 70), { tools });
    for (let n = 71; n <= 100; n++) {
      count = extendTokenCount(counter, count, [history[n - 1] as Message]);
      const full = counter.count(history.slice(0, n), { tools });
      expect(count.total).toBe(full.total);
      expect(count.tools).toBe(full.tools);
      expect(count.perMessage).toEqual(full.perMessage);
    }
  });

  it('counts only the appended messages (never reads the history again)', () => {
    const counter = createTokenCounter({ tokenizer: 'chars/4' });
    const seen: Message[] = [];
    const spy = {
      ...counter,
      countMessage: (m: Message) => {
        seen.push(m);
        return counter.countMessage(m);
      },
    };
    const history = Array.from({ length: 500 }, (_, i) => message(i));
    const count = spy.count(history);
    const next = extendTokenCount(spy, count, [message(500), message(501)]);
    expect(seen.map((m) => m.id)).toEqual(['m500', 'm501']);
    expect(next.total).toBe(counter.count([...history, message(500), message(501)]).total);
  });

  it('branches: extending an older count of a chain never changes a newer one', () => {
    const counter = createTokenCounter({ tokenizer: 'chars/4' });
    const base = counter.count([message(0)]);
    const a = extendTokenCount(counter, base, [message(1)]);
    const ab = extendTokenCount(counter, a, [message(2, 'b'.repeat(40))]);
    const ac = extendTokenCount(counter, a, [message(3, 'c'.repeat(400))]);
    expect(ab.perMessage).toEqual(
      counter.count([message(0), message(1), message(2, 'b'.repeat(40))]).perMessage,
    );
    expect(ac.perMessage).toEqual(
      counter.count([message(0), message(1), message(3, 'c'.repeat(400))]).perMessage,
    );
    expect(a.perMessage).toHaveLength(2);
  });

  it('takes new tool definitions, or drops them', () => {
    const counter = createTokenCounter({ tokenizer: 'openai:cl100k_base' });
    const count = counter.count([message(0)]);
    const withTools = extendTokenCount(counter, count, [message(1)], { tools });
    expect(withTools.total).toBe(counter.count([message(0), message(1)], { tools }).total);
    expect(extendTokenCount(counter, withTools, [], { tools: [] }).total).toBe(
      counter.count([message(0), message(1)]).total,
    );
  });

  it('works with a calibrated counter (adds its scaled message counts)', () => {
    const counter = createCalibratedTokenCounter(createTokenCounter({ tokenizer: 'chars/4' }));
    const history = Array.from({ length: 10 }, (_, i) => message(i));
    counter.recordUsage(history, { inputTokens: 300 });
    const count = counter.count(history);
    const next = extendTokenCount(counter, count, [message(10)]);
    expect(next.total).toBe(count.total + counter.countMessage(message(10)));
    expect(next.accuracy).toBe('calibrated');
  });

  it('rejects malformed appended messages, foreign counts and other tokenizers with typed errors', () => {
    const counter = createTokenCounter({ tokenizer: 'chars/4' });
    const count = counter.count([message(0)]);
    const codeOf = (run: () => unknown): string | undefined => {
      try {
        run();
      } catch (error) {
        return ChatfoldError.isInstance(error) ? error.code : `raw ${String(error)}`;
      }
      return undefined;
    };
    expect(codeOf(() => extendTokenCount(counter, count, [{ id: 'x' } as unknown as Message]))).toMatch(
      /^E_INVALID_MESSAGE/,
    );
    expect(codeOf(() => extendTokenCount(counter, null as never, []))).toBe('E_INVALID_OPTIONS');
    expect(codeOf(() => extendTokenCount(counter, { ...count, total: -1 }, []))).toBe('E_INVALID_OPTIONS');
    const other = createTokenCounter({ tokenizer: 'chars/3' });
    expect(codeOf(() => extendTokenCount(other, count, []))).toBe('E_TOKENIZER');
  });

  it('property: any split of a conversation into appends gives the full count', () => {
    const counter = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (texts, cuts) => {
          const messages = texts.map((text, i) => message(i, text));
          const points = [...new Set(cuts.map((c) => c % (messages.length + 1)))].sort((a, b) => a - b);
          let from = points[0] ?? 0;
          let count = counter.count(messages.slice(0, from));
          for (const to of [...points.slice(1), messages.length]) {
            count = extendTokenCount(counter, count, messages.slice(from, to));
            from = to;
          }
          const full = counter.count(messages);
          expect(count.total).toBe(full.total);
          expect(count.perMessage).toEqual(full.perMessage);
        },
      ),
      { numRuns: 200 },
    );
  });
});
