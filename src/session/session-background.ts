import { applyCompactionPlan } from '../compaction/apply-plan.ts';
import { reportOf } from '../compaction/plan-compaction.ts';
import type { CompactionPlan, CompactionReport } from '../compaction/types.ts';
import { DEFAULTS } from '../defaults.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { Message } from '../messages/types.ts';
import { hasSettings } from '../stores/types.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { type PendingPlan, pendingPlanJson, pendingPlanKey, readPendingPlan } from './pending-plan.ts';
import type { SessionConfig } from './session.ts';
import type { SessionProjection } from './session-projection.ts';
import type { SessionEvent } from './types.ts';

/** How often (in messages) a session asks again while no plan has come back. */
const REQUEST_AGAIN_AFTER_MESSAGES = 20;

/**
 * A session's side of background compaction (issue 13): queue a job past the early threshold,
 * store the plan a worker computed, and apply it — with no model call — when the trigger fires.
 * The pending plan lives in the store's settings, so any process serving the session sees it.
 */
export class SessionBackground {
  readonly #sessionId: string;
  readonly #config: SessionConfig;
  readonly #projection: SessionProjection;
  readonly #emit: (event: SessionEvent) => void;
  readonly #background: (operation: string, write: Promise<unknown>) => void;
  #requested: { base: string; atSeq: number } | undefined;

  constructor(
    sessionId: string,
    config: SessionConfig,
    projection: SessionProjection,
    emit: (event: SessionEvent) => void,
    background: (operation: string, write: Promise<unknown>) => void,
  ) {
    this.#sessionId = sessionId;
    this.#config = config;
    this.#projection = projection;
    this.#emit = emit;
    this.#background = background;
  }

  get isEnabled(): boolean {
    return this.#config.options.background !== undefined && hasSettings(this.#config.store);
  }

  get threshold(): number {
    return this.#config.options.background?.threshold ?? DEFAULTS.backgroundThreshold;
  }

  #base(): string | null {
    return this.#projection.snapshot?.id ?? null;
  }

  /** Queues a job when the prompt is past the early threshold (once per base, then every so often). */
  request(tokens: number, budget: number): void {
    const queue = this.#config.options.background?.queue;
    if (queue === undefined || !this.isEnabled || tokens < this.threshold * budget) return;
    const base = this.#base() ?? 'none';
    const seq = this.#projection.lastSeq;
    if (this.#requested?.base === base && seq - this.#requested.atSeq < REQUEST_AGAIN_AFTER_MESSAGES) return;
    this.#requested = { base, atSeq: seq };
    const job = { sessionId: this.#sessionId, requestedAt: this.#config.now().toISOString() };
    // Never awaited: a request must not wait for the queue either.
    this.#background(
      'background-enqueue',
      queue.enqueue(job).then((queued) => {
        if (queued) this.#emit({ type: 'background-queued', tokens, threshold: this.threshold });
      }),
    );
  }

  /** The stored plan, if it still applies to this projection (same base snapshot, a prefix). */
  async pending(): Promise<PendingPlan | undefined> {
    const store = this.#config.store;
    if (!hasSettings(store)) return undefined;
    let pending: PendingPlan | undefined;
    try {
      pending = readPendingPlan(await store.getSetting(pendingPlanKey(this.#sessionId)));
    } catch (error) {
      // A plan this version cannot read (written by a newer chatfold, or damaged) is only a
      // head start: it is dropped, said so, and the session compacts as if there were none.
      if (!ChatfoldError.isInstance(error)) throw error;
      this.#emit({ type: 'background-discarded', reason: error.message });
      this.#background('background-clear', store.setSetting(pendingPlanKey(this.#sessionId), null));
      return undefined;
    }
    if (pending === undefined || pending.baseSnapshotId !== this.#base()) return undefined;
    const { input } = pending.plan;
    const messages = this.#projection.messages;
    if (messages.length < input.count || messages[input.count - 1]?.id !== input.lastId) return undefined;
    return pending;
  }

  /** Stores a plan a worker computed for the projection that started from snapshot `base`. */
  async store(plan: CompactionPlan, base: string | null): Promise<void> {
    const store = this.#config.store;
    if (!hasSettings(store) || !plan.compacted) return;
    const pending: PendingPlan = {
      version: 1,
      baseSnapshotId: base,
      createdAt: this.#config.now().toISOString(),
      plan,
    };
    await store.setSetting(pendingPlanKey(this.#sessionId), pendingPlanJson(pending));
    this.#emit({ type: 'background-ready', report: reportOf(plan) });
  }

  /**
   * Applies the pending plan (no model call) and persists it as the session's snapshot.
   * Undefined when there is none that applies, or another writer compacted first.
   */
  async apply(counter: TokenCounter): Promise<CompactionReport | undefined> {
    const pending = await this.pending();
    if (pending === undefined) return undefined;
    const started = performance.now();
    const before = this.#projection.messages;
    const messages: Message[] = applyCompactionPlan(before, pending.plan);
    // Applied because a trigger fired: recorded as an automatic compaction, with the numbers of
    // this projection (the worker planned an older, shorter one).
    const plan: CompactionPlan = {
      ...pending.plan,
      mode: 'auto',
      reason: `applied the background summary prepared at ${pending.createdAt}`,
      tokensBefore: counter.count(before).total,
      tokensAfter: counter.count(messages).total,
      messagesBefore: before.length,
      messagesAfter: messages.length,
    };
    const durationMs = performance.now() - started;
    const written = await this.#projection.persist(plan, messages, {
      counter,
      durationMs,
      timestamp: this.#config.now().toISOString(),
    });
    if (written.conflict) {
      this.#emit({ type: 'snapshot-conflict', reason: written.reason });
      return undefined;
    }
    this.#requested = undefined;
    const store = this.#config.store;
    if (hasSettings(store))
      this.#background('background-clear', store.setSetting(pendingPlanKey(this.#sessionId), null));
    const report: CompactionReport = reportOf(plan);
    if (written.snapshot !== undefined) {
      this.#emit({
        type: 'snapshot-written',
        snapshotId: written.snapshot.id,
        cutoffSeq: written.snapshot.cutoffSeq,
      });
    }
    this.#emit({ type: 'background-applied', report });
    this.#emit({ type: 'compaction-end', mode: report.mode, report, durationMs });
    return report;
  }
}
