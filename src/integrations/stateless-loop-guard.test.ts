import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompactionHooks } from '../compaction/types.ts';
import type { Message } from '../messages/types.ts';
import type { PolicySpec } from '../policy/presets.ts';
import { createChatfold } from '../session/create-chatfold.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockSummarizer } from '../test/mock-summarizer.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { createPromptFitter, type IntegrationEvent } from './prompt-fitter.ts';

// TRG-5 in the stateless integrations: the fitter keeps a loop guard per remembered
// conversation, so on the same calls it sends what a session sends.

const WAITING = 'waiting after a stalled or failed compaction';

/** Summarizes every 5 messages; a long system prompt makes each summary save under 5 %. */
const EVERY_FIVE: PolicySpec = {
  preset: 'default',
  overrides: {
    triggers: [{ messages: 5 }],
    floor: { tokens: 0, messages: 0 },
    retention: { messages: 4 },
    pipeline: ['summarize'],
  },
};

/** The default policy with only a summary (no truncation to the target). */
const SUMMARIZE_ONLY: PolicySpec = { preset: 'default', overrides: { pipeline: ['summarize'] } };

function smallTalk(rounds: number, system = 'You are a careful assistant. '.repeat(400)): Message[] {
  const builder = buildConversation().system(system);
  for (let i = 0; i < rounds; i++)
    builder.user(`Question ${i}: what about item ${i}?`).assistant(`Answer ${i}: item ${i} is fine.`);
  return builder.build();
}

interface Call {
  /** Messages of the caller's history at this call. */
  readonly count: number;
  readonly stateless: readonly Message[];
  readonly session: readonly Message[];
  /** The session's report reason (`error` when its prepare threw). */
  readonly sessionReason: string;
  /** Compactions the stateless fitter started in this call. */
  readonly started: number;
  /** Whether preparing failed in the stateless fitter (it sent the history as is). */
  readonly failed: boolean;
  /** Reports of the stateless fitter's compactions that ended in this call. */
  readonly ended: { tokensBefore: number; tokensAfter: number; compacted: boolean }[];
}

/**
 * Replays `messages` call by call: the stateless fitter gets each history whole, a session gets
 * the new messages appended and prepares (what the session integration sends when it throws:
 * the history as is). Same options, each side its own counter, summarizer and hook state.
 */
async function replay(
  messages: readonly Message[],
  ends: readonly number[],
  options: () => { policy: PolicySpec; window: number; hooks?: CompactionHooks },
): Promise<Call[]> {
  const summary = (request: { messages: readonly Message[] }) =>
    `Summary of ${request.messages.length} messages: the user asked about items and got answers.`;
  const events: IntegrationEvent[] = [];
  const fitter = createPromptFitter({
    ...options(),
    counter: createMockTokenCounter(),
    summarizer: createMockSummarizer(summary),
    onEvent: (event) => events.push(event),
  });
  const session = await createChatfold({
    ...options(),
    counter: createMockTokenCounter(),
    summarizer: createMockSummarizer(summary),
  }).session('replay');
  const calls: Call[] = [];
  let appended = 0;
  for (const end of ends) {
    const history = messages.slice(0, end);
    events.length = 0;
    const stateless = await fitter.fit({ messages: history });
    await session.append(history.slice(appended));
    appended = history.length;
    let sent: readonly Message[] = history;
    let sessionReason = 'error';
    try {
      const prepared = await session.prepare();
      sent = prepared.messages;
      sessionReason = prepared.report.reason;
    } catch {
      // The session integration sends the history as is when preparing throws; so does the fitter.
    }
    calls.push({
      count: end,
      stateless,
      session: sent,
      sessionReason,
      started: events.filter((event) => event.type === 'compaction-start').length,
      failed: events.some((event) => event.type === 'prepare-error'),
      ended: events.flatMap((event) => (event.type === 'compaction-end' ? [event.report] : [])),
    });
  }
  return calls;
}

const everyCount = (messages: readonly Message[]) => messages.map((_, i) => i + 1).slice(1);

