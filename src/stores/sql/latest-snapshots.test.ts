import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message } from '../../../test/stores/conformance.ts';
import { sqliteStore } from '../sqlite/sqlite-store.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-latest-snapshots-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const summary = (cutoffSeq: number, text: string) => ({
  kind: 'summary' as const,
  content: { summaryText: text },
  messageCutoffId: `m${cutoffSeq}`,
  cutoffSeq,
  tokenCount: 5,
});

describe('latest snapshot of the SQL stores (kept parsed by id)', () => {
  it('sees a snapshot another instance wrote after this one read the previous latest', async () => {
    const path = join(dir, 'two-instances.db');
    const [a, b] = [sqliteStore(path), sqliteStore(path)];
    await a.append(
      's',
      [1, 2, 3].map((i) => ({ message: message(`m${i}`) })),
    );
    const first = await a.writeSnapshot('s', summary(1, 'one'), { expectedLatestId: null });
    if (!first.written) throw new Error('first snapshot not written');
    expect((await a.latestSnapshot('s'))?.content).toEqual({ summaryText: 'one' });
    expect((await b.latestSnapshot('s'))?.id).toBe(first.snapshot.id);
    const second = await b.writeSnapshot('s', summary(2, 'two'), { expectedLatestId: first.snapshot.id });
    expect(second.written).toBe(true);
    expect((await a.latestSnapshot('s'))?.content).toEqual({ summaryText: 'two' });
    expect((await a.context('s')).snapshot?.cutoffSeq).toBe(2);
    // The compare-and-set in A sees B's snapshot too.
    const stale = await a.writeSnapshot('s', summary(3, 'three'), { expectedLatestId: first.snapshot.id });
    expect(stale).toMatchObject({ written: false, latest: { cutoffSeq: 2 } });
    await Promise.all([a.close(), b.close()]);
  });

  it('hands out the same frozen snapshot for the same id, per kind', async () => {
    const store = sqliteStore(join(dir, 'frozen.db'));
    await store.append('s', [{ message: message('m1') }]);
    await store.writeSnapshot('s', summary(1, 'one'), { expectedLatestId: null });
    await store.writeSnapshot('s', { ...summary(1, 'title'), kind: 'title' }, { expectedLatestId: null });
    const [x, y] = [await store.latestSnapshot('s'), await store.latestSnapshot('s')];
    expect(x).toBe(y);
    expect(Object.isFrozen(x?.content)).toBe(true);
    expect((await store.latestSnapshot('s', 'title'))?.content).toEqual({ summaryText: 'title' });
    expect(await store.latestSnapshot('s', 'memory')).toBeUndefined();
    await store.close();
  });
});
