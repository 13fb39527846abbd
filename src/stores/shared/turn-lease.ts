/**
 * One turn at a time per session, wherever the turn arrives (issue 24 §5). Two `chatfold
 * serve` processes behind a load balancer share one store; each refuses a second turn of a
 * session it is already running, but only a lease in the store stops the other process from
 * starting one at the same time (and interleaving the two turns' tool rounds in the history).
 *
 * The lease lasts {@link TURN_LEASE_DEFAULTS}`.ttlMs` and is renewed every `renewMs` while the
 * turn runs, so a process killed mid-turn holds the session for at most one `ttlMs`.
 */
import { randomUUID } from 'node:crypto';
import { hasSessionLeases, type Store } from '../types.ts';

/** How long a lease lasts without renewal, and how often a running turn renews it. */
export const TURN_LEASE_DEFAULTS = Object.freeze({ ttlMs: 30_000, renewMs: 10_000 });

/** Options of {@link takeTurnLease}. */
export interface TurnLeaseOptions {
  /** Who holds it; default a fresh id for this turn. */
  readonly holder?: string;
  readonly ttlMs?: number;
  readonly renewMs?: number;
  /** Called when a renewal finds the lease taken (or fails): the turn should stop. */
  readonly onLost?: (reason: unknown) => void;
}

/** A held lease. */
export interface TurnLease {
  readonly holder: string;
  /** Stops renewing and gives the lease back. Idempotent; never rejects. */
  release(): Promise<void>;
}

/**
 * Takes the session's turn lease from the store, renewing it until released.
 *
 * @param store Any store; one without leases (a custom store) gets a lease that holds nothing.
 * @param sessionId The session.
 * @param options Holder, lifetime, renewal period, what to do when the lease is lost.
 * @returns The lease, or undefined while another turn holds the session.
 * @throws ChatfoldError `E_STORE` when the store cannot be asked.
 */
export async function takeTurnLease(
  store: Store,
  sessionId: string,
  options: TurnLeaseOptions = {},
): Promise<TurnLease | undefined> {
  const holder = options.holder ?? `turn:${randomUUID()}`;
  if (!hasSessionLeases(store)) return { holder, release: async () => undefined };
  const ttlMs = options.ttlMs ?? TURN_LEASE_DEFAULTS.ttlMs;
  const renewMs = options.renewMs ?? TURN_LEASE_DEFAULTS.renewMs;
  if (!(await store.acquireLease(sessionId, holder, ttlMs))) return undefined;
  let released = false;
  const renew = async (): Promise<void> => {
    try {
      const held = await store.acquireLease(sessionId, holder, ttlMs);
      if (!held && !released) options.onLost?.(new Error('the session was taken over by another turn'));
    } catch (error) {
      if (!released) options.onLost?.(error);
    }
  };
  const timer = setInterval(() => void renew(), renewMs);
  timer.unref?.();
  return {
    holder,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      // A lease that cannot be given back expires on its own after ttlMs.
      await store.releaseLease(sessionId, holder).catch(() => undefined);
    },
  };
}
