import { describe, expect, expectTypeOf, it } from 'vitest';
import { createChatfold } from '../session/create-chatfold.ts';
import { memoryStore } from '../stores/memory/index.ts';
import type { AppendRecord, SnapshotInput, Store } from '../stores/types.ts';
import { buildConversation } from './build-conversation.ts';
import { createMockStore } from './mock-store.ts';

const records = (): AppendRecord[] =>
  buildConversation()
    .system('Be brief.')
    .user('Fix the bug')
    .build()
    .map((message) => ({ message }));

const snapshot: SnapshotInput = {
  kind: 'summary',
  content: { summaryText: 'so far' },
  messageCutoffId: 'm1',
  cutoffSeq: 2,
  tokenCount: 2,
};

describe('createMockStore (ST-1)', () => {
  it('behaves as the memory store and records every call by method, in order', async () => {
    const store = createMockStore();
    expect(store.kind).toBe('memory');
    const rows = await store.append('s1', records());
    expect(rows.map((row) => row.seq)).toEqual([1, 2]);
    expect((await store.messages('s1')).map((row) => row.message.id)).toEqual(['m0', 'm1']);
    await store.writeSnapshot('s1', snapshot, { expectedLatestId: null });
    expect(store.calls.append).toEqual([['s1', records()]]);
    expect(store.calls.messages).toEqual([['s1']]);
    expect(store.calls.writeSnapshot[0]?.[2]).toEqual({ expectedLatestId: null });
    expect(store.calls.search).toEqual([]);
    expect(store.callOrder).toEqual(['append', 'messages', 'writeSnapshot']);
  });

  it('records what a session asks of its store', async () => {
    const store = createMockStore();
    const session = await createChatfold({ window: 12_000, store }).session('s1');
    await session.append(buildConversation().user('Fix the bug').build());
    await session.prepare();
    expect(store.calls.append.map(([sessionId]) => sessionId)).toEqual(['s1']);
    expect(store.callOrder).toContain('context');
  });

  it('fails every call of a method given an Error, without touching the store', async () => {
    const store = createMockStore({ fail: { append: new Error('disk full') } });
    await expect(store.append('s1', records())).rejects.toThrow('disk full');
    expect(await store.messages('s1')).toEqual([]);
    expect(store.calls.append).toHaveLength(1);
  });

  it('fails the calls a per-call array names, then lets every call through', async () => {
    const store = createMockStore({ fail: { getSetting: [new Error('connection reset'), undefined] } });
    await store.setSetting('k', 1);
    await expect(store.getSetting('k')).rejects.toThrow('connection reset');
    await expect(store.getSetting('k')).resolves.toBe(1);
    await expect(store.getSetting('k')).resolves.toBe(1);
  });

  it('decides from a function of the arguments, and may hold a call back', async () => {
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store = createMockStore({
      fail: {
        append: (sessionId) => (sessionId === 'readonly' ? new Error('read-only session') : undefined),
        // Both writers read "no snapshot yet" and write at the same moment (ST-5).
        writeSnapshot: async () => {
          if (store.calls.writeSnapshot.length === 2) release();
          await gate;
          return undefined;
        },
      },
    });
    await expect(store.append('readonly', records())).rejects.toThrow('read-only session');
    await store.append('s1', records());
    const results = await Promise.all([
      store.writeSnapshot('s1', snapshot, { expectedLatestId: null }),
      store.writeSnapshot('s1', snapshot, { expectedLatestId: null }),
    ]);
    expect(results.map((result) => result.written).sort()).toEqual([false, true]);
  });

  it('a session surfaces a store failure and recovers on the next call', async () => {
    const store = createMockStore({ fail: { getSetting: [new Error('connection reset')] } });
    const chatfold = createChatfold({ window: 12_000, store });
    await expect(chatfold.session('flaky')).rejects.toThrow('connection reset');
    expect((await chatfold.session('flaky')).id).toBe('flaky');
  });

  it('wraps the store it is given, keeping its type', async () => {
    const inner = memoryStore({ now: () => new Date(Date.UTC(2026, 0, 1)) });
    const store = createMockStore({ store: inner });
    await store.append('s1', records());
    expect((await inner.messages('s1')).map((row) => row.storedAt)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
    ]);
    expectTypeOf(store).toExtend<typeof inner>();
    const core: Store = {
      kind: 'core-only',
      append: inner.append.bind(inner),
      messages: inner.messages.bind(inner),
      recordUsage: inner.recordUsage.bind(inner),
      latestSnapshot: inner.latestSnapshot.bind(inner),
      writeSnapshot: inner.writeSnapshot.bind(inner),
      context: inner.context.bind(inner),
      close: inner.close.bind(inner),
    };
    const mock = createMockStore({ store: core });
    expect(mock.kind).toBe('core-only');
    expect('search' in mock).toBe(false);
  });

  it('rejects a failure for a method the store does not have (E_INVALID_OPTIONS)', () => {
    expect(() => createMockStore({ fail: { apend: new Error('x') } as never })).toThrow(
      expect.objectContaining({
        code: 'E_INVALID_OPTIONS',
        message: expect.stringMatching(/fail\.apend names no method/),
      }),
    );
  });
});
