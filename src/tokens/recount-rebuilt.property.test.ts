/**
 * Counting a rebuilt list (issue 19 §3): a stateless caller sends its history again as new
 * objects with the same content (parsed from JSON, cloned, converted). The counter reads each
 * new message against the checked copy of the message at its place in the last list, and hands
 * back that copy when the content is the same — so these properties pin that a counter that
 * counted the original gives exactly what a fresh counter gives for the rebuilt list: the same
 * counts (total and per message), the same typed error (code and message) for malformed
 * input, the same outcome for inputs that answer a second read differently (proxies, getters)
 * with each property still read once, and non-plain objects still refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIES, shifty } from '../../test/hardening/shifty-input.ts';
import { CORRUPTIONS, corrupt, validConversation } from '../../test/malformed-messages.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { assertMessage } from '../messages/check-messages.ts';
import { createEngineCache } from '../messages/engine-cache.ts';
import { normalizeMessages } from '../messages/normalize.ts';
import type { Message } from '../messages/types.ts';
import { createTokenCounter, type TokenizerId } from './create-token-counter.ts';

const RUNS = 60;
const at = '2026-01-01T00:00:00.000Z';
const TOKENIZERS: readonly TokenizerId[] = ['anthropic:claude', 'openai:o200k_base', 'chars/4'];

/** Messages before the generated conversation: the prefix memo only keeps lists of 64 and more. */
const FILLER: readonly Message[] = Array.from({ length: 70 }, (_, i) => ({
  id: `f${i}`,
  role: i % 2 === 0 ? 'user' : 'assistant',
  createdAt: at,
  parts: [{ type: 'text', text: `filler ${i} ${'word '.repeat(i % 7)}` }],
  ...(i % 5 === 0 ? { metadata: { turn: i, tags: ['a', { deep: [i] }] } } : {}),
}));

const history = (conversation: readonly Message[]): Message[] => [...FILLER, ...conversation];

type Outcome =
  | { readonly total: number; readonly perMessage: readonly number[] }
  | { readonly code: string; readonly message: string };

function outcome(run: () => { total: number; perMessage: readonly number[] }): Outcome {
  try {
    const { total, perMessage } = run();
    return { total, perMessage: [...perMessage] };
  } catch (error) {
    if (ChatfoldError.isInstance(error)) return { code: error.code, message: error.message };
    throw error;
  }
}

/** The same content as new objects, the way a caller rebuilds it. */
function rebuild(messages: readonly Message[], how: 'json' | 'clone' | 'spread'): Message[] {
  if (how === 'json') return JSON.parse(JSON.stringify(messages)) as Message[];
  if (how === 'clone') return structuredClone(messages) as Message[];
  return messages.map((message) => ({ ...message, parts: message.parts.map((part) => ({ ...part })) }));
}

/** Edits of a rebuilt list: a new id (same counted content), a changed text, a dropped message. */
type Edit = { readonly kind: 'id' | 'text' | 'drop' | 'insert'; readonly at: number };
const edits = fc.array(
  fc.record({ kind: fc.constantFrom('id', 'text', 'drop', 'insert'), at: fc.nat({ max: 200 }) }),
  { maxLength: 4 },
) as fc.Arbitrary<Edit[]>;

function applyEdits(list: Message[], changes: readonly Edit[]): Message[] {
  const out = [...list];
  for (const { kind, at: where } of changes) {
    const index = where % out.length;
    const message = out[index] as Message;
    if (kind === 'id') out[index] = { ...message, id: `${message.id}-again` };
    else if (kind === 'text') out[index] = { ...message, parts: [{ type: 'text', text: 'changed text' }] };
    else if (kind === 'drop') out.splice(index, 1);
    else out.splice(index, 0, { id: `new${index}`, role: 'user', createdAt: at, parts: [] });
  }
  return out;
}

