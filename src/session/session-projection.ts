import type { CompactionPlan } from '../compaction/types.ts';
import type { Message } from '../messages/types.ts';
import type { SessionContext, Snapshot, Store, StoredMessage } from '../stores/types.ts';
import { summaryRecordOf } from '../strategies/summarize.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { planCut } from './plan-cut.ts';
import { type ReadSnapshot, readSnapshotContent, snapshotContent, toJson } from './snapshot-content.ts';

/** The outcome of persisting a plan. */
export type PersistOutcome =
  | { readonly conflict: false; readonly snapshot?: Snapshot }
  | { readonly conflict: true; readonly reason: string };

/**
 * The in-memory side of a session (ST-5, ST-6): the current projection, the `seq` of every
 * stored message in it, and the snapshot it starts from. It reads only what other writers
 * added since it last looked, and persists applied plans as snapshots with compare-and-set.
 */
export class SessionProjection {
  readonly #sessionId: string;
  readonly #store: Store;
  #messages: Message[] = [];
  #seqById = new Map<string, number>();
  #lastSeq = 0;
  #snapshot: Snapshot | undefined;
  #content: ReadSnapshot | undefined;
  #sinceCompaction = 0;
  #loaded = false;

  constructor(sessionId: string, store: Store) {
    this.#sessionId = sessionId;
    this.#store = store;
  }

  /** The projection as it would be sent now. */
  get messages(): readonly Message[] {
    return this.#messages;
  }

  /** `seq` of the newest stored message seen (= messages in history). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Messages appended since the last compaction (for `messages` triggers). */
  get sinceCompaction(): number {
    return this.#sinceCompaction;
  }

  get snapshot(): Snapshot | undefined {
    return this.#snapshot;
  }

  /** The latest snapshot's content, read once. */
  get content(): ReadSnapshot | undefined {
    return this.#content;
  }

  /** `seq` of a stored message in the projection (undefined for inserted messages). */
  seqOf(id: string): number | undefined {
    return this.#seqById.get(id);
  }

  async load(): Promise<void> {
    this.#reset(await this.#store.context(this.#sessionId, { headCount: 0 }));
  }

  /**
   * Replaces the projection by every stored original message, keeping the snapshot it started
   * from as the base of the next compare-and-set (to summarize again from the originals).
   */
  async loadOriginals(): Promise<void> {
    const rows = await this.#store.messages(this.#sessionId);
    this.#messages = rows.map((row) => row.message);
    this.#seqById = new Map(rows.map((row) => [row.message.id, row.seq]));
    this.#lastSeq = rows.at(-1)?.seq ?? 0;
  }

