import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Part } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { type TrimOptions, trimToTokens } from './trim.ts';

const counter = createMockTokenCounter();
const text = (value: string) => ({ type: 'text' as const, text: value });

// Conversations with everything a recording can hold: talk, multi-part messages, parallel tool
// rounds, orphan results (a lost call), dangling calls (a lost result) and a call in flight.
const step = fc.oneof(
  fc.record({ kind: fc.constant('talk' as const), text: fc.string({ maxLength: 300 }) }),
  fc.record({
    kind: fc.constant('blocks' as const),
    texts: fc.array(fc.stringMatching(/^[a-z \n]{0,80}$/), { minLength: 2, maxLength: 4 }),
  }),
  fc.record({
    kind: fc.constant('tools' as const),
    sizes: fc.array(fc.integer({ min: 1, max: 1500 }), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('orphan' as const) }),
  fc.record({ kind: fc.constant('dangling' as const) }),
);
type StepValue = { kind: string; text?: string; texts?: string[]; sizes?: number[] };

function build(steps: readonly StepValue[], options: { system: boolean; inFlight: boolean }): Message[] {
  const out: Message[] = [];
  let n = 0;
  const push = (role: Message['role'], parts: Part[]) => {
    out.push({ id: `m${n++}`, role, parts, createdAt: '' });
  };
  if (options.system) push('system', [text('system prompt')]);
  push('user', [text('goal')]);
  for (const s of steps) {
    if (s.kind === 'talk') {
      push('assistant', [text(`a${s.text}`)]);
      push('user', [text(`u${s.text}`)]);
    } else if (s.kind === 'blocks') {
      push('user', (s.texts ?? []).map(text));
    } else if (s.kind === 'tools') {
      const ids = (s.sizes ?? []).map((_, i) => `c${n}_${i}`);
      push('assistant', [
        text('calling'),
        ...ids.map((id, i) => ({ type: 'tool-call' as const, id, name: 'Read', arguments: `{"i":${i}}` })),
      ]);
      // Parallel results: sometimes one tool message with all of them, sometimes one each.
      if (ids.length > 1 && n % 2 === 0) {
        push(
          'tool',
          ids.map((id, i) => ({
            type: 'tool-result' as const,
            callId: id,
            content: [text('x'.repeat(s.sizes?.[i] ?? 1))],
          })),
        );
      } else {
        ids.forEach((id, i) => {
          push('tool', [{ type: 'tool-result', callId: id, content: [text('x'.repeat(s.sizes?.[i] ?? 1))] }]);
        });
      }
    } else if (s.kind === 'orphan') {
      push('tool', [{ type: 'tool-result', callId: `lost_${n}`, content: [text('late')] }]);
    } else {
      push('assistant', [text('trying'), { type: 'tool-call', id: `d${n}`, name: 'Bash', arguments: '{}' }]);
      push('user', [text('never mind')]);
    }
  }
  if (options.inFlight)
    push('assistant', [{ type: 'tool-call', id: 'pending', name: 'Bash', arguments: '{}' }]);
  return out;
}

const conversation = fc
  .record({ steps: fc.array(step, { maxLength: 25 }), system: fc.boolean(), inFlight: fc.boolean() })
  .map(({ steps, ...options }) => build(steps, options));

const types = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('human' as const, 'ai' as const, 'tool' as const, 'system' as const),
  fc.subarray(['human', 'ai', 'tool', 'system'] as const, { minLength: 1 }),
);
const trimCase = fc
  .record({
    strategy: fc.constantFrom('last' as const, 'first' as const),
    maxTokens: fc.integer({ min: 0, max: 3000 }),
    allowPartial: fc.boolean(),
    includeSystem: fc.boolean(),
    startOn: types,
    endOn: types,
  })
  .map(({ strategy, includeSystem, startOn, endOn, ...rest }) => ({
    ...rest,
    strategy,
    ...(strategy === 'last' && includeSystem ? { includeSystem } : {}),
    ...(strategy === 'last' && startOn !== undefined ? { startOn } : {}),
    ...(endOn === undefined ? {} : { endOn }),
  }));

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const PAIRING = new Set(['orphan-tool-result', 'missing-tool-result', 'result-before-call']);
const shape = (messages: readonly Message[]) => messages.map(({ id, role, parts }) => ({ id, role, parts }));

