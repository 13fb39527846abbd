// Type tests of the session API, as users import it (`chatfold`).
import {
  type Chatfold,
  type CompactionMode,
  type CompactionPlan,
  type CompactionReport,
  createChatfold,
  type MessageInput,
  memoryStore,
  type PreparedPrompt,
  type Session,
  type SessionCompactOptions,
  type SessionEvent,
  type SessionStatus,
  type Store,
} from 'chatfold';
import { describe, expectTypeOf, it } from 'vitest';

declare const session: Session;

describe('createChatfold', () => {
  it('returns a Chatfold over the store it was given, sessions by id', () => {
    const store = memoryStore();
    const chatfold = createChatfold({ model: 'gpt-4o', store });
    expectTypeOf(chatfold).toExtend<Chatfold<typeof store>>();
    expectTypeOf(chatfold.store).toEqualTypeOf(store);
    expectTypeOf(chatfold.session).parameter(0).toEqualTypeOf<string>();
    expectTypeOf(chatfold.session).returns.resolves.toEqualTypeOf<Session>();
    // A store with the core methods alone is enough.
    expectTypeOf(createChatfold).toBeCallableWith({ window: 8000, store: {} as Store });
  });

  it('onEvent gets every session event with its session id', () => {
    createChatfold({
      model: 'gpt-4o',
      onEvent(event, sessionId) {
        expectTypeOf(event).toEqualTypeOf<SessionEvent>();
        expectTypeOf(sessionId).toEqualTypeOf<string>();
      },
    });
  });

  it('rejects options that are not chatfold options', () => {
    // @ts-expect-error mode is per call (session.compact), not a chatfold option
    createChatfold({ model: 'gpt-4o', mode: 'manual' });
    // @ts-expect-error a window is a number of tokens
    createChatfold({ window: '128k' });
  });
});

describe('session calls', () => {
  it('append takes one message or several and resolves to the stored ones', () => {
    expectTypeOf(session.append).toBeCallableWith({ role: 'user', parts: [{ type: 'text', text: 'hi' }] });
    expectTypeOf(session.append).toBeCallableWith([] as MessageInput[]);
    // @ts-expect-error not a role
    void session.append({ role: 'robot', parts: [] });
  });

  it('prepare resolves to the prompt and its report; it takes a signal', () => {
    expectTypeOf(session.prepare).returns.resolves.toEqualTypeOf<PreparedPrompt>();
    expectTypeOf<PreparedPrompt['report']>().toEqualTypeOf<CompactionReport>();
    expectTypeOf(session.prepare).toBeCallableWith({ signal: new AbortController().signal });
  });

  it('compact takes a manual or auto mode (never overflow), dryRun and a signal, and resolves to the plan', () => {
    expectTypeOf<SessionCompactOptions['mode']>().toEqualTypeOf<'auto' | 'manual' | undefined>();
    expectTypeOf<SessionCompactOptions['mode']>().toExtend<CompactionMode | undefined>();
    expectTypeOf<SessionCompactOptions['dryRun']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<SessionCompactOptions['instructions']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<SessionCompactOptions['signal']>().toEqualTypeOf<AbortSignal | undefined>();
    expectTypeOf(session.compact).returns.resolves.toEqualTypeOf<CompactionPlan>();
    expectTypeOf(session.compact).toBeCallableWith({
      mode: 'manual',
      dryRun: true,
      instructions: 'Keep paths.',
    });
    // @ts-expect-error overflow compactions come from prepare({ overflow })
    void session.compact({ mode: 'overflow' });
    // @ts-expect-error the 0.1 flag is gone: `mode: 'manual'`
    void session.compact({ manual: true });
  });

  it('status resolves to the gauge and the history counts', () => {
    expectTypeOf(session.status).returns.resolves.toEqualTypeOf<SessionStatus>();
    expectTypeOf<SessionStatus['messagesInHistory']>().toEqualTypeOf<number>();
  });
});

describe('session events', () => {
  it('on(type, listener) hands the listener that event type alone', () => {
    session.on('compaction-end', (event) => {
      expectTypeOf(event.type).toEqualTypeOf<'compaction-end'>();
      expectTypeOf(event.report).toEqualTypeOf<CompactionReport>();
      expectTypeOf(event.durationMs).toEqualTypeOf<number>();
    });
    session.on('snapshot-written', (event) => {
      expectTypeOf(event.snapshotId).toEqualTypeOf<string>();
      expectTypeOf(event.cutoffSeq).toEqualTypeOf<number>();
    });
    session.on('compaction-progress', (event) => {
      expectTypeOf(event.delta).toEqualTypeOf<string | undefined>();
    });
    session.on('compaction-fallback', (event) => {
      expectTypeOf(event.source).toEqualTypeOf<'summarizer' | 'stage' | 'counter'>();
    });
    const unsubscribe = session.on('compaction-start', () => undefined);
    expectTypeOf(unsubscribe).toEqualTypeOf<() => void>();
  });

  it('on(type) refuses an event that does not exist, and a listener of another type', () => {
    // @ts-expect-error no such event
    session.on('compaction-finish', () => undefined);
    // @ts-expect-error a compaction-start event has no report
    session.on('compaction-start', (event) => event.report);
  });

  it('on(listener) gets the union, narrowed by type', () => {
    session.on((event) => {
      expectTypeOf(event).toEqualTypeOf<SessionEvent>();
      if (event.type === 'compaction-end') expectTypeOf(event.report).toEqualTypeOf<CompactionReport>();
      if (event.type === 'snapshot-conflict') expectTypeOf(event.reason).toEqualTypeOf<string>();
      if (event.type === 'window-learned') expectTypeOf(event.window).toEqualTypeOf<number>();
    });
  });

  it('the union holds the compaction events plus the session ones', () => {
    expectTypeOf<SessionEvent['type']>().toEqualTypeOf<
      | 'compaction-start'
      | 'compaction-progress'
      | 'compaction-end'
      | 'compaction-error'
      | 'compaction-fallback'
      | 'snapshot-written'
      | 'snapshot-conflict'
      | 'summarizer-backoff'
      | 'background-queued'
      | 'background-ready'
      | 'background-applied'
      | 'background-waiting'
      | 'background-discarded'
      | 'window-learned'
      | 'usage-under-reported'
      | 'history-repaired'
      | 'store-error'
      | 'listener-error'
    >();
  });
});
