/**
 * The one conformance suite every Store implementation passes (ST-1). A store test calls
 * `runStoreConformance(name, factory)`; `factory` returns a fresh, empty store (and, for
 * persistent stores, `reopen` to open the same data again).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatfoldError } from '../../src/errors/chatfold-error.ts';
import { normalizeMessages } from '../../src/messages/normalize.ts';
import type { JsonValue, Message, Part } from '../../src/messages/types.ts';
import { MAX_SESSION_ID_LENGTH } from '../../src/stores/shared/errors.ts';
import type { AppendRecord, FullStore, SnapshotInput, Store } from '../../src/stores/types.ts';
import { buildConversation } from '../../src/test/build-conversation.ts';

export interface StoreUnderTest {
  readonly store: FullStore;
  /** Opens the same data again (a restart); persistent stores only. */
  readonly reopen?: () => Promise<FullStore>;
  readonly cleanup?: () => Promise<void>;
}

let counter = 0;

/** A message with an id unique in the test run. */
export function message(text: string, role: Message['role'] = 'user', extra: Partial<Message> = {}): Message {
  counter++;
  return {
    id: `msg_${counter}_${text.length}`,
    role,
    parts: [{ type: 'text', text }],
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, counter % 60)).toISOString(),
    ...extra,
  };
}

const records = (messages: readonly Message[]): AppendRecord[] => messages.map((m) => ({ message: m }));

function summary(cutoffSeq: number, cutoffId: string, text = 'summary'): SnapshotInput {
  return {
    kind: 'summary',
    content: {
      summaryText: text,
      messageRange: { firstMessageId: 'a', lastMessageId: cutoffId },
      compressionTimestamp: '2026-01-01T00:00:00.000Z',
      compressionType: 'auto',
      originalTokenCount: 1000,
      summaryTokenCount: 100,
      messagesIncluded: cutoffSeq,
      ledger: {
        filesRead: ['src/a.ts'],
        filesModified: [],
        commands: [],
        urls: [],
        identifiers: [],
        numbers: [],
        errors: [],
      },
    },
    messageCutoffId: cutoffId,
    cutoffSeq,
    tokenCount: 100,
  };
}

const text = fc.string({ unit: 'binary', maxLength: 40 });
/** JSON values as JSON text holds them: fc.jsonValue() also yields -0, which JSON writes as 0. */
const jsonValue = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as JsonValue);
const providerMetadata = fc.option(
  fc.dictionary(fc.constantFrom('openai', 'anthropic', 'google'), fc.dictionary(fc.string(), jsonValue)),
  { nil: undefined },
);
/** Drops `undefined` properties: optional fields are absent, never `undefined` (exactOptionalPropertyTypes). */
const withoutUndefined = <T>(value: object): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
const partArbitrary: fc.Arbitrary<Part> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text, providerMetadata }).map(withoutUndefined<Part>),
  fc
    .record({
      type: fc.constant('reasoning' as const),
      text,
      signature: fc.option(fc.base64String(), { nil: undefined }),
      redactedData: fc.option(fc.base64String(), { nil: undefined }),
    })
    .map(withoutUndefined<Part>),
  fc
    .record({
      type: fc.constant('tool-call' as const),
      id: fc.string({ minLength: 1 }),
      name: fc.string({ minLength: 1 }),
      arguments: fc.jsonValue().map((v) => JSON.stringify(v)),
    })
    .map(withoutUndefined<Part>),
  fc
    .record({
      type: fc.constant('tool-result' as const),
      callId: fc.string({ minLength: 1 }),
      isError: fc.option(fc.boolean(), { nil: undefined }),
      content: fc.array(fc.record({ type: fc.constant('text' as const), text }), { maxLength: 3 }),
    })
    .map(withoutUndefined<Part>),
  fc
    .record({
      type: fc.constant('attachment' as const),
      kind: fc.constantFrom('image' as const, 'file' as const),
      mediaType: fc.constantFrom('image/png', 'application/pdf', 'application/octet-stream'),
      filename: fc.option(text, { nil: undefined }),
      size: fc.option(fc.nat(), { nil: undefined }),
      data: fc.option(fc.base64String({ maxLength: 64 }), { nil: undefined }),
      url: fc.option(fc.webUrl(), { nil: undefined }),
    })
    .map(withoutUndefined<Part>),
);

/** Messages with any content a store must keep exactly; the test gives each its id. */
const messageArbitrary: fc.Arbitrary<Message> = fc
  .record({
    id: fc.constant(''),
    role: fc.constantFrom('system' as const, 'user' as const, 'assistant' as const, 'tool' as const),
    parts: fc.array(partArbitrary, { maxLength: 4 }),
    createdAt: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    name: fc.option(text, { nil: undefined }),
    pinned: fc.option(fc.boolean(), { nil: undefined }),
    metadata: fc.option(fc.dictionary(fc.string(), jsonValue), { nil: undefined }),
    providerMetadata,
  })
  .map(withoutUndefined<Message>);

