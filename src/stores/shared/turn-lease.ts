/**
 * One turn at a time per session, wherever the turn arrives (issue 24 §5): two `chatfold
 * serve` processes behind a load balancer, a `chatfold chat` in a terminal and a web tab, two
 * terminals on one session file. Each process refuses a second turn of a session it is already
 * running, but only a lease in the store stops another process from starting one at the same
 * time (and interleaving the two turns' tool rounds in the history).
 *
 * A lease lasts {@link TURN_LEASE_DEFAULTS}`.ttlMs` and is renewed every `renewMs` while the
 * turn runs (a heartbeat), so a turn of any length keeps it. Its holder names the process
 * (pid, host, boot id, pid namespace, start time; see process-identity.ts): a lease whose
 * holder ran on this machine and is gone is taken over at once, with a compare-and-set on that
 * exact holder so two waiters cannot both win. A holder on another machine cannot be checked;
 * its lease is free `ttlMs` after its last renewal. A short TTL would free those sooner, but a
 * server whose event loop stalls longer than the TTL (a large synchronous count) would lose a
 * lease it still uses, and another turn would interleave with it: only the cross-machine case
 * pays the TTL, and it is the case that cannot be checked any other way.
 */
import { randomUUID } from 'node:crypto';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { hasSessionLeases, type Store, type StoredLease } from '../types.ts';
import { currentProcess, isProcessGone, type ProcessIdentity } from './process-identity.ts';

/** How long a lease lasts without renewal, and how often a running turn renews it. */
export const TURN_LEASE_DEFAULTS = Object.freeze({ ttlMs: 30_000, renewMs: 10_000 });

/** Options of {@link acquireTurnLease}. */
export interface TurnLeaseOptions {
  /** Who holds it; default this process and a fresh turn id (see {@link LeaseHolder}). */
  readonly holder?: string;
  /** The program, as another process names it when refused: `chatfold chat`, `chatfold serve`. */
  readonly label?: string;
  readonly ttlMs?: number;
  readonly renewMs?: number;
  /**
   * Called once when a renewal finds the lease taken, or keeps failing until the lease would
   * expire before the next one: the turn should stop.
   */
  readonly onLost?: (reason: unknown) => void;
  /** Called when a renewal fails but the lease still runs (it is tried again at the next one). */
  readonly onRenewalError?: (error: unknown) => void;
}

/** A held lease. */
export interface TurnLease {
  readonly holder: string;
  /** Stops renewing and gives the lease back. Idempotent; never rejects. */
  release(): Promise<void>;
}

/** What a default holder records: the process, the program and when its turn started. */
export interface LeaseHolder extends ProcessIdentity {
  readonly turn: string;
  readonly label: string;
  /** Milliseconds since 1970. */
  readonly since: number;
}

/** The process a holder string names, or undefined for a holder of another form. */
export function parseLeaseHolder(holder: string): LeaseHolder | undefined {
  if (!holder.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(holder) as Record<string, unknown>;
    const strings = ['turn', 'label', 'host', 'boot', 'pidNamespace', 'start'] as const;
    if (!strings.every((key) => typeof value[key] === 'string')) return undefined;
    if (!Number.isSafeInteger(value.pid) || typeof value.since !== 'number') return undefined;
    return value as unknown as LeaseHolder;
  } catch {
    return undefined;
  }
}

/**
 * Who holds a lease, in words: `chatfold serve (pid 4242 on this machine, turn started 12 s ago)`.
 *
 * @param holder The stored holder string.
 * @param now Milliseconds since 1970, for the turn's age.
 */
export function describeLeaseHolder(holder: string, now: number = Date.now()): string {
  const parsed = parseLeaseHolder(holder);
  if (parsed === undefined) return `another process (holder ${holder})`;
  const here = currentProcess();
  const where =
    parsed.host === here.host && parsed.pidNamespace === here.pidNamespace
      ? parsed.pid === here.pid
        ? 'this process'
        : `pid ${parsed.pid} on this machine`
      : `pid ${parsed.pid} on ${parsed.host}`;
  const age = Math.max(0, Math.round((now - parsed.since) / 1000));
  return `${parsed.label} (${where}, turn started ${age} s ago)`;
}

