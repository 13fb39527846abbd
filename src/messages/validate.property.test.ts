/**
 * Property tests for `validate` (MSG-3): generated valid conversations (parallel tool calls,
 * results in any order and grouping, optional call in flight) have no problems for any
 * provider; planted defects are found exactly — no more, no fewer, at the right index.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Part, Provider, ToolResultPart } from './types.ts';
import { validate } from './validate.ts';

const PROVIDERS: readonly (Provider | undefined)[] = [undefined, 'openai', 'anthropic', 'gemini'];

interface ToolStep {
  readonly kind: 'tools';
  /** Sort keys that shuffle the results. */
  readonly order: readonly number[];
  /** `true` starts a new tool message before that result; otherwise it joins the previous one. */
  readonly split: readonly boolean[];
  /** An assistant text message before the one with the calls. */
  readonly preamble: boolean;
}
type Step = { readonly kind: 'chat' } | ToolStep;

const toolStep: fc.Arbitrary<ToolStep> = fc.integer({ min: 1, max: 5 }).chain((calls) =>
  fc.record({
    kind: fc.constant('tools' as const),
    order: fc.array(fc.nat(), { minLength: calls, maxLength: calls }),
    split: fc.array(fc.boolean(), { minLength: calls, maxLength: calls }),
    preamble: fc.boolean(),
  }),
);

const shape = fc.record({
  system: fc.boolean(),
  steps: fc.array(fc.oneof(fc.constant({ kind: 'chat' } as Step), toolStep), { minLength: 1, maxLength: 25 }),
  inFlight: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
});

interface Built {
  readonly messages: Message[];
  /** Index of the first user message. */
  readonly firstUser: number;
  /** Assistant messages with calls, excluding the in-flight one. */
  readonly answeredCallers: Message[];
  readonly inFlight: boolean;
}

type Shape = typeof shape extends fc.Arbitrary<infer T> ? T : never;

function build({ system, steps, inFlight }: Shape): Built {
  const messages: Message[] = [];
  const answeredCallers: Message[] = [];
  let calls = 0;
  const push = (role: Message['role'], parts: Part[]): Message => {
    const message: Message = {
      id: `m${messages.length}`,
      role,
      parts,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    messages.push(message);
    return message;
  };
  const text = (value: string): Part[] => [{ type: 'text', text: value }];
  if (system) push('system', text('be brief'));
  const firstUser = messages.length;
  push('user', text('goal'));
  const callParts = (n: number): Part[] =>
    Array.from({ length: n }, () => ({
      type: 'tool-call',
      id: `call_${calls++}`,
      name: 'Read',
      arguments: '{}',
    }));
  for (const step of steps) {
    if (step.kind === 'chat') {
      push('assistant', text('thinking aloud'));
      push('user', text('go on'));
      continue;
    }
    if (step.preamble) push('assistant', text('let me look'));
    const parts = callParts(step.order.length);
    answeredCallers.push(push('assistant', parts));
    const results: ToolResultPart[] = parts
      .map((part, i) => ({ part, key: step.order[i] as number }))
      .sort((a, b) => a.key - b.key)
      .map(({ part }) => ({
        type: 'tool-result',
        callId: (part as { id: string }).id,
        content: [{ type: 'text', text: 'ok' }],
      }));
    let current: ToolResultPart[] = [];
    results.forEach((result, i) => {
      if (i > 0 && step.split[i]) {
        push('tool', current);
        current = [];
      }
      current.push(result);
    });
    push('tool', current);
  }
  if (inFlight !== undefined) push('assistant', callParts(inFlight));
  return { messages, firstUser, answeredCallers, inFlight: inFlight !== undefined };
}

const check = (messages: readonly Message[], inFlight: boolean, provider: Provider | undefined): string[] =>
  validate(messages, { ...(provider === undefined ? {} : { provider }), allowPendingToolCalls: inFlight })
    .map((p) => `${p.kind}@${p.index}:${p.callId ?? ''}`)
    .sort();

/** Removes one result part (and its tool message when that was its only part). */
function withoutResult(messages: readonly Message[], callId: string): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role !== 'tool') {
      out.push(message);
      continue;
    }
    const parts = message.parts.filter((part) => part.type !== 'tool-result' || part.callId !== callId);
    if (parts.length === message.parts.length) out.push(message);
    else if (parts.length > 0) out.push({ ...message, parts });
  }
  return out;
}

const orphanMessage = (callId: string): Message => ({
  id: `orphan-${callId}`,
  role: 'tool',
  parts: [{ type: 'tool-result', callId, content: [{ type: 'text', text: 'stray' }] }],
  createdAt: '2026-01-01T00:00:00.000Z',
});

/**
 * Removing a call's only result makes its assistant message adjacent to the next assistant
 * message, which then belongs to the same turn (that is how turns are defined). Plants skip
 * that case: the merged turn may legitimately be the one in flight.
 */
