import { applyCompactionPlan } from '../compaction/apply-plan.ts';
import { reportOf } from '../compaction/plan-compaction.ts';
import type { CompactionPlan, CompactionReport } from '../compaction/types.ts';
import { DEFAULTS } from '../defaults.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { contentHash } from '../messages/content-hash.ts';
import type { JsonValue, Message } from '../messages/types.ts';
import { chatfoldMetadata } from '../projection/chatfold-metadata.ts';
import { formatIdSpan } from '../projection/id-span.ts';
import type { FactLedger } from '../projection/types.ts';
import { hasSettings } from '../stores/types.ts';
import { summaryRecordOf } from '../strategies/summarize.ts';
import { LEDGER_KEYS } from '../summarize/ledger.ts';
import { formatSummaryMessage } from '../summarize/summary-message.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { type PendingPlan, pendingPlanJson, pendingPlanKey, readPendingPlan } from './pending-plan.ts';
import type { SessionConfig } from './session.ts';
import type { SessionProjection } from './session-projection.ts';
import type { SessionEvent } from './types.ts';

/** Where the text of a summary written without a model follows a re-based model summary. */
const LATER_HEADING = '## Later messages (condensed without a model while this summary was being written)';

/** Both ledgers: the model summary's facts first, then the current summary's (newest last), each once. */
function mergeLedgers(earlier: FactLedger, later: FactLedger): FactLedger {
  const lists = {} as Record<keyof Omit<FactLedger, 'leftOut'>, string[]>;
  for (const key of LEDGER_KEYS) {
    const latest = new Set(later[key]);
    lists[key] = [...(earlier[key] ?? []).filter((item) => !latest.has(item)), ...(later[key] ?? [])];
  }
  const leftOut = [...new Set([...(earlier.leftOut ?? []), ...(later.leftOut ?? [])])];
  return leftOut.length === 0 ? lists : { ...lists, leftOut };
}

