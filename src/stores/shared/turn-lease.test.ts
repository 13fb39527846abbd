import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { memoryStore } from '../memory/memory-store.ts';
import type { Store } from '../types.ts';
import { currentProcess } from './process-identity.ts';
import {
  acquireTurnLease,
  describeLeaseHolder,
  type LeaseHolder,
  parseLeaseHolder,
  TURN_LEASE_DEFAULTS,
  takeTurnLease,
} from './turn-lease.ts';

/** A holder string as another process writes it. */
const holderOf = (fields: Partial<LeaseHolder> = {}): string =>
  JSON.stringify({ turn: 't1', label: 'chatfold serve', ...currentProcess(), since: 0, ...fields });

/** The pid of a process that ran and was reaped. */
const exitedPid = (): number => spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid as number;

afterEach(() => {
  vi.useRealTimers();
});

describe('takeTurnLease (issue 24 §5)', () => {
  it('holds the session while renewed, frees it on release', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = memoryStore({ now: () => new Date(Date.now()) });
    const first = await takeTurnLease(store, 's', { holder: 'a' });
    expect(first?.holder).toBe('a');
    expect(await takeTurnLease(store, 's', { holder: 'b' })).toBeUndefined();
    // Renewed every renewMs: still held long after one ttl.
    await vi.advanceTimersByTimeAsync(TURN_LEASE_DEFAULTS.ttlMs * 3);
    expect(await takeTurnLease(store, 's', { holder: 'b' })).toBeUndefined();
    await first?.release();
    await first?.release(); // idempotent
    const second = await takeTurnLease(store, 's', { holder: 'b' });
    expect(second?.holder).toBe('b');
    await second?.release();
  });

  it('a lease whose holder stopped renewing (its process died) expires after ttlMs', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = memoryStore({ now: () => new Date(Date.now()) });
    expect(await store.acquireLease('s', 'dead', TURN_LEASE_DEFAULTS.ttlMs)).toBe(true);
    expect(await takeTurnLease(store, 's')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(TURN_LEASE_DEFAULTS.ttlMs);
    const taken = await takeTurnLease(store, 's');
    expect(taken).toBeDefined();
    await taken?.release();
  });

  it('tells the turn when a renewal finds the lease taken or fails', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = memoryStore({ now: () => new Date(Date.now()) });
    const lost: unknown[] = [];
    const lease = await takeTurnLease(store, 's', {
      holder: 'a',
      ttlMs: 1_000,
      renewMs: 5_000, // renews too late: another holder takes the expired lease first
      onLost: (reason) => lost.push(reason),
    });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await store.acquireLease('s', 'b', 60_000)).toBe(true);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(lost).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(lost).toHaveLength(1); // told once; no more renewals
    await lease?.release();
    // Releasing a lease another holder took leaves theirs alone.
    expect(await store.acquireLease('s', 'c', 60_000)).toBe(false);
  });

  it('a renewal that fails is tried again while the lease runs; the turn stops before it would expire', async () => {
    vi.useFakeTimers({ now: 0 });
    // ttl 30 s, renewed every 10 s: the store fails at 10 s (tolerated: the lease runs to 30 s),
    // answers at 20 s (held to 50 s), then fails for good: at 30 s tolerated; at 40 s lost, as
    // the next renewal would come when the lease expires.
    const answers = [true, 'fail', true, 'fail', 'fail', 'fail', 'fail'];
    const calls: number[] = [];
    const flaky: Store = Object.assign(memoryStore(), {
      acquireLease: vi.fn(async () => {
        calls.push(Date.now());
        const answer = answers.shift();
        if (answer === 'fail') throw new Error('database is locked');
        return true;
      }),
      releaseLease: vi.fn().mockRejectedValue(new Error('database down')),
    });
    const lost: unknown[] = [];
    const renewalErrors: unknown[] = [];
    const held = await takeTurnLease(flaky, 's', {
      onLost: (reason) => lost.push(reason),
      onRenewalError: (error) => renewalErrors.push(error),
    });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(lost).toEqual([]);
    expect(renewalErrors).toEqual([new Error('database is locked'), new Error('database is locked')]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(lost).toEqual([new Error('database is locked')]);
    // Lost: no more renewals.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
    await expect(held?.release()).resolves.toBeUndefined(); // never rejects: the lease expires anyway
  });

  it('a store without leases gives a lease that holds nothing', async () => {
    const store = memoryStore();
    const bare: Store = {
      kind: 'bare',
      append: store.append.bind(store),
      messages: store.messages.bind(store),
      recordUsage: store.recordUsage.bind(store),
      latestSnapshot: store.latestSnapshot.bind(store),
      writeSnapshot: store.writeSnapshot.bind(store),
      context: store.context.bind(store),
      close: store.close.bind(store),
    };
    const a = await takeTurnLease(bare, 's');
    const b = await takeTurnLease(bare, 's');
    expect(a).toBeDefined();
    expect(b).toBeDefined();
  });

  it('names this process in the holder it writes; refuses a live holder with E_BUSY saying who', async () => {
    vi.useFakeTimers({ now: 100_000 });
    const store = memoryStore({ now: () => new Date(Date.now()) });
    const live = holderOf({ pid: process.pid, since: 88_000, host: 'build-2' });
    expect(await store.acquireLease('s', live, 60_000)).toBe(true);
    const error = await acquireTurnLease(store, 's', { label: 'chatfold chat' }).catch((e: unknown) => e);
    expect(ChatfoldError.hasCode(error, 'E_BUSY')).toBe(true);
    expect((error as ChatfoldError<'E_BUSY'>).details).toEqual({
      sessionId: 's',
      holder: live,
      expiresAt: 160_000,
    });
    expect((error as Error).message).toBe(
      `another process is answering in session s: chatfold serve (pid ${process.pid} on build-2, turn started 12 s ago); wait for its turn to finish, then send again`,
    );
    expect(await takeTurnLease(store, 's')).toBeUndefined();

    await store.releaseLease('s', live);
    const mine = await acquireTurnLease(store, 's', { label: 'chatfold chat' });
    expect(parseLeaseHolder(mine.holder)).toEqual({
      turn: expect.stringMatching(/^[0-9a-f-]{36}$/),
      label: 'chatfold chat',
      ...currentProcess(),
      since: 100_000,
    });
    await mine.release();
  });

  it('takes over at once the lease of a holder on this machine whose process is gone, long before it expires', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = memoryStore({ now: () => new Date(Date.now()) });
    const dead = holderOf({ pid: exitedPid() });
    expect(await store.acquireLease('s', dead, 3_600_000)).toBe(true);
    const lease = await acquireTurnLease(store, 's');
    expect((await store.currentLease('s'))?.holder).toBe(lease.holder);
    await lease.release();

    // A holder on another host cannot be checked: it holds until its lease expires.
    const elsewhere = holderOf({ pid: exitedPid(), host: 'build-2' });
    expect(await store.acquireLease('s', elsewhere, 30_000)).toBe(true);
    expect(await takeTurnLease(store, 's')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(30_000);
    const after = await acquireTurnLease(store, 's');
    expect((await store.currentLease('s'))?.holder).toBe(after.holder);
    await after.release();

    // A holder of another form (a custom holder string): judged by expiry only.
    expect(await store.acquireLease('s', 'custom', 30_000)).toBe(true);
    expect(await takeTurnLease(store, 's')).toBeUndefined();
  });

  it('keeps a long turn: renewed every renewMs, the lease outlives many ttls and no waiter gets it', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = memoryStore({ now: () => new Date(Date.now()) });
    const lost: unknown[] = [];
    const lease = await acquireTurnLease(store, 's', { onLost: (reason) => lost.push(reason) });
    for (let minute = 1; minute <= 10; minute++) {
      await vi.advanceTimersByTimeAsync(60_000);
      expect((await store.currentLease('s'))?.expiresAt).toBeGreaterThan(Date.now());
      await expect(acquireTurnLease(store, 's')).rejects.toSatisfy((e: unknown) =>
        ChatfoldError.hasCode(e, 'E_BUSY'),
      );
    }
    expect(lost).toEqual([]);
    await lease.release();
    // Released: no renewal brings it back.
    await vi.advanceTimersByTimeAsync(TURN_LEASE_DEFAULTS.renewMs * 3);
    expect(await store.currentLease('s')).toBeUndefined();
  });

  it('describes holders', () => {
    const here = currentProcess();
    expect(describeLeaseHolder(holderOf({ since: 1_000 }), 4_400)).toBe(
      'chatfold serve (this process, turn started 3 s ago)',
    );
    expect(describeLeaseHolder(holderOf({ pid: here.pid + 1, since: 0 }), 0)).toBe(
      `chatfold serve (pid ${here.pid + 1} on this machine, turn started 0 s ago)`,
    );
    expect(describeLeaseHolder('turn:abc')).toBe('another process (holder turn:abc)');
    expect(parseLeaseHolder('{"turn": 1}')).toBeUndefined();
    expect(parseLeaseHolder('{not json')).toBeUndefined();
  });
});