  /** Reads what other writers appended or compacted since this session last looked (ST-5). */
  async sync(): Promise<void> {
    if (!this.#loaded) return this.load();
    const [latest, rows] = await Promise.all([
      this.#store.latestSnapshot(this.#sessionId, 'summary'),
      this.#store.messages(this.#sessionId, { afterSeq: this.#lastSeq }),
    ]);
    if (latest?.id !== this.#snapshot?.id) return this.load();
    this.apply(rows);
  }

  /** Adds rows the projection has not seen, in `seq` order (duplicates from retries skipped). */
  apply(rows: readonly StoredMessage[]): void {
    if (!this.#loaded) return;
    for (const row of rows) {
      if (row.seq <= this.#lastSeq) continue;
      // Another writer appended in between: the next sync reads the gap in order.
      if (row.seq !== this.#lastSeq + 1) return;
      this.#messages.push(row.message);
      this.#seqById.set(row.message.id, row.seq);
      this.#lastSeq = row.seq;
      this.#sinceCompaction++;
    }
  }

  /** Sends `messages` from now on without persisting them (lost the snapshot race twice). */
  replace(messages: readonly Message[]): void {
    this.#messages = [...messages];
  }

  /**
   * Persists an applied plan (ST-4): a snapshot whose cutoff covers every stored message the
   * plan dropped, replaced, or placed an insertion after, holding the structured summary and
   * the projection head. On success the projection becomes `messages`.
   */
  async persist(
    plan: CompactionPlan,
    messages: readonly Message[],
    { counter, durationMs, timestamp }: { counter: TokenCounter; durationMs: number; timestamp: string },
  ): Promise<PersistOutcome> {
    const previousCutoff = this.#snapshot?.cutoffSeq ?? 0;
    const cut = planCut(plan, messages, (id) => this.#seqById.get(id), previousCutoff);
    if (cut === undefined) {
      this.#adopt(messages);
      return { conflict: false };
    }
    // A plan that wrote no new summary keeps the earlier one (still in the projection) current.
    const summary = plan.summary ?? messages.map(summaryRecordOf).find((record) => record !== undefined);
    const summaryMessage =
      summary === undefined ? undefined : messages.find((message) => message.id === summary.messageId);
    const summaryTokens = summaryMessage === undefined ? 0 : counter.countMessage(summaryMessage);
    const firstCovered = summary === undefined ? undefined : this.#seqById.get(summary.covers.firstId);
    const lastCovered = summary === undefined ? undefined : this.#seqById.get(summary.covers.lastId);
    const summarySeqs =
      lastCovered === undefined
        ? summary === undefined
          ? undefined
          : this.#content?.summarySeqs
        : { first: firstCovered ?? this.#content?.summarySeqs?.first ?? 1, last: lastCovered };
    const content = snapshotContent(plan, {
      cutoffSeq: cut.cutoffSeq,
      cutoffId: cut.cutoffId,
      firstId: cut.firstId,
      projectionHead: cut.head,
      headSeqs: cut.head.map((message) => this.#seqById.get(message.id) ?? null),
      summaryTokens,
      ...(summary === undefined ? {} : { summary }),
      ...(summarySeqs === undefined ? {} : { summarySeqs }),
      durationMs,
      timestamp,
      atSeq: this.#lastSeq,
    });
    const written = await this.#store.writeSnapshot(
      this.#sessionId,
      {
        kind: 'summary',
        content: toJson(content),
        messageCutoffId: cut.cutoffId,
        cutoffSeq: cut.cutoffSeq,
        tokenCount: summaryTokens,
      },
      { expectedLatestId: this.#snapshot?.id ?? null },
    );
    if (!written.written) {
      return {
        conflict: true,
        reason: `the latest snapshot is ${written.latest?.id ?? 'none'}, expected ${this.#snapshot?.id ?? 'none'}`,
      };
    }
    this.#snapshot = written.snapshot;
    this.#content = readSnapshotContent(written.snapshot.content);
    this.#adopt(messages);
    return { conflict: false, snapshot: written.snapshot };
  }

  #adopt(messages: readonly Message[]): void {
    this.#messages = [...messages];
    // Replaced messages keep their id and seq (a later plan may change them again and the
    // snapshot must then cover them); only what left the projection is forgotten.
    const present = new Set(messages.map((message) => message.id));
    for (const id of this.#seqById.keys()) if (!present.has(id)) this.#seqById.delete(id);
    this.#sinceCompaction = 0;
  }

  #reset(context: SessionContext): void {
    const { snapshot, tail } = context;
    this.#content = snapshot === undefined ? undefined : readSnapshotContent(snapshot.content);
    this.#snapshot = snapshot;
    this.#messages = [...(this.#content?.head ?? [])];
    this.#seqById = new Map();
    const head = this.#content?.head ?? [];
    this.#content?.headSeqs?.forEach((seq, index) => {
      const message = head[index];
      if (seq !== null && message !== undefined) this.#seqById.set(message.id, seq);
    });
    this.#lastSeq = snapshot?.cutoffSeq ?? 0;
    this.#sinceCompaction = 0;
    this.#loaded = true;
    this.apply(tail);
    // Messages since the compaction, not since the cutoff: the retained tail was there before it.
    const atSeq = this.#content?.compaction?.atSeq;
    if (atSeq !== undefined) this.#sinceCompaction = Math.max(0, this.#lastSeq - atSeq);
  }
}
