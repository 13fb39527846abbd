import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { assertMessages } from '../messages/check-messages.ts';
import type { Message } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { caughtError } from '../test/caught-error.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { applyCompactionPlan } from './apply-plan.ts';
import { planWithOptions } from './plan-compaction.ts';
import type { CompactionPlan } from './types.ts';

// Issue 24 §4: plans travel through stores and queues, so applying one checks it like input.

const counter = createMockTokenCounter();

const round = fc.record({
  talk: fc.string({ maxLength: 300 }),
  calls: fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 0, maxLength: 3 }),
});

function conversation(rounds: readonly { talk: string; calls: readonly number[] }[]): Message[] {
  const builder = buildConversation().system('system prompt').user('the goal of this session');
  rounds.forEach(({ talk, calls }, r) => {
    builder.assistant(`a${talk}`).user(`u${talk}`);
    if (calls.length > 0)
      builder.toolRound(
        calls.map((size, c) => ({
          name: 'Read',
          args: { file_path: `f${r}_${c}.ts` },
          result: 'x'.repeat(size),
        })),
      );
  });
  return builder.user('the latest question').build();
}

async function planFor(messages: readonly Message[], window: number, strategy: string) {
  return planWithOptions(messages, { counter, window, responseReserve: 500, strategy, mode: 'manual' });
}

const garbage = fc.oneof(
  fc.anything(),
  fc.constant(null),
  fc.constant({}),
  fc.constant('plan'),
  fc.constant([]),
  fc.constant({ id: 'x', role: 'user', parts: [{ type: 'text', text: 5 }], createdAt: 'now' }),
  fc.constant({ id: 'x', role: 'wizard', parts: [], createdAt: 'now' }),
  fc.constant({ id: 'x', role: 'user', parts: null, createdAt: 'now' }),
);

type Tamper = (plan: Record<string, unknown>, messages: readonly Message[]) => unknown;

const tampers: fc.Arbitrary<Tamper> = fc.oneof(
  // The plan itself is not one.
  garbage.map(
    (value): Tamper =>
      () =>
        value,
  ),
  // One field of the wrong type (or gone).
  fc
    .tuple(
      fc.constantFrom(
        'version',
        'compacted',
        'mode',
        'input',
        'dropped',
        'replaced',
        'inserted',
        'stages',
        'budget',
        'tokensBefore',
        'summary',
        'firstKeptId',
      ),
      fc.oneof(garbage, fc.constant(undefined)),
    )
    .map(
      ([key, value]): Tamper =>
        (plan) => ({ ...plan, [key]: value }),
    ),
  // A replacement or an insertion that is not a message.
  fc.tuple(fc.constantFrom('replaced', 'inserted'), fc.nat(), garbage).map(
    ([key, index, value]): Tamper =>
      (plan, messages) => {
        const list = [...(plan[key] as Record<string, unknown>[])];
        const at = list.length === 0 ? 0 : index % list.length;
        const entry = list[at] ?? (key === 'replaced' ? { id: messages[1]?.id } : { beforeId: null });
        list[at] = { ...entry, message: value };
        return { ...plan, compacted: true, [key]: list };
      },
  ),
  // An id no input message has, in each place ids appear.
  fc.constantFrom('dropped', 'replaced', 'inserted').map(
    (key): Tamper =>
      (plan, messages) => {
        const message = messages[1] as Message;
        const entry =
          key === 'dropped'
            ? 'no-such-id'
            : key === 'replaced'
              ? { id: 'no-such-id', message: { ...message, id: 'no-such-id' } }
              : { beforeId: 'no-such-id', message: { ...message, id: 'fresh' } };
        return { ...plan, compacted: true, [key]: [...(plan[key] as unknown[]), entry] };
      },
  ),
);

/** Drops the tool-call message of a round whose results the plan keeps (an orphan result). */
function orphaningDrop(plan: CompactionPlan, messages: readonly Message[]): CompactionPlan | undefined {
  const dropped = new Set(plan.dropped);
  const projectionIds = new Set(applyCompactionPlan(messages, plan).map((message) => message.id));
  const call = messages.find(
    (message, i) =>
      projectionIds.has(message.id) &&
      message.parts.some((part) => part.type === 'tool-call') &&
      messages[i + 1] !== undefined &&
      projectionIds.has((messages[i + 1] as Message).id),
  );
  if (call === undefined || dropped.has(call.id)) return undefined;
  return { ...plan, compacted: true, dropped: [...plan.dropped, call.id] };
}

function expectInvalidPlan(run: () => unknown): ChatfoldError {
  const error = caughtError(run);
  expect(error.code, error.message).toBe('E_INVALID_PLAN');
  return error;
}

const strategies = fc.constantFrom('truncate', 'summarize', 'mask', 'hybrid', 'importance');

