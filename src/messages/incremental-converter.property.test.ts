/**
 * Issue 19 §2: an incremental converter gives exactly what a whole conversion gives — same
 * messages, ids (derived ones counted over the whole list), timestamps with a fixed clock, and
 * the same error — for any sequence of histories: resent with new messages, resent as new
 * objects, edited, cut back and branched, or another conversation in between.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AiSdkMessageInput, aiSdkConversion, fromAiSdk } from './ai-sdk.ts';
import type { ConversionFormat } from './incremental-converter.ts';
import { createIncrementalConverter, isSameData } from './incremental-converter.ts';
import { hasDerivedId, type NormalizeOptions } from './normalize.ts';
import { fromOpenAI, type OpenAIMessage, openAIConversion } from './openai.ts';
import { snapshotInput } from './snapshot.ts';
import type { Message } from './types.ts';

const now = () => new Date('2026-01-01T00:00:00.000Z');
/** Few values, so identical messages (occurrence counts) and shared prefixes are common. */
const text = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('yes', 'no', 'ok', 'Read the file.', 'done') },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  // Too long for `maxMessageChars: 100`.
  { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(120)) },
);
/** A lone surrogate: replaced, or refused with `loneSurrogates: 'error'`. */
const badText = fc.constantFrom('bad \uD800 text', 'end \uDC00');
const callId = fc.constantFrom('call_1', 'call_2', 'call_3');
const toolName = fc.constantFrom('read_file', 'run', 'search');

const aiSdkAccepted: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ role: fc.constant('system'), content: text }),
  fc.record({
    role: fc.constant('user'),
    content: fc.oneof(
      text,
      fc.array(fc.record({ type: fc.constant('text'), text }), { minLength: 1, maxLength: 2 }),
    ),
  }),
  fc.record({
    role: fc.constant('user'),
    content: fc
      .tuple(fc.uint8Array({ maxLength: 6 }))
      .map(([data]) => [{ type: 'file', mediaType: 'image/png', data }]),
  }),
  fc.record(
    {
      role: fc.constant('assistant'),
      content: fc.array(
        fc.oneof(
          fc.record({ type: fc.constant('text'), text }),
          fc.record({
            type: fc.constant('tool-call'),
            toolCallId: callId,
            toolName,
            input: fc.record({ path: text }),
          }),
        ),
        { minLength: 1, maxLength: 2 },
      ),
      providerOptions: fc.constant({ openai: { itemId: 'item_1' } }),
    },
    { requiredKeys: ['role', 'content'] },
  ),
  fc.record({
    role: fc.constant('tool'),
    content: fc
      .tuple(callId, toolName, text)
      .map(([toolCallId, name, value]) => [
        { type: 'tool-result', toolCallId, toolName: name, output: { type: 'text', value } },
      ]),
  }),
);
const aiSdkMessage = fc.oneof(
  { weight: 20, arbitrary: aiSdkAccepted },
  // Refused (or cleaned): an unknown role, a tool call without its id, a lone surrogate.
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom(
        { role: 'robot', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool-call', toolName: 'run', input: {} }] },
      ),
      fc.record({ role: fc.constant('user'), content: badText }),
    ),
  },
);

const openAIAccepted: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ role: fc.constantFrom('system', 'developer', 'user'), content: text }),
  fc.record({ role: fc.constant('user'), content: text, name: fc.constantFrom('ann', 'bob') }),
  fc.record({
    role: fc.constant('assistant'),
    content: fc.option(text, { nil: null }),
    tool_calls: fc.array(
      fc.record({
        id: callId,
        type: fc.constant('function'),
        function: fc.record({
          name: toolName,
          arguments: text.map((path) => JSON.stringify({ path })),
        }),
      }),
      { minLength: 1, maxLength: 2 },
    ),
  }),
  fc.record({ role: fc.constant('assistant'), content: text }),
  fc.record({ role: fc.constant('tool'), tool_call_id: callId, content: text }),
  // Legacy function calling: the answer takes the id of the call it answers.
  fc.record({
    role: fc.constant('assistant'),
    content: fc.constant(null),
    function_call: fc.record({ name: toolName, arguments: fc.constant('{}') }),
  }),
  fc.record({ role: fc.constant('function'), name: toolName, content: text }),
);
const openAIMessage = fc.oneof(
  { weight: 20, arbitrary: openAIAccepted },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constant({ role: 'robot', content: 'hi' }),
      fc.constant({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'run', arguments: '{not json' } }],
      }),
      fc.record({ role: fc.constant('user'), content: badText }),
    ),
  },
);

