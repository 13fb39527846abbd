import { pruneMessages as aiSdkPruneMessages, type ModelMessage } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PruneMessagesOptions, pruneMessages } from './prune-messages.ts';
import { toAiSdk } from './to-ai-sdk.ts';
import type { Message, Part } from './types.ts';
import { validate } from './validate.ts';

// Conversations with reasoning runs, parallel calls of three tools (results in one tool message or
// one each, with or without their tool name), orphan results, calls whose result was lost, empty
// messages and a call in flight at the end.
const TOOLS = ['read', 'write', 'search'] as const;
const turn = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), empty: fc.boolean() }),
  fc.record({
    kind: fc.constant('assistant' as const),
    reasoning: fc.nat({ max: 2 }),
    text: fc.boolean(),
    calls: fc.array(fc.constantFrom(...TOOLS), { maxLength: 3 }),
    trailingReasoning: fc.boolean(),
    results: fc.constantFrom('together' as const, 'apart' as const, 'lost' as const),
    named: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('orphan' as const), tool: fc.constantFrom(...TOOLS) }),
);

type Turn =
  | { kind: 'user'; empty: boolean }
  | {
      kind: 'assistant';
      reasoning: number;
      text: boolean;
      calls: string[];
      trailingReasoning: boolean;
      results: 'together' | 'apart' | 'lost';
      named: boolean;
    }
  | { kind: 'orphan'; tool: string };

function build(turns: readonly Turn[], inFlight: boolean): Message[] {
  const out: Message[] = [];
  const push = (role: Message['role'], parts: Part[]) => {
    out.push({ id: `m${out.length}`, role, parts, createdAt: '' });
  };
  push('system', [{ type: 'text', text: 'system' }]);
  for (const t of turns) {
    if (t.kind === 'user') push('user', t.empty ? [] : [{ type: 'text', text: `u${out.length}` }]);
    else if (t.kind === 'orphan') {
      push('tool', [
        {
          type: 'tool-result',
          callId: `lost${out.length}`,
          toolName: t.tool,
          content: [{ type: 'text', text: 'x' }],
        },
      ]);
    } else {
      const ids = t.calls.map((_, i) => `c${out.length}_${i}`);
      push('assistant', [
        ...Array.from({ length: t.reasoning }, (_, i) => ({
          type: 'reasoning' as const,
          text: `think ${i}`,
        })),
        ...(t.text ? [{ type: 'text' as const, text: `a${out.length}` }] : []),
        ...t.calls.map((name, i) => ({
          type: 'tool-call' as const,
          id: ids[i] as string,
          name,
          arguments: '{}',
        })),
        ...(t.trailingReasoning ? [{ type: 'reasoning' as const, text: 'after' }] : []),
      ]);
      const results = t.calls.map(
        (name, i): Part => ({
          type: 'tool-result',
          callId: ids[i] as string,
          ...(t.named ? { toolName: name } : {}),
          content: [{ type: 'text', text: `r${i}` }],
        }),
      );
      if (results.length === 0 || t.results === 'lost') continue;
      if (t.results === 'together') push('tool', results);
      else for (const result of results) push('tool', [result]);
    }
  }
  if (inFlight) push('assistant', [{ type: 'tool-call', id: 'pending', name: 'read', arguments: '{}' }]);
  return out;
}

const conversation = fc
  .record({ turns: fc.array(turn as fc.Arbitrary<Turn>, { maxLength: 14 }), inFlight: fc.boolean() })
  .map(({ turns, inFlight }) => build(turns, inFlight));