/** How often (in messages) a session asks again while no plan that applies has come back. */
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
    // Never awaited: a request must not wait for the store or the queue either.
    this.#background(
      'background-enqueue',
      (async () => {
        // A plan that came back and still applies is kept, however long ago it was made: the
        // messages since stay on top of it, and it was planned to leave room for them. Asking
        // again would only pay for another summary.
        if ((await this.pending()) !== undefined) return;
        if (await queue.enqueue(job))
          this.#emit({ type: 'background-queued', tokens, threshold: this.threshold });
      })(),
    );
  }

  /** The stored plan, if it still applies to this projection (same base snapshot, a prefix). */
  async pending(): Promise<PendingPlan | undefined> {
    const pending = await this.#stored();
    if (pending === undefined || pending.baseSnapshotId !== this.#base()) return undefined;
    const { input } = pending.plan;
    const messages = this.#projection.messages;
    if (messages.length < input.count || messages[input.count - 1]?.id !== input.lastId) return undefined;
    return pending;
  }

  /** The stored plan, whatever it was planned on; a plan this version cannot read is dropped. */
  async #stored(): Promise<PendingPlan | undefined> {
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
    return pending;
  }

  /**
   * A model summary that came back after the session had to compact without one (turns much
   * faster than the summarizer: the prompt outgrew the budget first, and the deterministic fit
   * wrote a newer snapshot). Its summary still holds: it covers a prefix of what the current
   * summary covers. Re-based onto this projection, it takes the place of the current summary's
   * text, the current one's text following for the later messages, with both ledgers and the
   * current carried files. Undefined when there is no such plan or the current summary is
   * already a model's.
   */
  async #rebased(
    counter: TokenCounter,
  ): Promise<{ pending: PendingPlan; plan: CompactionPlan; messages: Message[] } | undefined> {
    const pending = await this.#stored();
    const arrived = pending?.plan.summary;
    if (pending === undefined || arrived === undefined || arrived.source !== 'llm') return undefined;
    if (pending.baseSnapshotId === this.#base()) return undefined;
    const before = this.#projection.messages;
    const index = before.findIndex((message) => summaryRecordOf(message) !== undefined);
    const current = index < 0 ? undefined : summaryRecordOf(before[index] as Message);
    if (current === undefined || current.source === 'llm') return undefined;
    // The plan's summary must cover a prefix of what the current one covers (both run from the
    // first summarized message; coverage only grows), so nothing the current one holds is lost.
    if (arrived.covers.firstId !== current.covers.firstId || arrived.covers.count > current.covers.count)
      return undefined;
    const old = before[index] as Message;
    const oldText = old.parts[0]?.type === 'text' ? old.parts[0].text : '';
    const ids = formatIdSpan(current.covers.firstId, current.covers.lastId);
    const frame = formatSummaryMessage({
      text: current.text,
      ledger: current.ledger,
      messagesSummarized: current.covers.count,
      ids,
    });
    // The carried files follow the summary's frame; kept as they are.
    const carried = oldText.startsWith(frame) ? oldText.slice(frame.length) : '';
    const text = `${arrived.text.trim()}\n\n${LATER_HEADING}\n${current.text.trim()}`;
    const ledger = mergeLedgers(arrived.ledger, current.ledger);
    const id = `cf_summary_${contentHash(`${current.covers.firstId}..${current.covers.lastId}:${current.covers.count}:${text}`)}`;
    const summary = {
      text,
      ledger,
      covers: current.covers,
      source: 'llm' as const,
      ...(arrived.model === undefined ? {} : { model: arrived.model }),
      messageId: id,
    };
    const { messageId: _, ...record } = summary;
    const replacement: Message = {
      ...old,
      id,
      parts: [
        {
          type: 'text',
          text:
            formatSummaryMessage({ text, ledger, messagesSummarized: current.covers.count, ids }) + carried,
        },
      ],
      metadata: {
        ...old.metadata,
        chatfold: { ...chatfoldMetadata(old), ...(record as unknown as Record<string, JsonValue>) },
      },
    };
    const messages = [...before.slice(0, index), replacement, ...before.slice(index + 1)];
    const tokensBefore = counter.count(before).total;
    const tokensAfter = counter.count(messages).total;
    const next = before[index + 1];
    const plan: CompactionPlan = {
      ...pending.plan,
      input: {
        count: before.length,
        ...(before[0] === undefined ? {} : { firstId: before[0].id }),
        ...(before.at(-1) === undefined ? {} : { lastId: (before.at(-1) as Message).id }),
      },
      dropped: [old.id],
      replaced: [],
      inserted: [{ beforeId: next?.id ?? null, message: replacement }],
      summary,
      mode: 'auto',
      reason: `applied the background summary prepared at ${pending.createdAt} over the summary written without a model since (the session had moved on)`,
      tokensBefore,
      tokensAfter,
      messagesBefore: before.length,
      messagesAfter: messages.length,
    };
    return { pending, plan, messages };
  }

  /**
   * Before a fit without a model (the prompt is over the budget and no plan applies): a model
   * summary that came back after the last such fit is swapped in first, in memory, so the fit
   * carries it forward as the earlier summary (and its snapshot stores it) instead of losing
   * it. Whether it did.
   */
  async rebase(counter: TokenCounter): Promise<boolean> {
    const rebased = await this.#rebased(counter);
    if (rebased === undefined) return false;
    this.#projection.replace(rebased.messages);
    this.#clear();
    this.#emit({ type: 'background-applied', report: reportOf(rebased.plan) });
    return true;
  }

  #clear(): void {
    const store = this.#config.store;
    if (hasSettings(store))
      this.#background('background-clear', store.setSetting(pendingPlanKey(this.#sessionId), null));
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
   *
   * @param target the policy's target now (the plan was made for less: the growth until the
   *   trigger fired was left free), recorded as this compaction's target.
   */
  async apply(counter: TokenCounter, target: number): Promise<CompactionReport | undefined> {
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
      target,
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
    this.#clear();
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
