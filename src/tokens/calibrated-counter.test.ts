import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, ToolDefinition } from '../messages/types.ts';
import { buildConversation } from '../test/build-conversation.ts';
import {
  checkReportedUsage,
  createCalibratedTokenCounter,
  UNDER_REPORT_TOLERANCE,
} from './calibrated-counter.ts';
import { createTokenCounter } from './create-token-counter.ts';

const tools: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file of the workspace and return its whole content with line numbers.',
    parameters: { type: 'object', properties: { path: { type: 'string', description: 'relative path' } } },
  },
];

function prompt(): Message[] {
  return buildConversation()
    .system('You are a careful coding agent.')
    .user('Read src/a.ts')
    .toolRound([
      { name: 'read_file', args: { path: 'src/a.ts' }, result: 'export const a = 1;\n'.repeat(200) },
    ])
    .build();
}

describe('createCalibratedTokenCounter (TOK-5)', () => {
  it('compares reported input tokens with an estimate that includes the tool definitions', () => {
    const base = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    const counter = createCalibratedTokenCounter(base);
    const messages = prompt();
    const truth = base.count(messages, { tools }).total; // what the provider would report
    counter.recordUsage(messages, { inputTokens: truth }, { tools });
    expect(counter.ratio).toBeCloseTo(1, 5);
    expect(counter.count(messages, { tools }).total).toBe(truth);
    expect(counter.count(messages).total).toBe(base.count(messages).total);
  });

  it('does not take a compacted prefix (same ids, stubbed content) for the reported one', () => {
    const base = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    const counter = createCalibratedTokenCounter(base);
    const messages = prompt();
    counter.recordUsage(messages, { inputTokens: base.count(messages).total });
    const tool = messages[3] as Message;
    const stubbed: Message = {
      ...tool,
      parts: tool.parts.map((part) =>
        part.type === 'tool-result' ? { ...part, content: [{ type: 'text', text: '[superseded]' }] } : part,
      ),
      metadata: { chatfold: { transform: 'superseded' } },
    };
    const compacted = [...messages.slice(0, 3), stubbed];
    expect(counter.count(compacted).total).toBeLessThan(counter.count(messages).total / 2);
    // The same prompt again (new objects, same content, no transform) still extends the report.
    const appended = [
      ...messages.map((message) => ({ ...message })),
      ...buildConversation().user('next').build(),
    ];
    expect(counter.count(appended).total).toBeGreaterThan(counter.count(messages).total);
  });
});

/** A conversation of user/assistant messages, message i about `sizes[i]` words long (ids `m0`, `m1`, …). */
function conversationOf(sizes: readonly number[]): Message[] {
  return turnsOf(sizes.map((size, i) => ({ id: i, size })));
}

/** The system prompt, then one message per turn: its id stands for its content (as in a session). */
function turnsOf(turns: readonly { id: number; size: number }[]): Message[] {
  const [system] = buildConversation().system('You are a careful coding agent.').build();
  return [
    system as Message,
    ...turns.map(
      ({ id, size }): Message => ({
        id: `m${id + 1}`,
        role: id % 2 === 0 ? 'user' : 'assistant',
        parts: [{ type: 'text', text: `word${id} `.repeat(size) }],
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, id)).toISOString(),
      }),
    ),
  ];
}