describe('applyCompactionPlan checks the plan like any input (issue 24)', () => {
  it('valid plans from the planner, through JSON, apply exactly as the pipeline built them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(round, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 2500, max: 20_000 }),
        strategies,
        async (rounds, window, strategy) => {
          const messages = conversation(rounds);
          const { plan, messages: built } = await planFor(messages, window, strategy);
          const json = JSON.parse(JSON.stringify(plan)) as CompactionPlan;
          expect(applyCompactionPlan(messages, json)).toEqual(built);
          expect(applyCompactionPlan(messages, plan)).toEqual(built);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a tampered plan only ever throws E_INVALID_PLAN, and what it does return is a valid projection', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(round, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 2500, max: 12_000 }),
        strategies,
        tampers,
        async (rounds, window, strategy, tamper) => {
          const messages = conversation(rounds);
          const { plan } = await planFor(messages, window, strategy);
          const tampered = tamper(JSON.parse(JSON.stringify(plan)) as Record<string, unknown>, messages);
          let out: Message[];
          try {
            out = applyCompactionPlan(messages, tampered as CompactionPlan);
          } catch (error) {
            expect(ChatfoldError.hasCode(error, 'E_INVALID_PLAN'), String(error)).toBe(true);
            expect((error as ChatfoldError).details.where).toEqual(expect.any(String));
            return;
          }
          // A harmless change (a string for a string): the result is still a valid projection.
          assertMessages(out, 'test');
          const pairing = validate(out, { allowPendingToolCalls: true }).filter(
            (problem) => problem.kind === 'orphan-tool-result' || problem.kind === 'missing-tool-result',
          );
          expect(pairing).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('drops that leave a tool result without its call are refused, naming the call', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(round, { minLength: 2, maxLength: 8 }),
        fc.integer({ min: 2500, max: 60_000 }),
        strategies,
        async (rounds, window, strategy) => {
          const messages = conversation(rounds);
          const { plan } = await planFor(messages, window, strategy);
          const tampered = orphaningDrop(plan, messages);
          fc.pre(tampered !== undefined);
          const error = expectInvalidPlan(() => applyCompactionPlan(messages, tampered as CompactionPlan));
          expect(error.details.where).toBe('dropped');
          expect(error.message).toMatch(/without its tool call/);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('names the field: a garbage replacement, a wrong type, a plan that is not an object', async () => {
    const messages = conversation([
      { talk: 'hello', calls: [2000, 2000] },
      { talk: 'more', calls: [2000] },
    ]);
    const { plan } = await planFor(messages, 3000, 'truncate');
    expect(plan.compacted).toBe(true);
    for (const value of [null, undefined, 'plan', 42, [], {}]) {
      expect(expectInvalidPlan(() => applyCompactionPlan(messages, value as never)).details.where).toBe(
        value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)
          ? 'plan'
          : 'version',
      );
    }
    const badText = {
      ...plan,
      replaced: [{ id: 'm2', message: { ...(messages[2] as Message), parts: [{ type: 'text', text: 5 }] } }],
    };
    const error = expectInvalidPlan(() => applyCompactionPlan(messages, badText as never));
    expect(error.details.where).toBe('replaced[0].message');
    expect(error.message).toMatch(
      /replaced\[0\]\.message: parts\[0\]\.text: expected string, received number/,
    );
    expect(
      expectInvalidPlan(() => applyCompactionPlan(messages, { ...plan, dropped: [1] } as never)).details
        .where,
    ).toBe('dropped[0]');
    expect(
      expectInvalidPlan(() => applyCompactionPlan(messages, { ...plan, dropped: ['nope'] })).details.where,
    ).toBe('dropped[0]');
    // A plan made for another list.
    expect(expectInvalidPlan(() => applyCompactionPlan(messages.slice(1), plan)).details.where).toBe('input');
  });

  it('a plan that cannot be read (a throwing getter) or claims a billion entries is E_INVALID_PLAN', async () => {
    const messages = conversation([{ talk: 'hello', calls: [2000, 2000] }]);
    const { plan } = await planFor(messages, 3000, 'truncate');
    const throwing = new Proxy(plan, {
      get(target, key) {
        if (key === 'dropped') throw new Error('boom');
        return Reflect.get(target, key);
      },
    });
    expect(expectInvalidPlan(() => applyCompactionPlan(messages, throwing)).details.where).toBe('plan');
    const sparse: string[] = [];
    sparse.length = 1e9;
    expect(
      expectInvalidPlan(() => applyCompactionPlan(messages, { ...plan, dropped: sparse })).details.where,
    ).toBe('dropped');
  });

  it('keeps a tool call in flight (no result yet) that the input already had', async () => {
    const messages = conversation([
      { talk: 'hello', calls: [3000, 3000] },
      { talk: 'more', calls: [] },
    ]);
    const pending: Message = {
      id: 'pending',
      role: 'assistant',
      parts: [{ type: 'tool-call', id: 'call_live', name: 'Read', arguments: '{}' }],
      createdAt: '2026-01-01T01:00:00.000Z',
    };
    const input = [...messages, pending];
    const { plan, messages: built } = await planWithOptions(input, {
      counter,
      window: 3000,
      responseReserve: 500,
      strategy: 'truncate',
      mode: 'manual',
    });
    expect(applyCompactionPlan(input, plan)).toEqual(built);
  });
});