type Step =
  | { kind: 'append'; messages: unknown[] }
  | { kind: 'again'; copy: boolean }
  | { kind: 'cut'; keep: number; messages: unknown[] }
  | { kind: 'edit'; at: number; message: unknown }
  | { kind: 'switch'; messages: unknown[] };

const steps = (message: fc.Arbitrary<unknown>): fc.Arbitrary<Step[]> =>
  fc.array(
    fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('append' as const),
          messages: fc.array(message, { minLength: 1, maxLength: 3 }),
        }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('again' as const), copy: fc.boolean() }) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('cut' as const),
          keep: fc.nat(8),
          messages: fc.array(message, { maxLength: 2 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('edit' as const), at: fc.nat(8), message }) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('switch' as const),
          messages: fc.array(message, { maxLength: 4 }),
        }),
      },
    ),
    { minLength: 1, maxLength: 12 },
  );

/** The histories a caller sends, step by step; `switch` starts another conversation and comes back. */
function histories(list: Step[]): unknown[][] {
  let history: unknown[] = [];
  const sent: unknown[][] = [];
  for (const step of list) {
    if (step.kind === 'append') history = [...history, ...step.messages];
    else if (step.kind === 'again') history = step.copy ? structuredClone(history) : [...history];
    else if (step.kind === 'cut') history = [...history.slice(0, step.keep), ...step.messages];
    else if (step.kind === 'edit' && history.length > 0) {
      history = history.map((message, index) =>
        index === step.at % history.length ? step.message : message,
      );
    } else if (step.kind === 'switch') sent.push(step.messages);
    sent.push(history);
  }
  return sent;
}

function outcome(convert: () => Message[]) {
  try {
    const messages = convert();
    return { messages, derived: messages.map((message) => hasDerivedId(message)) };
  } catch (error) {
    const { code, message, details } = error as { code?: string; message: string; details?: unknown };
    return { error: { code, message, details } };
  }
}

const options = fc.record({
  loneSurrogates: fc.constantFrom('replace' as const, 'error' as const),
  maxMessageChars: fc.constantFrom(100, 16 * 1024 * 1024),
});

function checkFormat(
  format: ConversionFormat<never>,
  message: fc.Arbitrary<unknown>,
  whole: (input: unknown, options: NormalizeOptions) => Message[],
) {
  fc.assert(
    fc.property(steps(message), options, fc.integer({ min: 1, max: 3 }), (list, normalize, conversations) => {
      const converter = createIncrementalConverter(format, { ...normalize, now, conversations });
      for (const history of histories(list)) {
        const expected = outcome(() => whole(history, { ...normalize, now }));
        expect(outcome(() => converter.convert(history))).toStrictEqual(expected);
      }
    }),
    { numRuns: 300 },
  );
}

describe('incremental conversion equals a whole conversion (issue 19 §2)', () => {
  it('AI SDK messages: appended, resent, edited, branched, interleaved', () => {
    checkFormat(aiSdkConversion as ConversionFormat<never>, aiSdkMessage, (input, normalize) =>
      fromAiSdk(input as AiSdkMessageInput[], normalize),
    );
  });

  it('OpenAI messages: tool names and legacy function calls carried over', () => {
    checkFormat(openAIConversion as ConversionFormat<never>, openAIMessage, (input, normalize) =>
      fromOpenAI(input as OpenAIMessage[], normalize),
    );
  });
});

