import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryStore } from '../memory/memory-store.ts';
import type { Store } from '../types.ts';
import { TURN_LEASE_DEFAULTS, takeTurnLease } from './turn-lease.ts';

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
    await lease?.release();
    // Releasing a lease another holder took leaves theirs alone.
    expect(await store.acquireLease('s', 'c', 60_000)).toBe(false);

    const failing: Store = Object.assign(memoryStore(), {
      acquireLease: vi.fn().mockResolvedValueOnce(true).mockRejectedValue(new Error('database down')),
      releaseLease: vi.fn().mockRejectedValue(new Error('database down')),
    });
    const errors: unknown[] = [];
    const held = await takeTurnLease(failing, 's', {
      renewMs: 1_000,
      onLost: (reason) => errors.push(reason),
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(errors).toEqual([new Error('database down')]);
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
});