/**
 * Takes the session's turn lease from the store, renewing it until released. A lease left by a
 * process on this machine that is gone is taken over at once; one of a live holder, or of a
 * holder on another machine until it expires, refuses.
 *
 * @param store Any store; one without leases (a custom store) gets a lease that holds nothing.
 * @param sessionId The session.
 * @param options Holder or label, lifetime, renewal period, what to do when the lease is lost.
 * @returns The held lease.
 * @throws ChatfoldError `E_BUSY` while another turn holds the session (`details.holder` says
 *   who); `E_STORE` when the store cannot be asked.
 */
export async function acquireTurnLease(
  store: Store,
  sessionId: string,
  options: TurnLeaseOptions = {},
): Promise<TurnLease> {
  const holder =
    options.holder ??
    JSON.stringify({
      turn: randomUUID(),
      label: options.label ?? 'a chatfold process',
      ...currentProcess(),
      since: Date.now(),
    } satisfies LeaseHolder);
  if (!hasSessionLeases(store)) return { holder, release: async () => undefined };
  const ttlMs = options.ttlMs ?? TURN_LEASE_DEFAULTS.ttlMs;
  const renewMs = options.renewMs ?? TURN_LEASE_DEFAULTS.renewMs;
  let askedAt = Date.now();
  for (let attempt = 1; ; attempt++) {
    askedAt = Date.now();
    if (await store.acquireLease(sessionId, holder, ttlMs)) break;
    if (store.currentLease === undefined) throw busyError(sessionId, undefined);
    const current = await store.currentLease(sessionId);
    if (current !== undefined) {
      const other = parseLeaseHolder(current.holder);
      if (other === undefined || !isProcessGone(other)) throw busyError(sessionId, current);
      // Its process ended without giving the lease back (killed, crashed): take it over now.
      askedAt = Date.now();
      if (await store.acquireLease(sessionId, holder, ttlMs, current.holder)) break;
    }
    // Released, or taken over by another waiter, between two reads: look again.
    if (attempt >= 3) throw busyError(sessionId, current);
  }
  let heldUntil = askedAt + ttlMs;
  let released = false;
  let stopped = false;
  const lose = (reason: unknown): void => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    options.onLost?.(reason);
  };
  const renew = async (): Promise<void> => {
    const asked = Date.now();
    try {
      if (await store.acquireLease(sessionId, holder, ttlMs)) heldUntil = asked + ttlMs;
      else lose(new Error('the session was taken over by another turn'));
    } catch (error) {
      if (stopped) return;
      // A store that failed once (busy, a dropped connection) is asked again at the next
      // renewal while the lease still runs; the turn stops only when that would be too late.
      if (Date.now() + renewMs >= heldUntil) lose(error);
      else options.onRenewalError?.(error);
    }
  };
  const timer = setInterval(() => void renew(), renewMs);
  timer.unref?.();
  return {
    holder,
    async release() {
      if (released) return;
      released = true;
      stopped = true;
      clearInterval(timer);
      // A lease that cannot be given back expires on its own after ttlMs.
      await store.releaseLease(sessionId, holder).catch(() => undefined);
    },
  };
}

/**
 * {@link acquireTurnLease}, with `undefined` instead of `E_BUSY` while another turn holds the
 * session.
 */
export async function takeTurnLease(
  store: Store,
  sessionId: string,
  options: TurnLeaseOptions = {},
): Promise<TurnLease | undefined> {
  try {
    return await acquireTurnLease(store, sessionId, options);
  } catch (error) {
    if (ChatfoldError.hasCode(error, 'E_BUSY')) return undefined;
    throw error;
  }
}

function busyError(sessionId: string, current: StoredLease | undefined): ChatfoldError<'E_BUSY'> {
  const who = current === undefined ? 'another process' : describeLeaseHolder(current.holder);
  return new ChatfoldError(
    'E_BUSY',
    `another process is answering in session ${sessionId}: ${who}; wait for its turn to finish, then send again`,
    {
      sessionId,
      ...(current === undefined ? {} : { holder: current.holder, expiresAt: current.expiresAt }),
    },
  );
}