describe('incremental conversion converts only what is new', () => {
  const user = (text: string): AiSdkMessageInput => ({ role: 'user', content: text });
  const assistant = (text: string): AiSdkMessageInput => ({
    role: 'assistant',
    content: [{ type: 'text', text }],
  });

  it('a resent history with two new messages converts two, and keeps the earlier objects', () => {
    const converter = createIncrementalConverter(aiSdkConversion, { now });
    const first = converter.convert([user('hi'), assistant('yes')]);
    // New objects with the same content, as the AI SDK builds its prompt on every call.
    const second = converter.convert([user('hi'), assistant('yes'), user('hi'), assistant('yes')]);
    expect(converter.lastConverted).toBe(2);
    expect(second.slice(0, 2)).toEqual(first);
    expect(second[0]).toBe(first[0]);
    // Identical messages later in the list still count as repeats: their ids differ.
    expect(new Set(second.map((message) => message.id)).size).toBe(4);
  });

  it('two conversations through one converter each resume from their own history', () => {
    const converter = createIncrementalConverter(aiSdkConversion, { now });
    const a = [user('a'), assistant('one')];
    const b = [user('b'), assistant('two')];
    converter.convert(a);
    converter.convert(b);
    converter.convert([...a, user('more')]);
    expect(converter.lastConverted).toBe(1);
    converter.convert([...b, user('more')]);
    expect(converter.lastConverted).toBe(1);
  });

  it('an edited message converts from the edit on', () => {
    const converter = createIncrementalConverter(aiSdkConversion, { now });
    converter.convert([user('a'), assistant('b'), user('c'), assistant('d')]);
    converter.convert([user('a'), assistant('B'), user('c'), assistant('d')]);
    expect(converter.lastConverted).toBe(3);
  });

  it('the array returned is the caller’s: changing it does not change the next result', () => {
    const converter = createIncrementalConverter(aiSdkConversion, { now });
    const first = converter.convert([user('a')]);
    first.pop();
    expect(converter.convert([user('a'), user('b')])).toHaveLength(2);
  });
});

describe('reading against an earlier read (snapshotInput previous)', () => {
  class Box {
    readonly value: unknown;
    constructor(value: unknown) {
      this.value = value;
    }
  }
  /** Values as callers send them: JSON, `__proto__` keys, bytes, class instances, shared objects. */
  const leaf = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constant(JSON.parse('{"__proto__": {"a": 1}, "b": 2}')),
    fc.uint8Array({ maxLength: 3 }),
    fc.jsonValue({ maxDepth: 1 }).map((value) => new Box(value)),
  );
  const value = fc
    .array(leaf, { maxLength: 6 })
    .chain((items) => fc.constantFrom(items, [...items, items[0]], { items, shared: items }));
  /** A deep copy with the keys of every plain object in reverse order. */
  const reversed = (input: unknown): unknown => {
    if (Array.isArray(input)) return input.map(reversed);
    if (typeof input !== 'object' || input === null || Object.getPrototypeOf(input) !== Object.prototype)
      return input;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(input).reverse()) {
      Object.defineProperty(out, key, {
        value: reversed((input as Record<string, unknown>)[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  /** A later version: the same, a copy, keys reordered, edited, cut or grown. */
  const versions = value.chain((first) =>
    fc.tuple(
      fc.constant(first),
      fc.oneof(
        fc.constant(first),
        fc.constant(structuredClone(first)),
        fc.constant(reversed(first)),
        value,
        fc.constant(Array.isArray(first) ? first.slice(0, -1) : first),
        leaf.map((extra) => (Array.isArray(first) ? [...first, extra] : first)),
      ),
    ),
  );
  const read = (input: unknown, previous?: unknown) =>
    snapshotInput(input, { root: 'messages', ...(previous === undefined ? {} : { previous }) });

  it('gives the same data as a fresh read, and the earlier objects exactly where nothing changed', () => {
    fc.assert(
      fc.property(versions, ([first, second]) => {
        const earlier = read(first);
        const fresh = read(second);
        const again = read(second, earlier);
        expect(isSameData(again, fresh)).toBe(true);
        expect(again).toStrictEqual(fresh);
        expect(again === earlier).toBe(isSameData(fresh, earlier));
      }),
      { numRuns: 500 },
    );
  });
});