/** Registers the conformance tests for one store implementation. */
export function runStoreConformance(name: string, factory: () => Promise<StoreUnderTest>): void {
  describe(`Store conformance: ${name} (ST-1..5)`, () => {
    const opened: StoreUnderTest[] = [];
    const open = async (): Promise<StoreUnderTest> => {
      const under = await factory();
      opened.push(under);
      return under;
    };
    afterEach(async () => {
      for (const under of opened.splice(0)) {
        await under.store.close();
        await under.cleanup?.();
      }
    });

    it('appends in order with seq 1..n and no gaps, creating the session', async () => {
      const { store } = await open();
      const batch = [message('a'), message('b', 'assistant'), message('c')];
      const rows = await store.append('s', records(batch));
      expect(rows.map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(rows.every((r) => r.sessionId === 's' && typeof r.storedAt === 'string')).toBe(true);
      const more = await store.append('s', records([message('d')]));
      expect(more[0]?.seq).toBe(4);
      expect((await store.messages('s')).map((r) => r.message.id)).toEqual([
        ...batch.map((m) => m.id),
        more[0]?.message.id,
      ]);
      expect((await store.getSession('s'))?.messageCount).toBe(4);
      expect(await store.messages('nobody')).toEqual([]);
    });

    it('is idempotent for a re-appended id and refuses the same id with other content', async () => {
      const { store } = await open();
      const m = message('once');
      const [first] = await store.append('s', records([m]));
      const again = await store.append('s', records([m, message('next')]));
      expect(again.map((r) => r.seq)).toEqual([1, 2]);
      expect(again[0]).toEqual(first);
      await expect(
        store.append('s', records([{ ...m, parts: [{ type: 'text', text: 'changed' }] }])),
      ).rejects.toSatisfy((e: unknown) => ChatfoldError.hasCode(e, 'E_STORE_CONFLICT'));
      // All or nothing: the failed batch stored nothing.
      expect((await store.messages('s')).length).toBe(2);
      // The same id in another session is another message.
      expect((await store.append('t', records([m])))[0]?.seq).toBe(1);
    });

    it('stores the message it checked: one that changes between reads is kept as first read, readable (issue 24 §2)', async () => {
      const { store } = await open();
      const honest = message('first answer');
      let reads = 0;
      // Every read of `parts` after the first answers with something that is not parts.
      const liar = new Proxy(honest, {
        get(target, key, receiver) {
          if (key === 'parts' && ++reads > 1) return 42;
          return Reflect.get(target, key, receiver);
        },
      });
      const [row] = await store.append('s', records([liar]));
      expect(reads).toBe(1);
      expect(row?.message).toEqual(honest);
      expect((await store.messages('s')).map((r) => r.message)).toEqual([honest]);
    });

    it('refuses a record it could not read back, storing nothing of the batch (issue 24 §2)', async () => {
      const { store } = await open();
      const bad = [
        { ...message('x'), parts: null },
        { ...message('x'), metadata: { when: new Date(0) } },
        new Proxy(message('x'), {
          get() {
            throw new TypeError('no reading me');
          },
        }),
      ];
      for (const item of bad) {
        await expect(
          store.append('s', records([message('ok'), item as unknown as Message])),
        ).rejects.toSatisfy((e: unknown) => ChatfoldError.hasCode(e, 'E_INVALID_MESSAGE'));
      }
      expect(await store.messages('s')).toEqual([]);
    });

    it('leases a session to one holder at a time, renewable, released, expiring (issue 24 §5)', async () => {
      const { store } = await open();
      expect(await store.acquireLease('s', 'a', 60_000)).toBe(true);
      expect(await store.acquireLease('s', 'b', 60_000)).toBe(false);
      expect(await store.acquireLease('s', 'a', 60_000)).toBe(true); // renewed
      expect(await store.acquireLease('t', 'b', 60_000)).toBe(true); // another session
      await store.releaseLease('s', 'b'); // not b's: nothing happens
      expect(await store.acquireLease('s', 'b', 60_000)).toBe(false);
      await store.releaseLease('s', 'a');
      expect(await store.acquireLease('s', 'b', 0)).toBe(true);
      // A lease of 0 ms has expired already: anyone may take it over.
      expect(await store.acquireLease('s', 'c', 60_000)).toBe(true);
      expect(await store.acquireLease('s', 'b', 60_000)).toBe(false);
    });

    it('says who holds a lease, and replaces a live lease only when its exact holder is named as dead', async () => {
      const { store } = await open();
      expect(await store.currentLease('s')).toBeUndefined();
      expect(await store.acquireLease('s', 'dead', 60_000)).toBe(true);
      expect(await store.currentLease('s')).toEqual({ holder: 'dead', expiresAt: expect.any(Number) });
      expect(await store.acquireLease('s', 'b', 60_000, 'someone else')).toBe(false);
      expect(await store.acquireLease('s', 'b', 60_000, 'dead')).toBe(true);
      // The dead holder's lease is gone: a second waiter naming it gets nothing.
      expect(await store.acquireLease('s', 'c', 60_000, 'dead')).toBe(false);
      expect((await store.currentLease('s'))?.holder).toBe('b');
      await store.releaseLease('s', 'b');
      expect(await store.currentLease('s')).toBeUndefined();
    });

    it('gives a contended lease to exactly one of many concurrent holders, across instances (issue 24 §5)', async () => {
      const under = await open();
      const other = under.reopen === undefined ? under.store : await under.reopen();
      try {
        const holders = Array.from({ length: 8 }, (_, i) => `h${i}`);
        const won = await Promise.all(
          holders.map((holder, i) => (i % 2 === 0 ? under.store : other).acquireLease('s', holder, 60_000)),
        );
        expect(won.filter(Boolean)).toHaveLength(1);
        const winner = holders[won.indexOf(true)] as string;
        await (other === under.store ? under.store : other).releaseLease('s', winner);
        expect(await under.store.acquireLease('s', 'next', 60_000)).toBe(true);
      } finally {
        if (other !== under.store) await other.close();
      }
    });

    it('appends a batch all or none', async () => {
      const { store } = await open();
      const m = message('x');
      await store.append('s', records([m]));
      const clash = { ...m, parts: [{ type: 'text' as const, text: 'other' }] };
      await expect(store.append('s', records([message('y'), clash]))).rejects.toBeInstanceOf(Error);
      expect((await store.messages('s')).map((r) => r.seq)).toEqual([1]);
    });

    it('queries by seq range, limit and order', async () => {
      const { store } = await open();
      await store.append('s', records(Array.from({ length: 10 }, (_, i) => message(`m${i}`))));
      const seqs = async (q: Parameters<Store['messages']>[1]) =>
        (await store.messages('s', q)).map((r) => r.seq);
      expect(await seqs({ afterSeq: 7 })).toEqual([8, 9, 10]);
      expect(await seqs({ beforeSeq: 3 })).toEqual([1, 2]);
      expect(await seqs({ afterSeq: 2, beforeSeq: 6 })).toEqual([3, 4, 5]);
      expect(await seqs({ limit: 3 })).toEqual([1, 2, 3]);
      expect(await seqs({ limit: 3, order: 'desc' })).toEqual([10, 9, 8]);
      expect(await seqs({ beforeSeq: 6, limit: 2, order: 'desc' })).toEqual([5, 4]);
    });

    it('round-trips content exactly: unicode, attachments, tool parts, reasoning, metadata, usage', async () => {
      const { store } = await open();
      const rich: Message = {
        id: 'rich "quoted"\n/../id',
        role: 'assistant',
        createdAt: '2026-02-03T04:05:06.789Z',
        name: 'agent',
        pinned: true,
        usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 1 },
        metadata: { nested: { a: [1, 2.5, null, true, 'ü'] } },
        providerMetadata: { anthropic: { cache_control: { type: 'ephemeral' } } },
        parts: [
          { type: 'reasoning', text: 'thinking…', signature: 'sig==' },
          { type: 'text', text: 'emoji 🧪, CJK 漢字, RTL שלום, NUL-free \u2028 line sep' },
          { type: 'tool-call', id: 'call_1', name: 'Read', arguments: '{"file_path": "src/ä.ts" ,"n":1}' },
          { type: 'attachment', kind: 'image', mediaType: 'image/png', size: 1234, filename: 'x.png' },
        ],
      };
      const tool: Message = {
        id: 'tool-1',
        role: 'tool',
        createdAt: '2026-02-03T04:05:07.000Z',
        parts: [
          {
            type: 'tool-result',
            callId: 'call_1',
            toolName: 'Read',
            isError: true,
            content: [{ type: 'text', text: 'ENOENT' }],
          },
        ],
      };
      await store.append('weird/../ session "id" 🧪', [
        {
          message: rich,
          inputTokens: 100,
          outputTokens: 7,
          tokenEstimate: 95,
          tokenizer: 'openai:o200k_base',
        },
        { message: tool },
      ]);
      const [a, b] = await store.messages('weird/../ session "id" 🧪');
      expect(a?.message).toEqual(rich);
      expect(a).toMatchObject({
        inputTokens: 100,
        outputTokens: 7,
        tokenEstimate: 95,
        tokenizer: 'openai:o200k_base',
      });
      expect(b?.message).toEqual(tool);
      expect(JSON.stringify(a?.message)).toBe(JSON.stringify(rich));
    });

    it('records usage on a stored message and changes nothing else', async () => {
      const { store } = await open();
      const m = message('reply', 'assistant');
      await store.append('s', records([message('q'), m]));
      await store.recordUsage('s', m.id, { inputTokens: 500, outputTokens: 20 });
      const rows = await store.messages('s');
      expect(rows[1]).toMatchObject({ seq: 2, inputTokens: 500, outputTokens: 20, message: m });
      expect(rows[0]?.inputTokens).toBeUndefined();
    });

    it('writes snapshots compare-and-set, per kind (ST-4, ST-5)', async () => {
      const { store } = await open();
      const batch = Array.from({ length: 6 }, (_, i) => message(`m${i}`));
      await store.append('s', records(batch));
      expect(await store.latestSnapshot('s')).toBeUndefined();
      const first = await store.writeSnapshot('s', summary(3, batch[2]?.id as string), {
        expectedLatestId: null,
      });
      expect(first.written).toBe(true);
      if (!first.written) return;
      expect(first.snapshot).toMatchObject({
        sessionId: 's',
        kind: 'summary',
        cutoffSeq: 3,
        tokenCount: 100,
      });
      const stale = await store.writeSnapshot('s', summary(4, batch[3]?.id as string), {
        expectedLatestId: null,
      });
      expect(stale).toEqual({ written: false, latest: first.snapshot });
      const second = await store.writeSnapshot('s', summary(5, batch[4]?.id as string, 'second'), {
        expectedLatestId: first.snapshot.id,
      });
      expect(second.written).toBe(true);
      expect((await store.latestSnapshot('s'))?.cutoffSeq).toBe(5);
      expect((await store.latestSnapshot('s', 'summary'))?.content).toMatchObject({ summaryText: 'second' });
      // Another kind has its own chain.
      const title = await store.writeSnapshot(
        's',
        {
          kind: 'title',
          content: 'Fixing the parser',
          messageCutoffId: batch[0]?.id as string,
          cutoffSeq: 1,
          tokenCount: 3,
        },
        { expectedLatestId: null },
      );
      expect(title.written).toBe(true);
      expect((await store.latestSnapshot('s', 'title'))?.content).toBe('Fixing the parser');
      expect((await store.snapshots('s', 'summary')).map((s) => s.cutoffSeq)).toEqual([3, 5]);
      expect((await store.snapshots('s')).length).toBe(3);
      // Messages are untouched by snapshots (ST-3).
      expect((await store.messages('s')).length).toBe(6);
    });

    it('lets exactly one of concurrent snapshot writers win', async () => {
      const { store } = await open();
      const batch = Array.from({ length: 4 }, (_, i) => message(`m${i}`));
      await store.append('s', records(batch));
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          store.writeSnapshot('s', summary(2, batch[1]?.id as string, `w${i}`), { expectedLatestId: null }),
        ),
      );
      expect(results.filter((r) => r.written).length).toBe(1);
      expect((await store.snapshots('s', 'summary')).length).toBe(1);
    });

    it('reads the context: latest summary, head, and the messages after its cutoff (ST-6)', async () => {
      const { store } = await open();
      const batch = Array.from({ length: 8 }, (_, i) => message(`m${i}`));
      await store.append('s', records(batch));
      const none = await store.context('s', { headCount: 2 });
      expect(none.snapshot).toBeUndefined();
      expect(none.tail.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(none.messageCount).toBe(8);
      await store.writeSnapshot('s', summary(5, batch[4]?.id as string), { expectedLatestId: null });
      const ctx = await store.context('s', { headCount: 2 });
      expect(ctx.snapshot?.cutoffSeq).toBe(5);
      expect(ctx.head.map((r) => r.seq)).toEqual([1, 2]);
      expect(ctx.tail.map((r) => r.seq)).toEqual([6, 7, 8]);
      expect(ctx.messageCount).toBe(8);
      expect((await store.context('s')).head).toEqual([]);
      const empty = await store.context('nobody');
      expect(empty).toMatchObject({ head: [], tail: [], messageCount: 0 });
    });

    it('searches text, tool arguments and tool results case-insensitively, newest first, with paging', async () => {
      const { store } = await open();
      const call: Message = {
        id: 'call-msg',
        role: 'assistant',
        createdAt: '2026-01-01T00:00:00.000Z',
        parts: [{ type: 'tool-call', id: 'c1', name: 'Read', arguments: '{"file_path":"src/Parser.ts"}' }],
      };
      const result: Message = {
        id: 'result-msg',
        role: 'tool',
        createdAt: '2026-01-01T00:00:01.000Z',
        parts: [
          { type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: 'export class PARSER {}' }] },
        ],
      };
      await store.append(
        's',
        records([
          message('fix the parser please'),
          call,
          result,
          message('unrelated'),
          message('Parser done'),
        ]),
      );
      const hits = await store.search('s', { text: 'parser' });
      expect(hits.map((r) => r.seq)).toEqual([5, 3, 2, 1]);
      expect((await store.search('s', { text: 'PARSER', limit: 2 })).map((r) => r.seq)).toEqual([5, 3]);
      expect((await store.search('s', { text: 'parser', beforeSeq: 3 })).map((r) => r.seq)).toEqual([2, 1]);
      expect(await store.search('s', { text: '100%_' })).toEqual([]);
      expect(await store.search('other', { text: 'parser' })).toEqual([]);
    });

    it('keeps sessions, metadata and settings', async () => {
      const { store } = await open();
      const created = await store.ensureSession('a', { title: 'first', tags: ['x'] });
      expect(created).toMatchObject({ id: 'a', messageCount: 0, metadata: { title: 'first', tags: ['x'] } });
      const merged = await store.ensureSession('a', { owner: 'me' });
      expect(merged.metadata).toEqual({ title: 'first', tags: ['x'], owner: 'me' });
      await store.append('b', records([message('hi')]));
      const ids = (await store.listSessions()).map((s) => s.id).sort();
      expect(ids).toEqual(['a', 'b']);
      expect((await store.listSessions({ limit: 1 })).length).toBe(1);
      expect(await store.getSession('zzz')).toBeUndefined();
      expect(await store.getSetting('k')).toBeUndefined();
      await store.setSetting('k', { n: 1, list: [true, null, 'ü'] });
      expect(await store.getSetting('k')).toEqual({ n: 1, list: [true, null, 'ü'] });
      await store.setSetting('k', 2);
      expect(await store.getSetting('k')).toBe(2);
    });

    it('never loses or duplicates a seq under concurrent appends', async () => {
      const { store } = await open();
      const batches = Array.from({ length: 20 }, (_, b) =>
        Array.from({ length: 5 }, (_, i) => message(`b${b}m${i}`)),
      );
      await Promise.all(batches.map((batch) => store.append('s', records(batch))));
      const rows = await store.messages('s');
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(new Set(rows.map((r) => r.message.id)).size).toBe(100);
      // Each batch stays contiguous and in order (a batch is one transaction).
      for (const batch of batches) {
        const at = rows.findIndex((r) => r.message.id === batch[0]?.id);
        expect(rows.slice(at, at + batch.length).map((r) => r.message.id)).toEqual(batch.map((m) => m.id));
      }
    });

    it('serves concurrent reads while appending, each a consistent prefix', async () => {
      const under = await open();
      const { store } = under;
      // With a second instance, the reads must also catch up with rows written elsewhere.
      const writer = under.reopen === undefined ? store : await under.reopen();
      if (writer !== store) opened.push({ store: writer });
      const reads: (readonly { seq: number }[])[] = [];
      await store.messages('s');
      await writer.append('s', records([message('first'), message('second')]));
      // Several reads catching up with the same new rows at once.
      reads.push(...(await Promise.all([store.messages('s'), store.messages('s'), store.messages('s')])));
      await writer.append('s', records([message('third')]));
      await Promise.all([store.search('s', { text: 'x' }), store.context('s'), store.getSession('s')]);
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 30; i++) {
        work.push(writer.append('s', records([message(`w${i}`), message(`v${i}`)])));
        work.push(store.messages('s').then((rows) => reads.push(rows)));
        work.push(store.context('s').then((ctx) => reads.push(ctx.tail)));
        work.push(store.search('s', { text: 'w', limit: 1000 }));
      }
      await Promise.all(work);
      for (const rows of reads) expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
      expect(reads[0]?.length).toBe(2);
      expect((await store.messages('s')).map((r) => r.seq)).toEqual(
        Array.from({ length: 63 }, (_, i) => i + 1),
      );
    });

    it('keeps the seq invariant for random append batches (property)', async () => {
      const { store } = await open();
      let session = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(fc.string({ maxLength: 30 }), { maxLength: 5 }), { maxLength: 6 }),
          async (batches) => {
            const id = `p${session++}`;
            const all: Message[] = [];
            for (const texts of batches) {
              const batch = texts.map((t) => message(t));
              all.push(...batch);
              await store.append(id, records(batch));
            }
            const rows = await store.messages(id);
            expect(rows.map((r) => r.seq)).toEqual(all.map((_, i) => i + 1));
            expect(rows.map((r) => r.message)).toEqual(all);
          },
        ),
        { numRuns: 25 },
      );
    });

    it('closes idempotently and, when persistent, sees everything after reopening', async () => {
      const under = await open();
      const m = message('persist me');
      await under.store.append('s', [{ message: m, tokenEstimate: 3, tokenizer: 'chars/4' }]);
      await under.store.writeSnapshot('s', summary(1, m.id), { expectedLatestId: null });
      await under.store.setSetting('k', 'v');
      await under.store.close();
      await under.store.close();
      if (under.reopen === undefined) return;
      const again = await under.reopen();
      opened.push({ store: again });
      expect((await again.messages('s')).map((r) => r.message)).toEqual([m]);
      expect((await again.messages('s'))[0]).toMatchObject({
        seq: 1,
        tokenEstimate: 3,
        tokenizer: 'chars/4',
      });
      expect((await again.latestSnapshot('s'))?.cutoffSeq).toBe(1);
      expect(await again.getSetting('k')).toBe('v');
      expect((await again.getSession('s'))?.messageCount).toBe(1);
      expect((await again.append('s', records([message('after')])))[0]?.seq).toBe(2);
      // Idempotency and conflicts survive a restart.
      expect((await again.append('s', records([m])))[0]?.seq).toBe(1);
      await expect(
        again.append('s', records([{ ...m, parts: [{ type: 'text', text: 'changed' }] }])),
      ).rejects.toSatisfy((e: unknown) => ChatfoldError.hasCode(e, 'E_STORE_CONFLICT'));
      await again.recordUsage('s', m.id, { inputTokens: 11 });
      await again.ensureSession('meta', { title: 'kept' });
      const latest = await again.latestSnapshot('s');
      await again.close();
      const third = await under.reopen();
      opened.push({ store: third });
      expect((await third.messages('s'))[0]?.inputTokens).toBe(11);
      expect((await third.getSession('meta'))?.metadata).toEqual({ title: 'kept' });
      expect((await third.listSessions()).map((s) => s.id).sort()).toEqual(['meta', 's']);
      const next = await third.writeSnapshot('s', summary(2, m.id), { expectedLatestId: latest?.id ?? null });
      expect(next.written).toBe(true);
    });

    it('stores a duplicate id within one batch once, and refuses a conflicting one all or none', async () => {
      const { store } = await open();
      const m = message('twice');
      const rows = await store.append('s', records([m, message('between'), m]));
      expect(rows.map((r) => r.seq)).toEqual([1, 2, 1]);
      const clash = { ...m, id: 'fresh-id' };
      const other = { ...clash, parts: [{ type: 'text' as const, text: 'other' }] };
      await expect(store.append('s', records([clash, message('z'), other]))).rejects.toSatisfy((e: unknown) =>
        ChatfoldError.hasCode(e, 'E_STORE_CONFLICT'),
      );
      expect((await store.messages('s')).map((r) => r.seq)).toEqual([1, 2]);
    });

    it('stores a message once when the same append is retried concurrently', async () => {
      const { store } = await open();
      const batch = [message('retry-a'), message('retry-b')];
      const results = await Promise.all(Array.from({ length: 6 }, () => store.append('s', records(batch))));
      for (const rows of results) expect(rows.map((r) => r.seq)).toEqual([1, 2]);
      expect((await store.messages('s')).length).toBe(2);
    });

    it('refuses a stale non-null expected snapshot id and returns the latest', async () => {
      const { store } = await open();
      const batch = Array.from({ length: 4 }, (_, i) => message(`m${i}`));
      await store.append('s', records(batch));
      const unknown = await store.writeSnapshot('s', summary(1, batch[0]?.id as string), {
        expectedLatestId: 'no-such-snapshot',
      });
      expect(unknown).toEqual({ written: false, latest: undefined });
      const first = await store.writeSnapshot('s', summary(1, batch[0]?.id as string), {
        expectedLatestId: null,
      });
      if (!first.written) throw new Error('first snapshot not written');
      const second = await store.writeSnapshot('s', summary(2, batch[1]?.id as string), {
        expectedLatestId: first.snapshot.id,
      });
      if (!second.written) throw new Error('second snapshot not written');
      expect(second.snapshot.id).not.toBe(first.snapshot.id);
      const stale = await store.writeSnapshot('s', summary(3, batch[2]?.id as string), {
        expectedLatestId: first.snapshot.id,
      });
      expect(stale).toEqual({ written: false, latest: second.snapshot });
      expect((await store.snapshots('s')).map((s) => s.id)).toEqual([first.snapshot.id, second.snapshot.id]);
      expect(await store.snapshots('nobody')).toEqual([]);
      expect(await store.latestSnapshot('nobody')).toBeUndefined();
    });

    it('keeps the head inside the cutoff and sees messages appended after the snapshot', async () => {
      const { store } = await open();
      const batch = Array.from({ length: 6 }, (_, i) => message(`m${i}`));
      await store.append('s', records(batch));
      await store.writeSnapshot('s', summary(3, batch[2]?.id as string), { expectedLatestId: null });
      // A title snapshot is not a summary: the context ignores it.
      await store.writeSnapshot(
        's',
        { kind: 'title', content: 't', messageCutoffId: batch[5]?.id as string, cutoffSeq: 6, tokenCount: 1 },
        { expectedLatestId: null },
      );
      await store.append('s', records([message('later')]));
      const ctx = await store.context('s', { headCount: 10 });
      expect(ctx.head.map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(ctx.tail.map((r) => r.seq)).toEqual([4, 5, 6, 7]);
      expect(ctx.messageCount).toBe(7);
      expect(ctx.snapshot?.kind).toBe('summary');
    });

    it('returns empty results for an empty limit and for ranges past the end', async () => {
      const { store } = await open();
      await store.append('s', records([message('a'), message('b')]));
      expect(await store.messages('s', { limit: 0 })).toEqual([]);
      expect(await store.messages('s', { afterSeq: 2 })).toEqual([]);
      expect(await store.messages('s', { beforeSeq: 1 })).toEqual([]);
      expect(await store.search('s', { text: 'a', limit: 0 })).toEqual([]);
    });

    it('lists sessions most recently updated first, with counts and timestamps', async () => {
      const { store } = await open();
      await store.append('older', records([message('1')]));
      await new Promise((resolve) => setTimeout(resolve, 15));
      await store.append('newer', records([message('2'), message('3')]));
      await new Promise((resolve) => setTimeout(resolve, 15));
      await store.append('older', records([message('4')]));
      const list = await store.listSessions();
      expect(list.map((s) => [s.id, s.messageCount])).toEqual([
        ['older', 2],
        ['newer', 2],
      ]);
      const older = await store.getSession('older');
      expect(older?.updatedAt && older.createdAt && older.updatedAt > older.createdAt).toBe(true);
      expect(Number.isNaN(Date.parse(older?.createdAt ?? ''))).toBe(false);
      // ensureSession without metadata leaves an existing session as it is.
      expect((await store.ensureSession('older')).messageCount).toBe(2);
      expect((await store.listSessions({ limit: 1 })).map((s) => s.id)).toEqual(['older']);
    });

    it('keeps awkward session ids apart: traversal, separators, quotes, emoji, case, length', async () => {
      const { store } = await open();
      const ids = [
        '..',
        '.',
        '../../escape',
        '/etc/passwd',
        'a/b\\c:d*e?f<g>h|i',
        `quote"'\``,
        'no\u00a0break\u2028line\u200bzero width',
        '🧪 emoji ✓',
        'CON',
        'settings.json',
        'Case',
        'case',
        '%2e%2e%2f',
        ' leading and trailing ',
        'x'.repeat(400),
        '🧪'.repeat(200),
      ];
      for (const id of ids) await store.append(id, records([message(`in ${id}`)]));
      for (const id of ids) {
        const rows = await store.messages(id);
        expect(rows.map((r) => r.sessionId)).toEqual([id]);
        expect(rows[0]?.message.parts).toEqual([{ type: 'text', text: `in ${id}` }]);
        expect((await store.getSession(id))?.id).toBe(id);
      }
      expect((await store.listSessions()).map((s) => s.id).sort()).toEqual([...ids].sort());
    });

    it('refuses session ids no store keeps the same, from every method, with E_INVALID_SESSION_ID (MSG-4)', async () => {
      const { store } = await open();
      // Postgres cannot store NUL or lone surrogates; one rule for every store (shared/errors.ts).
      const bad: unknown[] = [
        '',
        'nul\u0000inside',
        'new\nline',
        'tab\there',
        'escape\u001b[31m',
        'del\u007f',
        'c1\u0085',
        'lone \ud800 surrogate',
        'x'.repeat(MAX_SESSION_ID_LENGTH + 1),
        null,
        undefined,
        42,
        ['array'],
      ];
      const methods = store as unknown as Record<
        string,
        ((...args: unknown[]) => Promise<unknown>) | undefined
      >;
      const calls: [string, unknown[]][] = [
        ['append', [records([message('x')])]],
        ['messages', []],
        ['recordUsage', ['m', { inputTokens: 1 }]],
        ['latestSnapshot', []],
        ['writeSnapshot', [summary(1, 'm'), { expectedLatestId: null }]],
        ['context', []],
        ['ensureSession', []],
        ['getSession', []],
        ['search', [{ text: 'x' }]],
        ['snapshots', []],
      ];
      for (const id of bad) {
        for (const [name, args] of calls) {
          const method = methods[name];
          if (typeof method !== 'function') continue;
          const outcome = await method.call(store, id, ...args).then(
            () => 'resolved',
            (error: unknown) => (ChatfoldError.isInstance(error) ? error.code : String(error)),
          );
          expect(`${name}(${JSON.stringify(id)?.slice(0, 30)}): ${outcome}`).toBe(
            `${name}(${JSON.stringify(id)?.slice(0, 30)}): E_INVALID_SESSION_ID`,
          );
        }
      }
      // Nothing was created on the way.
      expect(await store.listSessions()).toEqual([]);
      // The longest id allowed works.
      const longest = '🧪'.repeat(MAX_SESSION_ID_LENGTH / 2);
      await store.append(longest, records([message('fits')]));
      expect((await store.messages(longest)).length).toBe(1);
    });

    it('round-trips a normalised tool conversation and control characters, NUL included', async () => {
      const { store } = await open();
      const conversation = normalizeMessages([
        ...buildConversation()
          .system('You are terse.')
          .user('read the file')
          .toolRound([
            { name: 'Read', args: { path: 'a.bin' }, result: 'head\u0000\u0001\u001b[31mred\u007f' },
            { name: 'Bash', args: { cmd: 'false' }, result: 'exit 1', isError: true },
          ])
          .assistant('done \r\n \u2028 \u2029 \ufeff')
          .build(),
      ]);
      await store.append('s', records(conversation));
      const rows = await store.messages('s');
      expect(rows.map((r) => r.message)).toEqual(conversation);
      expect(rows.map((r) => JSON.stringify(r.message))).toEqual(conversation.map((m) => JSON.stringify(m)));
      expect((await store.search('s', { text: '\u001b[31mRED' })).map((r) => r.seq)).toEqual([4]);
    });

    it('round-trips arbitrary message content (property)', async () => {
      const { store } = await open();
      let n = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(messageArbitrary, { minLength: 1, maxLength: 4 }), async (drafts) => {
          const session = `rt${n++}`;
          const batch = drafts.map((draft, i) => ({ ...draft, id: `${session}-${i}` }));
          await store.append(session, records(batch));
          expect((await store.messages(session)).map((r) => r.message)).toEqual(batch);
        }),
        { numRuns: 40 },
      );
    });

    it('keeps its rows apart from the caller: copies or frozen rows out, copies in', async () => {
      const { store } = await open();
      const parts: Part[] = [{ type: 'text', text: 'original' }];
      const m: Message = { ...message('x'), parts, metadata: { list: [1] } };
      const [row] = await store.append('s', records([m]));
      parts.push({ type: 'text', text: 'pushed later' });
      (m.metadata as { list: JsonValue[] }).list.push(2);
      if (row === undefined) throw new Error('append returned no row');
      try {
        (row.message.parts as Part[]).push({ type: 'text', text: 'pushed on the result' });
      } catch (error) {
        // A store may hand out frozen rows instead of copies.
        expect(error).toBeInstanceOf(TypeError);
      }
      const [read] = await store.messages('s');
      expect(read?.message.parts).toEqual([{ type: 'text', text: 'original' }]);
      expect(read?.message.metadata).toEqual({ list: [1] });
    });

    it('shares data between two open instances: no lost or duplicate seq, one snapshot winner (ST-5)', async () => {
      const under = await open();
      if (under.reopen === undefined) return;
      const other = await under.reopen();
      opened.push({ store: other });
      const stores = [under.store, other];
      const batches = Array.from({ length: 16 }, (_, b) =>
        Array.from({ length: 3 }, (_, i) => message(`i${b}m${i}`)),
      );
      await Promise.all(batches.map((batch, b) => (stores[b % 2] as Store).append('s', records(batch))));
      for (const store of stores) {
        const rows = await store.messages('s');
        expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
        for (const batch of batches) {
          const at = rows.findIndex((r) => r.message.id === batch[0]?.id);
          expect(rows.slice(at, at + 3).map((r) => r.message.id)).toEqual(batch.map((m) => m.id));
        }
      }
      // A retry through the other instance is idempotent; a conflict is seen there too.
      const first = batches[0]?.[0] as Message;
      expect((await other.append('s', records([first])))[0]?.seq).toBe(
        (await under.store.messages('s')).find((r) => r.message.id === first.id)?.seq,
      );
      await expect(
        other.append('s', records([{ ...first, parts: [{ type: 'text', text: 'changed' }] }])),
      ).rejects.toSatisfy((e: unknown) => ChatfoldError.hasCode(e, 'E_STORE_CONFLICT'));
      const cutoff = first.id;
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (stores[i % 2] as Store).writeSnapshot('s', summary(1, cutoff, `w${i}`), {
            expectedLatestId: null,
          }),
        ),
      );
      expect(results.filter((r) => r.written).length).toBe(1);
      const winner = results.find((r) => r.written);
      for (const store of stores) {
        expect((await store.snapshots('s')).length).toBe(1);
        expect((await store.latestSnapshot('s'))?.id).toBe(winner?.written ? winner.snapshot.id : '');
      }
      await under.store.recordUsage('s', first.id, { outputTokens: 9 });
      // Batch 0 need not hold seq 1: instances on a pool commit concurrent batches in any order.
      expect((await other.messages('s')).find((r) => r.message.id === first.id)?.outputTokens).toBe(9);
    });
  });
}
