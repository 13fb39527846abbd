import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompactionPlan, CompactionSummary } from '../compaction/types.ts';
import type { JsonValue, Message } from '../messages/types.ts';
import { memoryStore } from '../stores/memory/index.ts';
import { emptyFactLists } from '../summarize/ledger.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { caughtError } from '../test/caught-error.ts';
import { INITIAL_SESSION_STATE, readSessionState, type SessionCompactionState } from './compaction-state.ts';
import { createChatfold } from './create-chatfold.ts';
import { type PendingPlan, pendingPlanJson, readPendingPlan } from './pending-plan.ts';
import { sessionStateKey } from './session.ts';
import { readSnapshotContent, snapshotContent, toJson } from './snapshot-content.ts';

// Issue 22 §4: persisted formats have schemas with a version, parsed at the boundary.

const json = (value: unknown): JsonValue => JSON.parse(JSON.stringify(value)) as JsonValue;
const bumped = (value: JsonValue): JsonValue => ({ ...(value as Record<string, JsonValue>), version: 2 });
const unversioned = (value: JsonValue): JsonValue => {
  const { version: _, ...rest } = value as Record<string, JsonValue>;
  return rest;
};

function expectUnsupported(run: () => unknown, record: string): void {
  const error = caughtError(run);
  expect(error.code).toBe('E_UNSUPPORTED_VERSION');
  expect(error.details).toMatchObject({ record, version: 2, supported: 1 });
  expect(error.message).toContain(record);
}

const messages = buildConversation()
  .system('You are a coding agent.')
  .user('Fix the failing test')
  .toolRound([{ name: 'Read', args: { file_path: 'src/a.ts' }, result: 'export const a = 1;' }])
  .user('now run it')
  .build();

const summary: CompactionSummary = {
  text: 'Read src/a.ts.',
  ledger: { ...emptyFactLists(), filesRead: ['src/a.ts'] },
  covers: { firstId: 'm2', lastId: 'm3', count: 2 },
  source: 'extractive',
  messageId: 'cf_summary_1',
};

const summaryMessage: Message = {
  id: 'cf_summary_1',
  role: 'user',
  parts: [{ type: 'text', text: 'Summary: Read src/a.ts.' }],
  createdAt: '2026-01-01T00:00:03.000Z',
  metadata: {
    chatfold: { version: 1, transform: 'summary', ...(json(summary) as Record<string, JsonValue>) },
  },
};

/** A plan as `planCompaction` returns it, read back from JSON (as a store holds it). */
const plan = json({
  version: 1,
  compacted: true,
  cancelled: false,
  mode: 'manual',
  reason: 'manual',
  budget: { window: 8000, responseReserve: 1000, safetyMargin: 0, toolTokens: 0, messages: 7000 },
  target: 100,
  tokensBefore: 400,
  tokensAfter: 120,
  messagesBefore: 5,
  messagesAfter: 4,
  tokenizer: 'chars/4',
  accuracy: 'approximate',
  stages: [
    {
      stage: 'summarize',
      tokensBefore: 400,
      tokensAfter: 120,
      dropped: 2,
      stubbed: 0,
      masked: 0,
      summarized: 2,
      clipped: 0,
      notes: ['summarized 2 message(s) (extractive)'],
    },
  ],
  summary,
  fallbacks: [],
  warnings: [],
  input: { count: 5, firstId: 'm0', lastId: 'm4' },
  dropped: ['m2', 'm3'],
  replaced: [],
  inserted: [{ beforeId: 'm2', message: summaryMessage }],
  firstKeptId: 'm4',
}) as unknown as CompactionPlan;

const head = [messages[0] as Message, messages[1] as Message, summaryMessage];
const written = toJson(
  snapshotContent(plan, {
    cutoffSeq: 3,
    cutoffId: 'm3',
    firstId: 'm2',
    projectionHead: head,
    headSeqs: [0, 1, null],
    summaryTokens: 12,
    summary,
    summarySeqs: { first: 2, last: 3 },
    durationMs: 5,
    timestamp: '2026-01-01T00:00:05.000Z',
    atSeq: 5,
  }),
);

describe('summary snapshot content', () => {
  it('round-trips: what a session writes (with version 1) reads back through JSON as it was', () => {
    expect((written as { version: number }).version).toBe(1);
    const read = readSnapshotContent(json(written));
    expect(read?.head).toEqual(head);
    expect(read).toMatchObject({
      messagesIncluded: 2,
      summaryText: summary.text,
      ledger: summary.ledger,
      headSeqs: [0, 1, null],
      summary,
      summarySeqs: { first: 2, last: 3 },
      compaction: { mode: 'manual', tokensBefore: 400, tokensAfter: 120, durationMs: 5, atSeq: 5 },
    });
  });

  it('reads content written before versions existed as version 1', () => {
    const old = unversioned(json(written));
    expect(readSnapshotContent(old)).toEqual(readSnapshotContent(json(written)));
  });

  it('refuses content of a newer version with E_UNSUPPORTED_VERSION naming it', () => {
    expectUnsupported(() => readSnapshotContent(bumped(json(written))), 'summary snapshot');
  });

  it('resumes content with the ST-2 fields only as a summary message carrying the summary as data', () => {
    const other = json({
      summaryText: 'They fixed the test.',
      messageRange: { firstMessageId: 'a', lastMessageId: 'b' },
      compressionTimestamp: '2026-01-01T00:00:00.000Z',
      compressionType: 'auto',
      originalTokenCount: 100,
      summaryTokenCount: 10,
      messagesIncluded: 7,
    });
    const read = readSnapshotContent(other);
    expect(read?.head).toHaveLength(1);
    expect(read?.head[0]?.metadata?.chatfold).toMatchObject({
      version: 1,
      transform: 'summary',
      text: 'They fixed the test.',
      covers: { firstId: 'a', lastId: 'b', count: 7 },
    });
    expect(read?.ledger.filesRead).toEqual([]);
  });

  it('a head message that is not a message is not resumed from', () => {
    const broken = { ...(json(written) as Record<string, JsonValue>), projectionHead: [{ id: 1 }] };
    // Falls back to the summary text, as for content of other tools.
    expect(readSnapshotContent(broken)?.head[0]?.id).toBe('cf_summary_resumed_2');
    expect(readSnapshotContent(json({ notASnapshot: true }))).toBeUndefined();
    expect(readSnapshotContent(null)).toBeUndefined();
  });
});