describe('trimToTokens (STR-9, MSG-3)', () => {
  it('never returns an orphan result or an unanswered call, fits, keeps order, and is idempotent', () => {
    fc.assert(
      fc.property(conversation, trimCase, (input, cut) => {
        const options: TrimOptions = { ...cut, tokenCounter: counter };
        const messages = deepFreeze(input); // a mutation would throw
        const kept = trimToTokens(messages, options);
        // Call/result pairing holds whatever the input held (a trailing call in flight aside).
        const problems = validate(kept, { allowPendingToolCalls: true }).filter((p) => PAIRING.has(p.kind));
        expect(problems).toEqual([]);
        if (kept.length > 0) expect(counter.count(kept).total).toBeLessThanOrEqual(options.maxTokens);
        // Oldest first, each kept message traceable to its input message, in input order.
        const positions = kept.map((m) => messages.findIndex((original) => original.id === m.id));
        positions.forEach((p, i) => {
          expect(p).toBeGreaterThan(i === 0 ? -1 : (positions[i - 1] as number));
        });
        // Trimming what was kept changes nothing, except where LangChain's endOn under 'last' (applied
        // before the cut) kept a system message after a newest message that did not fit.
        const endOn = cut.endOn === undefined ? undefined : ([] as string[]).concat(cut.endOn);
        const lastRole = { user: 'human', assistant: 'ai' }[kept.at(-1)?.role as string] ?? kept.at(-1)?.role;
        if (endOn === undefined || kept.length === 0 || endOn.includes(lastRole as string)) {
          expect(shape(trimToTokens(kept, options))).toEqual(shape(kept));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps as much as fits: the next older unit would not fit', () => {
    const messages = build(
      Array.from({ length: 20 }, (_, i) =>
        i % 3 === 0 ? { kind: 'tools', sizes: [400, 200] } : { kind: 'talk', text: 'x'.repeat(300) },
      ),
      { system: true, inFlight: false },
    );
    for (const max of [200, 500, 1000, 2000, 4000]) {
      const kept = trimToTokens(messages, { maxTokens: max, tokenCounter: counter, includeSystem: true });
      const firstKept = messages.indexOf(kept[1] as Message);
      expect(counter.count(kept).total).toBeLessThanOrEqual(max);
      // One more message (two when it is a tool result and its call) exceeds the budget.
      let previous = firstKept - 1;
      while (messages[previous]?.role === 'tool') previous--;
      if (previous > 0) {
        expect(counter.count([messages[0] as Message, ...messages.slice(previous)]).total).toBeGreaterThan(
          max,
        );
      }
    }
  });

  it('keeps a tool call and its results together, parallel calls included', () => {
    const messages = buildConversation()
      .system('s')
      .user('go')
      .toolRound([
        { name: 'Read', args: { a: 1 }, result: 'r'.repeat(400) },
        { name: 'Read', args: { a: 2 }, result: 'r'.repeat(400) },
      ])
      .assistant('done')
      .build();
    expect(trimToTokens(messages, { maxTokens: 10_000, tokenCounter: counter })).toEqual(messages);
    // 250 tokens hold one result (103) but not the group (~220 + 'done'): the group goes whole.
    const kept = trimToTokens(messages, { maxTokens: 150, tokenCounter: counter, includeSystem: true });
    expect(kept.map((m) => m.id)).toEqual(['m0', 'm5']);
  });

  it('drops a whole tool group where LangChain would split it (endOn, strategy first)', () => {
    const messages = buildConversation()
      .user('go')
      .toolRound([{ name: 'Read', args: {}, result: 'r' }])
      .build();
    // LangChain: endOn 'ai' drops the tool message and ends on a call without its result.
    const longer = buildConversation()
      .user('go')
      .assistant('ok')
      .user('more')
      .toolRound([{ name: 'Read', args: {}, result: 'r' }])
      .build();
    expect(trimToTokens(longer, { maxTokens: 1000, tokenCounter: counter, endOn: 'ai' })).toEqual(
      longer.slice(0, 2),
    );
    // 'first' with room for the call but not its result keeps neither.
    const callOnly = counter.count(messages.slice(0, 2)).total;
    expect(trimToTokens(messages, { maxTokens: callOnly, tokenCounter: counter, strategy: 'first' })).toEqual(
      [messages[0]],
    );
    // allowPartial never cuts into a group either.
    expect(
      trimToTokens(messages, {
        maxTokens: callOnly,
        tokenCounter: counter,
        strategy: 'first',
        allowPartial: true,
      }),
    ).toEqual([messages[0]]);
  });

  it('leaves out orphan results and calls whose result was lost, keeps a call in flight', () => {
    const messages: Message[] = [
      { id: 'u', role: 'user', parts: [text('go')], createdAt: '' },
      {
        id: 'orphan',
        role: 'tool',
        parts: [{ type: 'tool-result', callId: 'lost', content: [text('x')] }],
        createdAt: '',
      },
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          text('two calls'),
          { type: 'tool-call', id: 'c1', name: 'Read', arguments: '{}' },
          { type: 'tool-call', id: 'c2', name: 'Read', arguments: '{}' },
        ],
        createdAt: '',
      },
      {
        id: 't1',
        role: 'tool',
        parts: [
          { type: 'tool-result', callId: 'c1', content: [text('one')] },
          { type: 'tool-result', callId: 'elsewhere', content: [text('stray')] },
        ],
        createdAt: '',
      },
      { id: 'u2', role: 'user', parts: [text('and now')], createdAt: '' },
      {
        id: 'a2',
        role: 'assistant',
        parts: [{ type: 'tool-call', id: 'c3', name: 'Bash', arguments: '{}' }],
        createdAt: '',
      },
    ];
    const kept = trimToTokens(messages, { maxTokens: 10_000, tokenCounter: counter });
    expect(kept.map((m) => m.id)).toEqual(['u', 'a1', 't1', 'u2', 'a2']);
    expect(kept[1]?.parts.map((p) => (p.type === 'tool-call' ? p.id : p.type))).toEqual(['text', 'c1']);
    expect(kept[2]?.parts).toHaveLength(1);
    expect(kept[4]).toBe(messages[5]); // the call in flight, untouched
    expect(validate(kept, { allowPendingToolCalls: true })).toEqual([]);
  });

  it('returns [] when nothing fits, system prompt or not (as LangChain)', () => {
    const messages = buildConversation().system('s'.repeat(4000)).user('go').build();
    expect(trimToTokens(messages, { maxTokens: 100, tokenCounter: counter, includeSystem: true })).toEqual(
      [],
    );
    expect(trimToTokens(messages, { maxTokens: 100, tokenCounter: counter }).map((m) => m.id)).toEqual([
      'm1',
    ]);
    const noSystem = buildConversation().user('a').assistant('b').build();
    expect(trimToTokens(noSystem, { maxTokens: 50, tokenCounter: () => 100 })).toEqual([]);
    expect(trimToTokens([], { maxTokens: 0, tokenCounter: counter })).toEqual([]);
  });

  it('counts with a counter named counter (chatfold) or tokenCounter (LangChain), the same way', () => {
    const messages = buildConversation().system('s').user('a'.repeat(400)).assistant('b'.repeat(400)).build();
    const options = { maxTokens: 120, includeSystem: true } as const;
    expect(trimToTokens(messages, { ...options, counter })).toEqual(
      trimToTokens(messages, { ...options, tokenCounter: counter }),
    );
  });

  it('returns a promise when a callback does, with the same answer', async () => {
    const messages = buildConversation().system('s').user('one\ntwo\nthree').assistant('b').build();
    const count = (list: Message[]) => counter.count(list).total;
    const options = { maxTokens: 12, allowPartial: true, strategy: 'first' } as const;
    const sync = trimToTokens(messages, { ...options, tokenCounter: count });
    const pending = trimToTokens(messages, {
      ...options,
      tokenCounter: async (list: Message[]) => count(list),
    });
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual(sync);
    expect(sync.map((m) => m.parts)).toEqual([[text('s')], [text('one\ntwo\n')]]);
  });

  it('rejects bad options with what was expected', () => {
    const messages = buildConversation().user('go').build();
    const bad = (options: unknown, option: string) =>
      expect(() => trimToTokens(messages, options as TrimOptions)).toThrow(
        expect.objectContaining({ code: 'E_INVALID_OPTIONS', details: { option } }),
      );
    bad({ maxTokens: Number.NaN, tokenCounter: counter }, 'maxTokens');
    bad({ maxTokens: -1, tokenCounter: counter }, 'maxTokens');
    bad({ maxTokens: 10 }, 'tokenCounter');
    bad({ maxTokens: 10, tokenCounter: { getNumTokens: () => 1 } }, 'tokenCounter');
    bad({ maxTokens: 10, tokenCounter: counter, counter }, 'tokenCounter');
    bad({ maxTokens: 10, tokenCounter: counter, strategy: 'middle' }, 'strategy');
    bad({ maxTokens: 10, tokenCounter: counter, strategy: 'first', startOn: 'human' }, 'startOn');
    bad({ maxTokens: 10, tokenCounter: counter, strategy: 'first', includeSystem: true }, 'includeSystem');
    bad({ maxTokens: 10, tokenCounter: counter, startOn: 'any' }, 'startOn');
    bad({ maxTokens: 10, tokenCounter: counter, endOn: ['human', 'wizard'] }, 'endOn');
    bad({ maxTokens: 10, tokenCounter: counter, keepSystem: true }, 'keepSystem');
    bad({ maxTokens: 10, tokenCounter: counter, textSplitter: 'lines' }, 'textSplitter');
    bad({ maxTokens: 10, tokenCounter: () => 'many' }, 'tokenCounter');
    bad({ maxTokens: 1, tokenCounter: counter, allowPartial: true, textSplitter: () => 'x' }, 'textSplitter');
    expect(() => trimToTokens('x' as never, { maxTokens: 1, tokenCounter: counter })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_MESSAGES' }),
    );
  });
});