describe('a rebuilt list counts as the original (issue 19 §3)', () => {
  it('the same counts as a fresh counter, rebuilt by JSON, structuredClone or spread, edited or not (property)', () => {
    fc.assert(
      fc.property(
        validConversation,
        fc.constantFrom(...TOKENIZERS),
        fc.constantFrom('json', 'clone', 'spread'),
        edits,
        (conversation, tokenizer, how, changes) => {
          const original = history(conversation);
          const warm = createTokenCounter({ tokenizer });
          const first = outcome(() => warm.count(original));
          const rebuilt = applyEdits(rebuild(original, how as 'json'), changes);
          const again = outcome(() => warm.count(rebuilt));
          expect(again).toEqual(outcome(() => createTokenCounter({ tokenizer }).count(rebuilt)));
          if (changes.length === 0) expect(again).toEqual(first);
          // Rebuilt once more (the next request): still the same.
          expect(outcome(() => warm.count(rebuild(rebuilt, 'json')))).toEqual(again);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a rebuilt message is read against the checked copy at its place and, when equal, is that copy', () => {
    const cache = createEngineCache();
    const [message] = FILLER.slice(5, 6) as [Message];
    const checked = assertMessage(message, 0, 'test', { cache });
    const rebuilt = JSON.parse(JSON.stringify(message)) as Message;
    expect(assertMessage(rebuilt, 0, 'test', { cache, previous: message })).toBe(checked);
    expect(assertMessage(rebuilt, 0, 'test', { cache })).toBe(checked);
    const renamed = { ...rebuilt, id: 'other' };
    const other = assertMessage(renamed, 0, 'test', { cache, previous: checked });
    expect(other).not.toBe(checked);
    expect(other).toEqual(renamed);
    expect(Object.isFrozen(other) && Object.isFrozen(other.parts) && Object.isFrozen(other.metadata)).toBe(
      true,
    );
    // An empty object where the earlier copy had another key is not the earlier copy.
    const keyed = { ...rebuilt, metadata: { other: {} } };
    expect(assertMessage(keyed, 0, 'test', { cache, previous: checked }).metadata).toEqual({ other: {} });
  });

  it('malformed input fails with the same code and message as on a fresh counter (property)', () => {
    fc.assert(
      fc.property(
        validConversation,
        fc.array(
          fc.record({ name: fc.constantFrom(...Object.keys(CORRUPTIONS)), index: fc.nat({ max: 120 }) }),
          { minLength: 1, maxLength: 3 },
        ),
        fc.constantFrom<TokenizerId>('anthropic:claude', 'chars/4'),
        (conversation, corruptions, tokenizer) => {
          const original = history(conversation);
          const input = corrupt(original, corruptions) as Message[];
          const warm = createTokenCounter({ tokenizer });
          warm.count(original);
          const expected = outcome(() => createTokenCounter({ tokenizer }).count(input));
          expect(outcome(() => warm.count(input))).toEqual(expected);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a rebuilt list behind proxies that lie on later reads: read once, the same outcome as a fresh counter (property)', () => {
    fc.assert(
      fc.property(
        validConversation,
        fc.constantFrom(...LIES),
        fc.option(fc.integer({ min: 1, max: 600 }), { nil: undefined }),
        (conversation, lie, firstLie) => {
          const original = history(conversation);
          const warm = createTokenCounter({ tokenizer: 'openai:o200k_base' });
          const plain = outcome(() => warm.count(original));
          const mine = shifty(structuredClone(original), lie, firstLie);
          const theirs = shifty(structuredClone(original), lie, firstLie);
          const got = outcome(() => warm.count(mine.value as Message[]));
          expect(got).toEqual(
            outcome(() =>
              createTokenCounter({ tokenizer: 'openai:o200k_base' }).count(theirs.value as Message[]),
            ),
          );
          if (firstLie === undefined) {
            // Every first read honest: the original's counts, each property read exactly once.
            expect(got).toEqual(plain);
            expect(mine.log.most()).toBe(1);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a getter in a rebuilt message is read once and its first answer counted', () => {
    const original = history([
      { id: 'g', role: 'user', createdAt: at, parts: [{ type: 'text', text: 'first' }] },
    ]);
    const warm = createTokenCounter({ tokenizer: 'anthropic:claude' });
    const before = warm.count(original);
    let reads = 0;
    const part = {
      type: 'text',
      get text() {
        reads++;
        return reads === 1 ? 'first' : 'a much longer text than the first answer gave';
      },
    };
    const rebuilt = rebuild(original, 'json');
    rebuilt[rebuilt.length - 1] = { ...(rebuilt.at(-1) as Message), parts: [part as never] };
    const again = warm.count(rebuilt);
    expect(reads).toBe(1);
    expect(again.total).toBe(before.total);
    expect(again.perMessage).toEqual(before.perMessage);
    // Counted again (same objects, a single message): still from the first read.
    expect(warm.countMessage(rebuilt.at(-1) as Message)).toBe(before.perMessage.at(-1));
    expect(reads).toBe(1);
  });

  it('a rebuilt message that is not plain data is refused as on a fresh counter, not taken for the copy', () => {
    const original = history([]);
    const warm = createTokenCounter({ tokenizer: 'anthropic:claude' });
    warm.count(original);
    class Carrier {}
    // What the entry check refuses, and (the class instances: their own keys are copied and
    // checked, as on first sight) what it takes.
    const variants: [(message: Message) => unknown, string | undefined][] = [
      [
        (message) => ({ ...message, parts: Object.assign(Object.create({ extra: 1 }), message.parts) }),
        'E_INVALID_MESSAGE',
      ],
      [(message) => ({ ...message, createdAt: new Date(at) }), 'E_INVALID_MESSAGE'],
      [(message) => ({ ...message, metadata: { when: new Date(at) } }), 'E_INVALID_MESSAGE'],
      [(message) => ({ ...message, metadata: { turn: new Carrier() } }), 'E_INVALID_MESSAGE'],
      [(message) => Object.assign(new Carrier(), message), undefined],
      [
        (message) => ({ ...message, parts: message.parts.map((part) => Object.assign(new Carrier(), part)) }),
        undefined,
      ],
    ];
    for (const [variant, code] of variants) {
      const rebuilt = rebuild(original, 'json') as unknown[];
      rebuilt[10] = variant(rebuilt[10] as Message);
      const got = outcome(() => warm.count(rebuilt as Message[]));
      expect(got).toEqual(
        outcome(() => createTokenCounter({ tokenizer: 'anthropic:claude' }).count(rebuilt as Message[])),
      );
      expect('code' in got ? got.code : undefined).toBe(code);
    }
    // A null prototype is plain data: accepted, counted as the original.
    const rebuilt = rebuild(original, 'json');
    rebuilt[3] = Object.assign(Object.create(null), rebuilt[3]) as Message;
    expect(warm.count(rebuilt).total).toBe(
      createTokenCounter({ tokenizer: 'anthropic:claude' }).count(original).total,
    );
  });

  it("normalizeMessages output (checked under its own size limit) rebuilt is measured against the counter's", () => {
    const big = 'x'.repeat(16 * 1024 * 1024 + 1);
    const normalized = normalizeMessages(
      [...FILLER, { id: 'big', role: 'user', createdAt: at, parts: [{ type: 'text', text: big }] }],
      { maxMessageChars: 32 * 1024 * 1024 },
    );
    const counter = createTokenCounter({ tokenizer: 'chars/4' });
    // The normalized messages themselves are accepted whatever their size (checked already).
    expect(counter.count(normalized).total).toBeGreaterThan(4 * 1024 * 1024);
    const rebuilt = normalized.map((message) => ({ ...message }));
    const got = outcome(() => counter.count(rebuilt));
    expect('code' in got && got.code).toBe('E_MESSAGE_TOO_LARGE');
    expect(got).toEqual(outcome(() => createTokenCounter({ tokenizer: 'chars/4' }).count(rebuilt)));
  });
});