describe('the stateless fitter waits after a compaction that did not help, like a session', () => {
  it('waits 10 messages after a stalled compaction', async () => {
    const messages = smallTalk(30);
    const calls = await replay(messages, everyCount(messages), () => ({
      policy: EVERY_FIVE,
      window: 100_000,
    }));
    for (const call of calls) expect(call.stateless, `call at ${call.count}`).toEqual(call.session);
    const stalled = calls.find((call) =>
      call.ended.some((report) => report.tokensAfter > report.tokensBefore * 0.95),
    );
    expect(stalled).toBeDefined();
    const at = stalled?.count ?? 0;
    // The trigger holds at every one of the next 9 calls: the session says it waits, the fitter
    // starts no compaction; the 10th message ends the wait for both.
    const waiting = calls.filter((call) => call.count > at && call.count < at + 10);
    expect(waiting).toHaveLength(9);
    for (const call of waiting) {
      expect(call.sessionReason).toBe(WAITING);
      expect(call.started).toBe(0);
    }
    expect(calls.find((call) => call.count === at + 10)?.started).toBe(1);
  });

  it('backs off 2, 4, 8, 16 messages after compactions that threw', async () => {
    const messages = smallTalk(20);
    const calls = await replay(messages, everyCount(messages), () => ({
      policy: EVERY_FIVE,
      window: 100_000,
      hooks: {
        beforeCompact: () => {
          throw new Error('the hook failed');
        },
      },
    }));
    for (const call of calls) expect(call.stateless, `call at ${call.count}`).toEqual(call.session);
    // The trigger holds from message 5 on; each failure doubles the wait.
    const failures = [5, 7, 11, 19, 35];
    expect(calls.filter((call) => call.failed).map((call) => call.count)).toEqual(failures);
    expect(calls.filter((call) => call.sessionReason === 'error').map((call) => call.count)).toEqual(
      failures,
    );
  });
});

const step = fc.oneof(
  fc.record({
    kind: fc.constant('talk' as const),
    user: fc.integer({ min: 1, max: 400 }),
    reply: fc.integer({ min: 1, max: 1500 }),
  }),
  fc.record({
    kind: fc.constant('tools' as const),
    calls: fc.array(
      fc.record({
        name: fc.constantFrom('Read', 'Bash', 'Grep'),
        path: fc.constantFrom('a.ts', 'b.ts', 'src/c.ts'),
        size: fc.integer({ min: 1, max: 4000 }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  }),
);

/** Prose of about `chars` characters that differs from turn to turn (nothing to deduplicate). */
const prose = (turn: number, chars: number) =>
  Array.from({ length: Math.ceil(chars / 40) }, (_, i) => `turn ${turn} line ${i} notes a detail. `)
    .join('')
    .slice(0, chars);

describe('the stateless fitter and a session send the same prompts (TRG-5)', () => {
  it('over generated conversations replayed call by call', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 5, maxLength: 45 }),
        // A system prompt of up to 60 % of the window: compactions then often save under 5 %.
        fc.constantFrom(0, 0.2, 0.5, 0.6),
        // No `messages` trigger here: the fitter counts the messages after the newest summary in
        // the projection, a session those appended since its last compaction (a difference of
        // its own, apart from the loop guard).
        fc.constantFrom<PolicySpec>('default', 'chat-app', SUMMARIZE_ONLY),
        fc.integer({ min: 4_000, max: 16_000 }),
        fc.option(fc.integer({ min: 3, max: 9 }), { nil: undefined }),
        async (steps, systemShare, policy, window, failEvery) => {
          const systemChars = Math.round(systemShare * window * 4); // the mock counts 4 characters a token
          const builder = buildConversation()
            .system(prose(-1, systemChars) || 'Be brief.')
            .user('The goal.');
          steps.forEach((s, turn) => {
            if (s.kind === 'talk')
              builder.assistant(prose(turn, s.reply)).user(`u${turn} ${prose(turn, s.user)}`);
            else
              builder.toolRound(
                s.calls.map((c) => ({ name: c.name, args: { path: c.path }, result: prose(turn, c.size) })),
              );
          });
          const messages = builder.build();
          const ends = messages.flatMap((message, i) => (message.role === 'assistant' && i > 0 ? [i] : []));
          ends.push(messages.length);
          const calls = await replay(messages, ends, () => ({
            policy,
            window,
            ...(failEvery === undefined
              ? {}
              : {
                  hooks: {
                    // Fails on some projections: both sides see the same ones while they agree.
                    beforeCompact: (context) => {
                      if (context.messageCount % failEvery === 0) throw new Error('the hook failed');
                      return undefined;
                    },
                  } satisfies CompactionHooks,
                }),
          }));
          for (const call of calls) expect(call.stateless, `call at ${call.count}`).toEqual(call.session);
        },
      ),
      {
        numRuns: 40,
        // A shrunk case where the session waits after a stalled compaction (call 12).
        examples: [
          [
            [
              { kind: 'talk', user: 1, reply: 1 },
              { kind: 'talk', user: 46, reply: 1441 },
              { kind: 'tools', calls: [{ name: 'Read', path: 'a.ts', size: 1761 }] },
              { kind: 'talk', user: 281, reply: 521 },
              { kind: 'talk', user: 1, reply: 1 },
            ],
            0.6,
            'default',
            4_000,
            undefined,
          ],
        ],
      },
    );
  });
});
