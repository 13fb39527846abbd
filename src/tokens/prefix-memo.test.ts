import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/types.ts';
import { createPrefixMemo } from './prefix-memo.ts';

const message = (id: number): Message => ({
  id: `m${id}`,
  role: 'user',
  createdAt: '',
  parts: [{ type: 'text', text: 'x'.repeat(id % 17) }],
});
const tokensOf = (m: Message): number => (m.parts[0]?.type === 'text' ? m.parts[0].text.length + 3 : 0);

describe('createPrefixMemo (TOK-6)', () => {
  it('counts only the messages after the list it counted last', () => {
    const counted: Message[] = [];
    const count = createPrefixMemo((m) => {
      counted.push(m);
      return tokensOf(m);
    });
    const history = Array.from({ length: 500 }, (_, i) => message(i));
    count(history);
    counted.length = 0;
    const next = message(500);
    const result = count([...history, next]);
    expect(counted).toEqual([next]);
    expect(result.perMessage()).toHaveLength(501);
    expect(result.sum).toBe([...history, next].reduce((sum, m) => sum + tokensOf(m), 0));
  });

  it('hands out arrays the caller may keep: a later count does not change them', () => {
    const count = createPrefixMemo(tokensOf);
    const history = Array.from({ length: 100 }, (_, i) => message(i));
    const first = count(history);
    const kept = first.perMessage();
    const copy = [...kept];
    kept.push(999);
    count([...history, message(100)]);
    expect(kept.slice(0, -1)).toEqual(copy);
    expect(count(history).perMessage()).toEqual(copy);
  });

  it('gives each result the counts of its own list, however late they are asked for', () => {
    const count = createPrefixMemo(tokensOf);
    const history = Array.from({ length: 100 }, (_, i) => message(i));
    const results = [count(history)];
    const grown = [...history, message(1000), message(1001)];
    results.push(count(grown));
    const replaced = [message(2000), ...grown.slice(1)];
    results.push(count(replaced));
    results.push(count([...replaced, message(3000)]));
    const lists = [history, grown, replaced, [...replaced, message(3000)]];
    results.forEach((result, i) => {
      expect(result.perMessage()).toEqual((lists[i] as Message[]).map(tokensOf));
    });
  });

  it('equals counting message by message for any sequence of appends, replacements and cuts (property)', () => {
    const operation = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 0, max: 80 }) }),
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('cut' as const), keep: fc.nat() }),
      fc.record({ kind: fc.constant('fresh' as const), count: fc.integer({ min: 0, max: 200 }) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 25 }), (operations) => {
        const count = createPrefixMemo(tokensOf);
        let next = 0;
        let list: Message[] = [];
        const results: { result: ReturnType<typeof count>; expected: number[] }[] = [];
        for (const op of operations) {
          if (op.kind === 'append')
            list = [...list, ...Array.from({ length: op.count }, () => message(next++))];
          else if (op.kind === 'replace' && list.length > 0) {
            list = [...list];
            list[op.at % list.length] = message(next++);
          } else if (op.kind === 'cut') list = list.slice(0, op.keep % (list.length + 1));
          else if (op.kind === 'fresh') list = Array.from({ length: op.count }, () => message(next++));
          const result = count(list);
          const expected = list.map(tokensOf);
          expect(result.sum).toBe(expected.reduce((a, b) => a + b, 0));
          results.push({ result, expected });
        }
        // Asked for only now, after every later count: still each list's own counts.
        for (const { result, expected } of results) expect(result.perMessage()).toEqual(expected);
      }),
    );
  });
});

describe('createPrefixMemo memory', () => {
  it('keeps no message of a long list alive once a short list was counted', async () => {
    const count = createPrefixMemo(tokensOf);
    let history: Message[] | undefined = Array.from({ length: 500 }, (_, i) => message(i));
    const watched = new WeakRef(history[250] as Message);
    count(history);
    count(history.slice(0, 3));
    history = undefined;
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    await new Promise((resolve) => setTimeout(resolve, 0)); // WeakRef targets live to the end of a job
    gc();
    expect(watched.deref()).toBeUndefined();
  });
});