const scope = fc.oneof(
  fc.constantFrom('all' as const, 'before-last-message' as const),
  fc.nat({ max: 6 }).map((n) => `before-last-${n}-messages` as const),
);
const options = fc.record(
  {
    reasoning: fc.constantFrom('all' as const, 'before-last-message' as const, 'none' as const),
    toolCalls: fc.oneof(
      scope,
      fc.constant('none' as const),
      fc.array(fc.record({ type: scope, tools: fc.subarray([...TOOLS]) }, { requiredKeys: ['type'] }), {
        maxLength: 3,
      }),
    ),
    emptyMessages: fc.constantFrom('keep' as const, 'remove' as const),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Omit<PruneMessagesOptions, 'messages'>>;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const PAIRING = new Set(['orphan-tool-result', 'missing-tool-result', 'result-before-call']);
const pairing = (messages: readonly Message[]) =>
  new Set(
    validate(messages, { allowPendingToolCalls: true })
      .filter((problem) => PAIRING.has(problem.kind))
      .map((problem) => `${problem.kind} ${problem.callId}`),
  );

describe('pruneMessages (STR-9, MSG-3)', () => {
  it('answers like the AI SDK, never orphans a result or a call, and is idempotent', () => {
    fc.assert(
      fc.property(conversation, options, (input, prune) => {
        const messages = deepFreeze(input); // a mutation would throw
        const pruned = pruneMessages({ messages, ...prune });
        // The AI SDK's own pruneMessages on the same history gives the same messages.
        const theirs = aiSdkPruneMessages({
          messages: toAiSdk(messages) as ModelMessage[],
          ...(prune as Omit<Parameters<typeof aiSdkPruneMessages>[0], 'messages'>),
        });
        expect(toAiSdk(pruned)).toEqual(theirs);
        // Pruning creates no pairing problem (the input's own orphans and lost results aside).
        const before = pairing(messages);
        for (const problem of pairing(pruned)) expect(before).toContain(problem);
        // Each message is the caller's object or the same message with fewer parts.
        for (const message of pruned) {
          const original = messages.find((m) => m.id === message.id) as Message;
          if (message !== original) {
            expect(message.parts.length).toBeLessThan(original.parts.length);
            // Parts of the checked copy (the input is read once): equal to the caller's.
            for (const part of message.parts) expect(original.parts).toContainEqual(part);
          }
        }
        expect(pruneMessages({ messages: pruned, ...prune })).toEqual(pruned);
      }),
      { numRuns: 600 },
    );
  });

  it('keeps the call of a result in the kept tail, and drops a whole group outside it', () => {
    const messages = build(
      [
        { kind: 'user', empty: false },
        {
          kind: 'assistant',
          reasoning: 1,
          text: false,
          calls: ['read', 'search'],
          trailingReasoning: false,
          results: 'apart',
          named: false,
        },
        { kind: 'user', empty: false },
      ],
      false,
    );
    // The tail (last 2 messages) holds the second result: its call stays, the first pair goes.
    const kept = pruneMessages({ messages, toolCalls: 'before-last-2-messages' });
    expect(kept.map((m) => m.parts.map((p) => (p.type === 'tool-call' ? p.id : p.type)))).toEqual([
      ['text'],
      ['text'],
      ['reasoning', 'c2_1'],
      ['tool-result'],
      ['text'],
    ]);
    expect(validate(kept)).toEqual([]);
    // Outside the tail, both calls and both results go, with the reasoning that led into them.
    expect(pruneMessages({ messages, toolCalls: 'before-last-message' }).map((m) => m.role)).toEqual([
      'system',
      'user',
      'user',
    ]);
  });

  it('names a result without toolName by its call, so per-tool rules take both', () => {
    const messages = build(
      [
        {
          kind: 'assistant',
          reasoning: 0,
          text: true,
          calls: ['write'],
          trailingReasoning: false,
          results: 'together',
          named: false,
        },
      ],
      false,
    );
    const kept = pruneMessages({ messages, toolCalls: [{ type: 'all', tools: ['write'] }] });
    expect(kept.flatMap((m) => m.parts.map((p) => p.type))).toEqual(['text', 'text']);
    // A result naming another tool than its call (a broken history) still goes with its call,
    // where the AI SDK would keep it as an orphan.
    const renamed = messages.map((m) =>
      m.role === 'tool'
        ? { ...m, parts: m.parts.map((p) => (p.type === 'tool-result' ? { ...p, toolName: 'other' } : p)) }
        : m,
    );
    const prunedRenamed = pruneMessages({
      messages: renamed,
      toolCalls: [{ type: 'all', tools: ['write'] }],
    });
    expect(prunedRenamed.flatMap((m) => m.parts.map((p) => p.type))).toEqual(['text', 'text']);
  });

  it('rejects unknown option values with what was expected', () => {
    const messages = build([], false);
    const bad = (prune: unknown, option: string) =>
      expect(() => pruneMessages({ messages, ...(prune as object) })).toThrow(
        expect.objectContaining({ code: 'E_INVALID_OPTIONS', details: { option } }),
      );
    bad({ reasoning: 'some' }, 'reasoning');
    bad({ emptyMessages: 'drop' }, 'emptyMessages');
    bad({ toolCalls: 'before-last-two-messages' }, 'toolCalls');
    bad({ toolCalls: 3 }, 'toolCalls');
    bad({ toolCalls: [{ type: 'all', tools: 'read' }] }, 'toolCalls');
    bad({ toolCalls: [{ type: 'before-last--1-messages' }] }, 'toolCalls[0].type');
    expect(() => pruneMessages({ messages: 'x' as never })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_MESSAGES' }),
    );
  });
});
