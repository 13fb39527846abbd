import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Part } from '../../messages/types.ts';
import { chatfoldMetadata } from '../../projection/chatfold-metadata.ts';
import { createMockTokenCounter } from '../../test/mock-token-counter.ts';
import { withProjection } from '../apply-strategy.ts';
import type { StrategyResult } from '../types.ts';
import { type SupersedeOptions, supersede } from './index.ts';

const CWD = '/repo';
const paths = ['src/a.ts', './src/a.ts', '/repo/src/a.ts', 'src/b.ts', '/tmp/task.output'];
const dirs = ['src', '.', '/repo/src', 'lib'];

/** Calls as the agents whose transcripts chatfold reads send them. */
const call = fc.oneof(
  fc.record({ name: fc.constant('Read'), args: fc.record({ file_path: fc.constantFrom(...paths) }) }),
  fc.record({
    name: fc.constant('Read'),
    args: fc.record({
      file_path: fc.constantFrom(...paths),
      offset: fc.constantFrom(1, 50),
      limit: fc.constant(20),
    }),
  }),
  fc.record({
    name: fc.constant('Write'),
    args: fc.record({ file_path: fc.constantFrom(...paths), content: fc.constant('x') }),
  }),
  fc.record({
    name: fc.constant('Edit'),
    args: fc.record({
      file_path: fc.constantFrom(...paths),
      old_string: fc.constant('a'),
      new_string: fc.constant('b'),
    }),
  }),
  fc.record({
    name: fc.constant('str_replace_editor'),
    args: fc.record({
      command: fc.constantFrom('view', 'create', 'str_replace', 'undo_edit'),
      path: fc.constantFrom(...paths),
    }),
  }),
  fc.record({
    name: fc.constantFrom('Glob', 'Grep'),
    args: fc.record({ pattern: fc.constantFrom('**/*.ts', 'TODO'), path: fc.constantFrom(...dirs) }),
  }),
  fc.record({ name: fc.constant('LS'), args: fc.record({ path: fc.constantFrom(...dirs) }) }),
  fc.record({
    name: fc.constantFrom('Bash', 'bash'),
    args: fc.record({
      command: fc.oneof(
        fc.constantFrom(...paths).map((p) => `cat ${p}`),
        fc.constantFrom(...paths).map((p) => `tail -30 ${p}`),
        fc.constantFrom(...dirs).map((d) => `ls -la ${d}`),
        fc.constantFrom(...dirs).map((d) => `find ${d}`),
        fc.constantFrom(
          'cd src',
          'cd /repo',
          'git log --oneline -5',
          'mix test 2>&1 | tail -5',
          'cat src/a.ts | grep x',
        ),
      ),
    }),
  }),
);

const output = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .integer({ min: 1, max: 60 })
      .map((n) => Array.from({ length: n }, (_, i) => `${i + 1}→line`).join('\n')),
  },
  {
    weight: 1,
    arbitrary: fc.constant('File unchanged since last read. Refer to the earlier Read tool_result.'),
  },
  { weight: 1, arbitrary: fc.constant(`${'12→partial\n'.repeat(30)}(400 more lines below)`) },
  { weight: 1, arbitrary: fc.constant('cat: src/a.ts: No such file or directory') },
  { weight: 1, arbitrary: fc.constant('') },
);

const round = fc.array(fc.record({ call, output, isError: fc.boolean() }), { minLength: 1, maxLength: 3 });
const conversation = fc
  .record({ rounds: fc.array(round, { maxLength: 18 }), parallelInOneMessage: fc.boolean() })
  .map(({ rounds, parallelInOneMessage }) => {
    const messages: Message[] = [
      {
        id: 'goal',
        role: 'user',
        parts: [{ type: 'text', text: 'fix it' }],
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    ];
    let calls = 0;
    const push = (role: Message['role'], parts: Part[]) =>
      messages.push({ id: `m${messages.length}`, role, parts, createdAt: '2026-01-01T00:00:00.000Z' });
    for (const items of rounds) {
      const ids = items.map(() => `call_${calls++}`);
      push(
        'assistant',
        items.map((item, i) => ({
          type: 'tool-call',
          id: ids[i] as string,
          name: item.call.name,
          arguments: JSON.stringify(item.call.args),
        })),
      );
      const results: Part[] = items.map((item, i) => ({
        type: 'tool-result',
        callId: ids[i] as string,
        toolName: item.call.name,
        content: [{ type: 'text', text: item.output }],
        ...(item.isError ? { isError: true } : {}),
      }));
      if (parallelInOneMessage) push('tool', results);
      else for (const result of results) push('tool', [result]);
    }
    return messages;
  });

const apply = (messages: readonly Message[], protectedIds: ReadonlySet<string>, options: SupersedeOptions) =>
  withProjection(
    messages,
    supersede(options).apply(messages, {
      counter: createMockTokenCounter(),
      target: 0,
      budget: 0,
      reservedTokens: 0,
      protectedIds,
    }) as StrategyResult,
  );

const shape = (messages: readonly Message[]) =>
  messages.map((m) => [
    m.id,
    m.role,
    m.parts.map((p) =>
      p.type === 'tool-call'
        ? `call ${p.id} ${p.name} ${p.arguments}`
        : p.type === 'tool-result'
          ? `result ${p.callId} ${p.toolName} ${p.isError}`
          : p.type,
    ),
  ]);

describe('supersede properties (STR-1, STR-8)', () => {
  it('keeps every message, id, role and call/result id; protected and untouched messages are the same objects; idempotent; a stub always names a later non-error result', () => {
    fc.assert(
      fc.property(
        conversation,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.record({
          cwd: fc.constantFrom(undefined, CWD),
          minSavedChars: fc.constantFrom(0, 200),
          repeatedCommands: fc.constantFrom('read-only', 'all', 'none'),
        }),
        (messages, share, raw) => {
          const options: SupersedeOptions = Object.fromEntries(
            Object.entries(raw).filter(([, v]) => v !== undefined),
          );
          const protectedIds = new Set(
            messages.filter((_, i) => (i * 7919) % 100 < share * 100).map((m) => m.id),
          );
          const snapshot = structuredClone(messages);
          const once = apply(messages, protectedIds, options);
          expect(messages).toEqual(snapshot); // input untouched
          expect(shape(once.messages)).toEqual(shape(messages));
          let stubbed = 0;
          once.messages.forEach((message, i) => {
            const original = messages[i] as Message;
            const record = chatfoldMetadata(message);
            if (record?.transform !== 'superseded') {
              expect(message).toBe(original);
              return;
            }
            stubbed++;
            expect(protectedIds.has(message.id)).toBe(false);
            const by = messages.findIndex((m) => m.id === record.by);
            expect(by).toBeGreaterThan(i);
            const later = messages[by]?.parts.filter((p) => p.type === 'tool-result') ?? [];
            expect(later.some((p) => p.type === 'tool-result' && p.isError !== true)).toBe(true);
          });
          expect(once.effect.stubbed).toBe(stubbed);
          const twice = apply(once.messages, protectedIds, options);
          expect(twice.messages).toEqual(once.messages);
          expect(twice.effect.stubbed).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is deterministic: the same input gives the same output', () => {
    fc.assert(
      fc.property(conversation, (messages) => {
        expect(apply(messages, new Set(), { cwd: CWD })).toEqual(
          apply(structuredClone(messages), new Set(), { cwd: CWD }),
        );
      }),
      { numRuns: 100 },
    );
  });
});