const followedByAssistant = (messages: readonly Message[], caller: Message): boolean =>
  messages[messages.indexOf(caller) + 1]?.role === 'assistant';

/** Picks one answered call and removes its result (skipping the turn-merging case, see above). */
function removeOneResult(
  { messages, answeredCallers }: Built,
  which: number,
  pick: number,
): { caller: Message; callId: string; rest: Message[] } {
  fc.pre(answeredCallers.length > 0);
  const caller = answeredCallers[which % answeredCallers.length] as Message;
  const ids = caller.parts.flatMap((part) => (part.type === 'tool-call' ? [part.id] : []));
  const callId = ids[pick % ids.length] as string;
  const rest = withoutResult(messages, callId);
  fc.pre(!followedByAssistant(rest, caller));
  return { caller, callId, rest };
}

describe('validate properties (MSG-3)', () => {
  it('finds no problem in a valid conversation, for every provider', () => {
    fc.assert(
      fc.property(shape, (value) => {
        const { messages, inFlight } = build(value);
        for (const provider of PROVIDERS) expect(check(messages, inFlight, provider)).toEqual([]);
        if (inFlight) {
          const pending = validate(messages).filter((p) => p.kind === 'missing-tool-result');
          expect(pending.length).toBe(value.inFlight);
        }
      }),
    );
  });

  it('finds exactly one planted orphan result, wherever it is inserted', () => {
    fc.assert(
      fc.property(shape, fc.nat(), (value, where) => {
        const { messages, firstUser, inFlight } = build(value);
        const at = firstUser + 1 + (where % (messages.length - firstUser));
        const planted = [...messages.slice(0, at), orphanMessage('stray'), ...messages.slice(at)];
        for (const provider of PROVIDERS) {
          expect(check(planted, inFlight, provider)).toEqual([`orphan-tool-result@${at}:stray`]);
        }
      }),
    );
  });

  it('finds exactly one missing result when one result of a parallel group is removed', () => {
    fc.assert(
      fc.property(shape, fc.nat(), fc.nat(), (value, which, pick) => {
        const built = build(value);
        const { caller, callId, rest: planted } = removeOneResult(built, which, pick);
        for (const provider of PROVIDERS) {
          expect(check(planted, built.inFlight, provider)).toEqual([
            `missing-tool-result@${planted.indexOf(caller)}:${callId}`,
          ]);
        }
      }),
    );
  });

  it('finds exactly one duplicate message id', () => {
    fc.assert(
      fc.property(shape, fc.nat(), fc.nat(), (value, a, b) => {
        const { messages, inFlight } = build(value);
        const first = a % (messages.length - 1);
        const second = first + 1 + (b % (messages.length - first - 1));
        const planted = messages.map((m, i) =>
          i === second ? { ...m, id: (messages[first] as Message).id } : m,
        );
        for (const provider of PROVIDERS) {
          expect(check(planted, inFlight, provider)).toEqual([`duplicate-id@${second}:`]);
        }
      }),
    );
  });

  it('reports a result moved before its call as result-before-call plus the missing result', () => {
    fc.assert(
      fc.property(shape, fc.nat(), fc.nat(), (value, which, pick) => {
        const built = build(value);
        const { caller, callId, rest } = removeOneResult(built, which, pick);
        const early = orphanMessage(callId);
        const at = rest.indexOf(caller);
        const planted = [...rest.slice(0, at), early, ...rest.slice(at)];
        for (const provider of PROVIDERS) {
          expect(check(planted, built.inFlight, provider)).toEqual(
            [`result-before-call@${at}:${callId}`, `missing-tool-result@${at + 1}:${callId}`].sort(),
          );
        }
      }),
    );
  });

  it('finds every one of several planted problems at once', () => {
    fc.assert(
      fc.property(shape, fc.nat(), fc.nat(), fc.nat(), (value, which, pick, where) => {
        const built = build(value);
        const { firstUser } = built;
        const { caller, callId, rest } = removeOneResult(built, which, pick);
        // duplicate the id of the first user message on the last message
        const last = rest.length - 1;
        const duplicated = rest.map((m, i) =>
          i === last ? { ...m, id: (rest[firstUser] as Message).id } : m,
        );
        const dupTarget = duplicated[last] as Message;
        const callerAfter = duplicated[rest.indexOf(caller)] as Message;
        const at = firstUser + 1 + (where % (duplicated.length - firstUser));
        const orphan = orphanMessage('stray');
        const planted = [...duplicated.slice(0, at), orphan, ...duplicated.slice(at)];
        const expected = [
          `missing-tool-result@${planted.indexOf(callerAfter)}:${callId}`,
          `duplicate-id@${planted.indexOf(dupTarget)}:`,
          `orphan-tool-result@${planted.indexOf(orphan)}:stray`,
        ].sort();
        for (const provider of PROVIDERS) expect(check(planted, built.inFlight, provider)).toEqual(expected);
      }),
    );
  });
});