describe('session compaction state', () => {
  const state: SessionCompactionState = {
    guard: { resumeAt: 40, consecutiveFailures: 1, consecutiveStalls: 0 },
    consecutiveCancels: 2,
    summarizerFailures: 3,
    summarizerRetryAt: 1_800_000_000_000,
  };

  it('round-trips through JSON, written with or without a version (as before this format had one)', () => {
    fc.assert(
      fc.property(
        fc.record({
          guard: fc.record({
            resumeAt: fc.nat(),
            consecutiveFailures: fc.nat(),
            consecutiveStalls: fc.nat(),
          }),
          consecutiveCancels: fc.nat(),
          summarizerFailures: fc.nat(),
          summarizerRetryAt: fc.nat(),
        }),
        fc.boolean(),
        (random, withVersion) => {
          const stored = json(withVersion ? { version: 1, ...random } : random);
          expect(readSessionState(stored)).toEqual(random);
        },
      ),
    );
  });

  it('refuses a state of a newer version with E_UNSUPPORTED_VERSION naming it', () => {
    expectUnsupported(() => readSessionState({ version: 2, ...state }), 'session state');
  });

  it('starts fresh from what is not a state, field by field', () => {
    expect(readSessionState(undefined)).toEqual(INITIAL_SESSION_STATE);
    expect(readSessionState('state')).toEqual(INITIAL_SESSION_STATE);
    expect(readSessionState({ version: 'one' })).toEqual(INITIAL_SESSION_STATE);
    expect(readSessionState({ ...state, guard: { resumeAt: -1 }, consecutiveCancels: 'x' })).toEqual({
      ...state,
      guard: INITIAL_SESSION_STATE.guard,
      consecutiveCancels: 0,
    });
  });
});

describe('through a session and its store', () => {
  it('a session writes its state with the version and refuses to open on a newer one', async () => {
    const store = memoryStore();
    // A cancel is something the session remembers (HK-1: consecutive cancels).
    const hooks = { beforeCompact: () => ({ cancel: true }) };
    const session = await createChatfold({ window: 6000, store, hooks }).session('s');
    const rounds = buildConversation().system('system').user('goal');
    for (let i = 0; i < 8; i++)
      rounds
        .toolRound([{ name: 'Read', args: { file_path: `f${i}.ts` }, result: 'x'.repeat(1500) }])
        .user(`next ${i}`);
    await session.append(rounds.build());
    expect((await session.compact()).cancelled).toBe(true);
    const stored = await store.getSetting(sessionStateKey('s'));
    expect(stored).toMatchObject({ version: 1, consecutiveCancels: 1 });
    expect(readSessionState(stored)).toMatchObject({ consecutiveCancels: 1 });
    await store.setSetting(sessionStateKey('s'), bumped(stored as JsonValue));
    const error = await createChatfold({ window: 6000, store })
      .session('s')
      .then(
        () => undefined,
        (rejected: unknown) => rejected,
      );
    expect(error).toMatchObject({ code: 'E_UNSUPPORTED_VERSION', details: { record: 'session state' } });
  });
});

describe('pending background plan', () => {
  const pending: PendingPlan = {
    version: 1,
    baseSnapshotId: 'snap-1',
    createdAt: '2026-01-01T00:00:00.000Z',
    plan,
  };

  it('round-trips through its JSON', () => {
    expect(readPendingPlan(pendingPlanJson(pending))).toEqual(pending);
  });

  it('refuses a pending plan of a newer version with E_UNSUPPORTED_VERSION naming it', () => {
    expectUnsupported(() => readPendingPlan(bumped(pendingPlanJson(pending))), 'pending plan');
  });

  it('a cleared or malformed pending plan is none', () => {
    expect(readPendingPlan(null)).toBeUndefined();
    expect(readPendingPlan(undefined)).toBeUndefined();
    expect(
      readPendingPlan({ ...(pendingPlanJson(pending) as Record<string, JsonValue>), plan: { version: 1 } }),
    ).toBeUndefined();
    expect(
      readPendingPlan({ ...(pendingPlanJson(pending) as Record<string, JsonValue>), createdAt: 5 }),
    ).toBeUndefined();
  });
});