describe('reported usage is evidence, not truth (under-reports)', () => {
  const base = createTokenCounter({ tokenizer: 'openai:o200k_base' });

  it('sets aside a fresh-tokens-only report: the count stays chatfold’s own, and says so once', () => {
    const counter = createCalibratedTokenCounter(base);
    const first = conversationOf([200, 300, 250]);
    const own = base.count(first, { tools }).total;
    // A cold cache: the whole prompt is processed and reported.
    expect(counter.recordUsage(first, { inputTokens: own }, { tools })).toEqual({
      kind: 'calibrated',
      ratio: 1,
    });
    const second = conversationOf([200, 300, 250, 40, 60]);
    const fresh = base.count(second, { tools }).total - own; // only the new turn was processed
    const verdict = counter.recordUsage(second, { inputTokens: fresh }, { tools });
    expect(verdict).toMatchObject({
      kind: 'under-report',
      isFirst: true,
      reason: 'fresh-only',
      reported: fresh,
    });
    expect(counter.underReport).toMatchObject({ reason: 'fresh-only', reported: fresh });
    expect(counter.count(second, { tools }).total).toBe(base.count(second, { tools }).total);
    const third = conversationOf([200, 300, 250, 40, 60, 30, 50]);
    expect(counter.recordUsage(third, { inputTokens: 90 }, { tools })).toMatchObject({ isFirst: false });
    expect(counter.underReport?.reported).toBe(fresh); // the first one is what is shown
    expect(counter.count(third, { tools }).total).toBe(base.count(third, { tools }).total);
  });

  it('names a report that matches the messages without the tool definitions', () => {
    const counter = createCalibratedTokenCounter(base);
    const messages = conversationOf([5]);
    const withTools = base.count(messages, { tools });
    const withoutTools = base.count(messages).total;
    expect(withTools.tools).toBeGreaterThan(withoutTools / 3);
    expect(counter.recordUsage(messages, { inputTokens: withoutTools }, { tools })).toMatchObject({
      kind: 'under-report',
      reason: 'tools-excluded',
      estimate: withTools.total,
    });
    expect(counter.count(messages, { tools }).total).toBe(withTools.total);
  });

  it('still calibrates on over-reports and on reports within the tolerance', () => {
    const counter = createCalibratedTokenCounter(base);
    const messages = conversationOf([300, 200]);
    const own = base.count(messages).total;
    counter.recordUsage(messages, { inputTokens: Math.round(own * 1.4) });
    expect(counter.ratio).toBeCloseTo(1.4, 2);
    expect(counter.count(messages).total).toBe(Math.ceil((Math.round(own * 1.4) * own) / own));
    const other = createCalibratedTokenCounter(base);
    other.recordUsage(messages, { inputTokens: Math.round(own * 0.8) });
    expect(other.ratio).toBeCloseTo(0.8, 2);
    expect(other.underReport).toBeUndefined();
  });

  it('believes an exact count below the tolerance (a count endpoint is not a usage report)', () => {
    const counter = createCalibratedTokenCounter(base);
    const messages = conversationOf([300, 200]);
    const own = base.count(messages).total;
    expect(
      counter.recordUsage(messages, { inputTokens: Math.round(own * 0.6), isExact: true }),
    ).toMatchObject({
      kind: 'calibrated',
    });
    expect(counter.ratio).toBeCloseTo(0.6, 2);
  });

  it('property: whatever the reports, the count used is never below the own estimate by more than the tolerance', () => {
    const call = fc.record({
      // How the conversation grows before this call (a compaction may also drop the oldest).
      added: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 4 }),
      dropOldest: fc.nat({ max: 3 }),
      withTools: fc.boolean(),
      // The server's report as a share of the true count, and the true count as a share of ours.
      truthRatio: fc.double({ min: 0.5, max: 2, noNaN: true }),
      report: fc.oneof(
        fc.constant<'correct'>('correct'),
        fc.constant<'tools-excluded'>('tools-excluded'),
        fc.record({ freshShare: fc.double({ min: 0, max: 1, noNaN: true }) }),
        fc.record({ overShare: fc.double({ min: 1, max: 50, noNaN: true }) }),
      ),
    });
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 12 }), (calls) => {
        const counter = createCalibratedTokenCounter(base);
        let turns: { id: number; size: number }[] = [];
        let nextId = 0;
        let previousTruth = 0;
        for (const step of calls) {
          turns = [
            ...turns.slice(Math.min(step.dropOldest, Math.max(0, turns.length - 1))),
            ...step.added.map((size) => ({ id: nextId++, size })),
          ];
          const prompt = turnsOf(turns);
          const options = step.withTools ? { tools } : {};
          const own = base.count(prompt, options);
          const truth = Math.round(own.total * step.truthRatio);
          const reported =
            step.report === 'correct'
              ? truth
              : step.report === 'tools-excluded'
                ? Math.round((own.total - own.tools) * step.truthRatio)
                : 'freshShare' in step.report
                  ? Math.max(1, Math.round((truth - Math.min(truth, previousTruth)) * step.report.freshShare))
                  : Math.round(truth * step.report.overShare);
          previousTruth = truth;
          counter.recordUsage(prompt, { inputTokens: reported }, options);
          for (const counted of [prompt, turnsOf([...turns, { id: nextId, size: 50 }])]) {
            for (const countOptions of [{}, { tools }]) {
              const floor = base.count(counted, countOptions).total * (1 - UNDER_REPORT_TOLERANCE);
              expect(counter.count(counted, countOptions).total).toBeGreaterThanOrEqual(Math.floor(floor));
            }
          }
          expect(counter.ratio).toBeGreaterThanOrEqual(1 - UNDER_REPORT_TOLERANCE - 1e-9);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('checkReportedUsage: believed from (1 − tolerance) × estimate up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        (estimate, share) => {
          const reported = Math.round(estimate * share);
          const verdict = checkReportedUsage(reported, estimate);
          expect(verdict === undefined).toBe(reported >= estimate * (1 - UNDER_REPORT_TOLERANCE));
        },
      ),
    );
  });
});
