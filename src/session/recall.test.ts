import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { createChatfold } from './create-chatfold.ts';
import { answerRecall, RECALL_LIMITS } from './recall.ts';
import type { Session } from './types.ts';

// Issue 21, recall: the tool answers by the ids compaction texts name (one id or a span
// `first..last`) and by query, from the session's full history.

async function sessionWith(texts: readonly string[]): Promise<Session> {
  const session = await createChatfold({ window: 1_000_000, counter: createMockTokenCounter() }).session('s');
  await session.append(
    texts.map((text, i) => ({
      id: `m${i}`,
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      parts: [{ type: 'text' as const, text }],
    })),
  );
  return session;
}

/** The ids an answer shows, in order. */
const shownIds = (answer: string): string[] =>
  [...answer.matchAll(/^\[#\d+ \w+ id=(\S+) [\w-]+\]$/gm)].map((match) => match[1] as string);

/** The ids the answer's last line asks to request next, if any. */
function nextIds(answer: string): string[] | undefined {
  const more = /\[\d+ more messages? not shown: ask for ids (\[.*\])\]$/.exec(answer);
  return more === null ? undefined : (JSON.parse(more[1] as string) as string[]);
}

describe('answerRecall', () => {
  it('returns one message by its id, a span by its two ends, oldest first', async () => {
    const session = await sessionWith(['zero', 'one', 'two', 'three', 'four']);
    expect(shownIds(await answerRecall(session, { ids: ['m3'] }))).toEqual(['m3']);
    expect(shownIds(await answerRecall(session, '{"ids":["m1..m3"]}'))).toEqual(['m1', 'm2', 'm3']);
    // Reversed ends, a single id as a string, overlapping references: each message once.
    expect(shownIds(await answerRecall(session, { ids: ['m3..m1', 'm2', 'm4'] }))).toEqual([
      'm1',
      'm2',
      'm3',
      'm4',
    ]);
    expect(shownIds(await answerRecall(session, { ids: 'm0' }))).toEqual(['m0']);
    const answer = await answerRecall(session, { ids: ['m2'] });
    expect(answer).toBe('[#3 user id=m2 in-context]\ntwo');
  });

  it('says which ids are not in the history, and finds by query too', async () => {
    const session = await sessionWith(['the vault code is 7291', 'noted', 'something else']);
    const answer = await answerRecall(session, { ids: ['m1', 'nope', 'm0..ghost'], query: 'VAULT' });
    expect(shownIds(answer)).toEqual(['m0', 'm1']);
    expect(answer).toContain("[not in this conversation's history: nope, m0..ghost]");
    expect(await answerRecall(session, { ids: ['ghost'] })).toBe(
      'chatfold_recall: nothing found for {"ids":["ghost"]}',
    );
    expect(await answerRecall(session, '{not json')).toMatch(/^chatfold_recall: the arguments are not JSON/);
    expect(await answerRecall(session, {})).toMatch(/^chatfold_recall: give "ids"/);
  });

  it('a long message is clipped, and the answer stays within its character limit', async () => {
    const session = await sessionWith(Array.from({ length: 8 }, (_, i) => `${i}`.repeat(5_000)));
    const answer = await answerRecall(session, { ids: ['m0..m7'] });
    expect(answer).toContain(`… [${5_000 - RECALL_LIMITS.maxMessageChars} more characters]`);
    expect(answer.length).toBeLessThanOrEqual(RECALL_LIMITS.maxChars + 200);
    expect(nextIds(answer)).toEqual([`m${shownIds(answer).length}..m7`]);
  });

  it('following the "more" lines reaches every message a span or a query names, each once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 3_000 }), { minLength: 1, maxLength: 70 }),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 1, max: RECALL_LIMITS.maxMessages }),
        fc.boolean(),
        async (bodies, a, b, limit, byQuery) => {
          // Every third message mentions the needle: a query's matches are scattered.
          const texts = bodies.map((body, i) => (i % 3 === 0 ? `needle ${body}` : `hay${body}`));
          const session = await sessionWith(texts);
          const [from, to] = [a % texts.length, b % texts.length].sort((x, y) => x - y) as [number, number];
          const expected = byQuery
            ? texts.map((_, i) => i).filter((i) => i % 3 === 0 || /needle/i.test(texts[i] as string))
            : Array.from({ length: to - from + 1 }, (_, i) => from + i);
          let request: Record<string, unknown> = byQuery
            ? { query: 'needle', limit }
            : { ids: [`m${from}..m${to}`], limit };
          const seen: string[] = [];
          for (let round = 0; round < texts.length + 1; round++) {
            const answer = await answerRecall(session, request);
            seen.push(...shownIds(answer));
            const next = nextIds(answer);
            if (next === undefined) break;
            request = { ids: next, limit };
          }
          // A query's continuation may name a span that runs over non-matching messages in
          // between (past the named spans' limit): every match is there, once, in order.
          const wanted = expected.map((i) => `m${i}`);
          expect(seen.filter((id) => wanted.includes(id))).toEqual(wanted);
          expect(new Set(seen).size).toBe(seen.length);
          if (!byQuery) expect(seen).toEqual(wanted);
        },
      ),
      { numRuns: 120 },
    );
  });
});
