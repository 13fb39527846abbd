import { type CompactOptions, compact } from '../compaction/compact.ts';
import type { CompactionReport, CompactionTrigger } from '../compaction/types.ts';
import { hasDerivedId, normalizeMessages } from '../messages/normalize.ts';
import type { Message, MessageInput, Provider, ToolDefinition } from '../messages/types.ts';
import { type Budget, computeBudget } from '../policy/budget.ts';
import {
  INITIAL_LOOP_GUARD,
  isCompactionAllowed,
  type LoopGuardState,
  recordCompaction,
  recordFailure,
} from '../policy/loop-guard.ts';
import { windowAfterOverflow } from '../policy/overflow-window.ts';
import { contextStatus } from '../policy/status.ts';
import { DEFAULT_FLOOR, DEFAULT_TARGET, DEFAULT_TRIGGERS, evaluateTriggers } from '../policy/triggers.ts';
import type { SessionContext, Snapshot, Store, StoredMessage } from '../stores/types.ts';
import { chatfoldMetadata } from '../strategies/chatfold-metadata.ts';
import type { CalibratedCounter } from '../tokens/calibrated-counter.ts';
import { sharedPrefixTokens } from '../tokens/shared-prefix.ts';
import { readSnapshotContent, snapshotContent, toJson } from './snapshot-content.ts';
import type {
  ChatfoldOptions,
  HistoryQuery,
  PreparedPrompt,
  PrepareOptions,
  Session,
  SessionCompactOptions,
  SessionEvent,
  SessionStatus,
  SessionUsage,
} from './types.ts';

/** First wait after the LLM summarizer failed; doubles per consecutive failure (RT-4). */
export const SUMMARIZER_RETRY_BASE_MS = 30_000;
/** Upper bound of the summarizer back-off. */
export const SUMMARIZER_RETRY_MAX_MS = 15 * 60_000;

/** What every session of one `createChatfold` shares. */
export interface SessionConfig {
  readonly store: Store;
  readonly options: ChatfoldOptions;
  readonly window: number;
  readonly maxOutputTokens?: number;
  readonly now: () => Date;
  /** Context limits learned from overflow errors, shared by the sessions (RT-3). */
  readonly learnedWindow: { value?: number };
  readonly onLearnedWindow: (window: number) => Promise<void>;
}

interface CompactOutcome {
  readonly report: CompactionReport;
  /** Another writer's snapshot won the compare-and-set; nothing was applied. */
  readonly conflict: boolean;
  /** The compacted projection (applied unless `conflict`). */
  readonly messages: readonly Message[];
}

/**
 * A conversation persisted in a store (RT-1). The session keeps the current projection in
 * memory and only reads what other processes added since; the store keeps every original
 * message (ST-3) and one snapshot per compaction that removed messages (ST-4).
 * Calls on one session run one at a time, in call order.
 */
export class ChatfoldSession implements Session {
  readonly id: string;
  readonly #config: SessionConfig;
  readonly #counter: CalibratedCounter;
  #projection: Message[] = [];
  #seqById = new Map<string, number>();
  #lastSeq = 0;
  #snapshot: Snapshot | undefined;
  #sinceCompaction = 0;
  #guard: LoopGuardState = INITIAL_LOOP_GUARD;
  #previousPrompt: readonly Message[] = [];
  #loaded = false;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #listeners = new Set<(event: SessionEvent) => void>();
  #summarizerFailures = 0;
  #summarizerRetryAt = 0;

  constructor(id: string, config: SessionConfig, counter: CalibratedCounter) {
    this.id = id;
    this.#config = config;
    this.#counter = counter;
  }

  /** Loads the latest snapshot and the messages after it (ST-6). Called by `createChatfold`. */
  async open(): Promise<void> {
    await this.#exclusive(() => this.#load());
  }

  append(input: MessageInput | readonly MessageInput[]): Promise<readonly Message[]> {
    return this.#exclusive(async () => {
      const inputs: readonly MessageInput[] = Array.isArray(input) ? input : [input as MessageInput];
      // Ids derived from content would make two identical turns ("yes") one row: a session
      // gives every message without an id of its own (or with one a converter derived) its own.
      const withIds = inputs.map((message) =>
        typeof message === 'object' &&
        message !== null &&
        (message.id === undefined || hasDerivedId(message as Message))
          ? { ...message, id: `msg_${globalThis.crypto.randomUUID().replaceAll('-', '')}` }
          : message,
      );
      const messages = normalizeMessages(withIds, { now: this.#config.now });
      const rows = await this.#config.store.append(
        this.id,
        messages.map((message) => ({
          message,
          tokenEstimate: this.#counter.countMessage(message),
          tokenizer: this.#counter.tokenizer,
        })),
      );
      this.#apply(rows);
      return rows.map((row) => row.message);
    });
  }

  prepare(options: PrepareOptions = {}): Promise<PreparedPrompt> {
    return this.#exclusive(async () => {
      await this.#sync();
      return this.#prepare(options, true);
    });
  }

  recordUsage(usage: SessionUsage): Promise<void> {
    return this.#exclusive(async () => {
      if (usage.inputTokens !== undefined && this.#previousPrompt.length > 0) {
        this.#counter.recordUsage(this.#previousPrompt, {
          inputTokens: usage.inputTokens,
          ...(usage.outputTokens === undefined ? {} : { outputTokens: usage.outputTokens }),
        });
      }
      if (usage.messageId !== undefined) {
        await this.#config.store.recordUsage(this.id, usage.messageId, {
          ...(usage.inputTokens === undefined ? {} : { inputTokens: usage.inputTokens }),
          ...(usage.outputTokens === undefined ? {} : { outputTokens: usage.outputTokens }),
        });
      }
    });
  }

  compact(options: SessionCompactOptions = {}): Promise<CompactionReport> {
    return this.#exclusive(async () => {
      await this.#sync();
      const outcome = await this.#compact({
        mode: options.manual === false ? 'auto' : 'manual',
        window: this.#window(),
        ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
        ...pick(options, this.#config.options),
      });
      if (!outcome.conflict) return outcome.report;
      await this.#load();
      return {
        ...outcome.report,
        compacted: false,
        reason: 'another writer compacted this session first; its snapshot is loaded',
      };
    });
  }

  status(): Promise<SessionStatus> {
    return this.#exclusive(async () => {
      await this.#sync();
      const options = this.#config.options;
      const tokens = this.#counter.count(this.#projection).total;
      const budget = this.#budget(this.#window(), options.tools);
      const summarized = this.#summarized();
      const snapshots = await this.#config.store.snapshots(this.id, 'summary');
      const base = contextStatus({
        tokens,
        budget,
        messagesSinceCompaction: this.#sinceCompaction,
        accuracy: this.#counter.accuracy,
        tokenizer: this.#counter.tokenizer,
        triggers: options.triggers ?? DEFAULT_TRIGGERS,
        floor: options.floor ?? DEFAULT_FLOOR,
        ...(this.#snapshot === undefined
          ? {}
          : {
              summary: {
                messagesSummarized: summarized,
                tokens: this.#snapshot.tokenCount,
                createdAt: this.#snapshot.createdAt,
              },
            }),
      });
      const count = this.#lastSeq.toLocaleString('en-US');
      return {
        ...base,
        sessionId: this.id,
        messagesInHistory: this.#lastSeq,
        messagesSummarized: summarized,
        text: `${count} message${this.#lastSeq === 1 ? '' : 's'} in history (${summarized.toLocaleString('en-US')} summarized)`,
        compactions: snapshots.length,
      };
    });
  }

  async history(query: HistoryQuery = {}): Promise<readonly StoredMessage[]> {
    const store = this.#config.store;
    if (query.query !== undefined && query.query !== '') {
      return store.search(this.id, {
        text: query.query,
        ...(query.limit === undefined ? {} : { limit: query.limit }),
        ...(query.before === undefined ? {} : { beforeSeq: query.before }),
      });
    }
    const rows = await store.messages(this.id, {
      order: 'desc',
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      ...(query.before === undefined ? {} : { beforeSeq: query.before }),
    });
    return [...rows].reverse();
  }

  on(listener: (event: SessionEvent) => void): () => void;
  on<T extends SessionEvent['type']>(
    type: T,
    listener: (event: Extract<SessionEvent, { type: T }>) => void,
  ): () => void;
  on(
    typeOrListener: SessionEvent['type'] | ((event: SessionEvent) => void),
    typed?: (event: never) => void,
  ): () => void {
    const listener: (event: SessionEvent) => void =
      typeof typeOrListener === 'function'
        ? typeOrListener
        : (event) => {
            if (event.type === typeOrListener) (typed as (event: SessionEvent) => void)(event);
          };
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  // ---------------------------------------------------------------------------------------

  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #emit(event: SessionEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A failing UI listener must not fail the user's request.
      }
    }
  }

  async #load(): Promise<void> {
    this.#reset(await this.#config.store.context(this.id, { headCount: 0 }));
  }

  #reset(context: SessionContext): void {
    const { snapshot, tail } = context;
    const head = snapshot === undefined ? [] : (readSnapshotContent(snapshot.content)?.head ?? []);
    this.#snapshot = snapshot;
    this.#projection = [...head];
    this.#seqById = new Map();
    this.#lastSeq = snapshot?.cutoffSeq ?? 0;
    this.#sinceCompaction = 0;
    this.#previousPrompt = [];
    this.#loaded = true;
    this.#apply(tail);
  }

  /** Adds rows the projection has not seen, in `seq` order (duplicates from retries skipped). */
  #apply(rows: readonly StoredMessage[]): void {
    if (!this.#loaded) return;
    for (const row of rows) {
      if (row.seq <= this.#lastSeq) continue;
      if (row.seq !== this.#lastSeq + 1) {
        // Another writer appended in between: the next #sync reads the gap in order.
        return;
      }
      this.#projection.push(row.message);
      this.#seqById.set(row.message.id, row.seq);
      this.#lastSeq = row.seq;
      this.#sinceCompaction++;
    }
  }

  /** Reads what other writers appended or compacted since this session last looked (ST-5). */
  async #sync(): Promise<void> {
    if (!this.#loaded) return this.#load();
    const store = this.#config.store;
    const [latest, rows] = await Promise.all([
      store.latestSnapshot(this.id, 'summary'),
      store.messages(this.id, { afterSeq: this.#lastSeq }),
    ]);
    if (latest?.id !== this.#snapshot?.id) return this.#load();
    this.#apply(rows);
  }

  #window(overflow?: PrepareOptions['overflow']): number {
    const learned = this.#config.learnedWindow;
    const current = Math.min(this.#config.window, learned.value ?? Number.POSITIVE_INFINITY);
    if (overflow === undefined) return current;
    if (overflow.actual !== undefined && this.#previousPrompt.length > 0) {
      // The provider counted the rejected prompt: calibrate the counter on it (TOK-5).
      this.#counter.recordUsage(this.#previousPrompt, { inputTokens: overflow.actual });
    }
    const next = windowAfterOverflow(current, overflow, { calibrated: this.#previousPrompt.length > 0 });
    if (next < current || learned.value === undefined) {
      learned.value = next;
      void this.#config.onLearnedWindow(next).catch(() => undefined);
    }
    return next;
  }

  #budget(window: number, tools: readonly ToolDefinition[] | undefined): Budget {
    const options = this.#config.options;
    const toolTokens = tools?.length ? this.#counter.count([], { tools }).tools : 0;
    return computeBudget({
      window,
      ...(this.#config.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: this.#config.maxOutputTokens }),
      ...(options.responseReserve === undefined ? {} : { responseReserve: options.responseReserve }),
      ...(options.safetyMargin === undefined ? {} : { safetyMargin: options.safetyMargin }),
      accuracy: this.#counter.accuracy,
      toolTokens,
    });
  }

  #summarized(): number {
    if (this.#snapshot === undefined) return 0;
    return readSnapshotContent(this.#snapshot.content)?.messagesIncluded ?? 0;
  }

  async #prepare(
    options: PrepareOptions,
    retryOnConflict: boolean,
    learned?: number,
  ): Promise<PreparedPrompt> {
    const config = this.#config.options;
    const provider = options.provider ?? config.provider;
    const tools = options.tools ?? config.tools;
    // A redone compaction uses the window already learned from this overflow (shrinking twice
    // would persist a limit smaller than the provider's).
    const window = learned ?? this.#window(options.overflow);
    const budget = this.#budget(window, tools);
    const tokens = this.#counter.count(this.#projection).total;
    const decision = evaluateTriggers(
      { tokens, budget: budget.messages, messagesSinceCompaction: this.#sinceCompaction },
      { triggers: config.triggers ?? DEFAULT_TRIGGERS, floor: config.floor ?? DEFAULT_FLOOR },
    );
    let mode: CompactionTrigger | undefined;
    if (options.overflow !== undefined) mode = 'overflow';
    else if (
      decision.shouldCompact &&
      (decision.trigger === 'overflow' || isCompactionAllowed(this.#guard, this.#lastSeq))
    ) {
      mode = 'auto';
    }
    let report: CompactionReport;
    if (mode === undefined) {
      report = {
        compacted: false,
        cancelled: false,
        reason: decision.shouldCompact
          ? 'waiting after a stalled or failed compaction (TRG-5)'
          : decision.reason,
        ...(provider === undefined ? {} : { provider }),
        budget,
        target: Math.floor(budget.messages * (config.target ?? DEFAULT_TARGET)),
        tokensBefore: tokens,
        tokensAfter: tokens,
        messagesBefore: this.#projection.length,
        messagesAfter: this.#projection.length,
        tokenizer: this.#counter.tokenizer,
        accuracy: this.#counter.accuracy,
        stages: [],
        warnings: [],
      };
    } else {
      const outcome = await this.#compact({
        mode,
        window,
        ...(provider === undefined ? {} : { provider }),
        ...(tools === undefined ? {} : { tools }),
      });
      if (outcome.conflict) {
        if (retryOnConflict) {
          await this.#load();
          return this.#prepare(options, false, window);
        }
        // Lost the race twice in a row: send this compaction without persisting it (the prompt
        // must still fit); the next call loads the winners' snapshot.
        this.#projection = [...outcome.messages];
      }
      report = outcome.report;
    }
    const messages = [...this.#projection];
    const cachedPrefixTokens = sharedPrefixTokens(this.#previousPrompt, messages, this.#counter);
    this.#previousPrompt = messages;
    const toolTokens = budget.toolTokens;
    return { messages, report, tokens: report.tokensAfter + toolTokens, cachedPrefixTokens };
  }

  #activeSummarizer(): CompactOptions['summarizer'] {
    const summarizer = this.#config.options.summarizer;
    if (summarizer === undefined) return undefined;
    // RT-4: after a failure, use the extractive summary until the back-off ends.
    return this.#config.now().getTime() >= this.#summarizerRetryAt ? summarizer : undefined;
  }

  async #compact(run: {
    mode: CompactionTrigger;
    window: number;
    provider?: Provider;
    tools?: readonly ToolDefinition[];
    instructions?: string;
  }): Promise<CompactOutcome> {
    const config = this.#config.options;
    const before = this.#projection;
    const summarizer = this.#activeSummarizer();
    const instructions = [config.instructions, run.instructions].filter(Boolean).join('\n\n');
    let result: Awaited<ReturnType<typeof compact>>;
    try {
      result = await compact(before, {
        counter: this.#counter,
        window: run.window,
        ...(this.#config.maxOutputTokens === undefined
          ? {}
          : { maxOutputTokens: this.#config.maxOutputTokens }),
        ...copy(config, [
          'responseReserve',
          'safetyMargin',
          'strategy',
          'strategyOptions',
          'registry',
          'triggers',
          'floor',
          'target',
          'protect',
          'hooks',
        ]),
        ...(run.provider === undefined ? {} : { provider: run.provider }),
        ...(run.tools === undefined ? {} : { tools: run.tools }),
        ...(summarizer === undefined ? {} : { summarizer }),
        ...(instructions === '' ? {} : { instructions }),
        mode: run.mode,
        messagesSinceCompaction: this.#sinceCompaction,
        onEvent: (event) => this.#emit(event),
      });
    } catch (error) {
      this.#guard = recordFailure(this.#guard, this.#lastSeq);
      throw error;
    }
    const { report } = result;
    this.#noteSummarizer(before, result.messages, summarizer !== undefined);
    if (!report.compacted) {
      if (!report.cancelled && run.mode === 'auto') {
        this.#guard = recordCompaction(this.#guard, {
          messageCount: this.#lastSeq,
          before: report.tokensBefore,
          after: report.tokensAfter,
        });
      }
      return { report, conflict: false, messages: result.messages };
    }

    const after = new Map(result.messages.map((message) => [message.id, message]));
    const previousCutoff = this.#snapshot?.cutoffSeq ?? 0;
    let cutoffSeq = previousCutoff;
    let cutoffId = this.#snapshot?.messageCutoffId;
    let first: { seq: number; id: string } | undefined;
    let removed = 0;
    let firstChanged: { seq: number; id: string } | undefined;
    const cover = (seq: number, id: string): void => {
      if (firstChanged === undefined || seq < firstChanged.seq) firstChanged = { seq, id };
      if (seq > cutoffSeq) {
        cutoffSeq = seq;
        cutoffId = id;
      }
    };
    // Resuming reads the stored originals after the cutoff, so the snapshot must stand for
    // every stored message the compaction removed or changed (a stub, mask or clip keeps the
    // id) and for every one placed before a message chatfold inserted.
    for (const message of before) {
      const seq = this.#seqById.get(message.id);
      if (seq === undefined) continue;
      const now = after.get(message.id);
      if (now === message) continue;
      if (now === undefined) {
        removed++;
        if (first === undefined || seq < first.seq) first = { seq, id: message.id };
      }
      cover(seq, message.id);
    }
    let newest: { seq: number; id: string } | undefined;
    for (const message of result.messages) {
      const seq = this.#seqById.get(message.id);
      if (seq === undefined) {
        if (newest !== undefined) cover(newest.seq, newest.id);
      } else if (newest === undefined || seq > newest.seq) {
        newest = { seq, id: message.id };
      }
    }
    // A compaction that only stubbed, masked or clipped: its range starts at the first it changed.
    first ??= firstChanged;
    if (cutoffSeq > previousCutoff && cutoffId !== undefined && first !== undefined) {
      const boundary = result.messages.findIndex(
        (message) => (this.#seqById.get(message.id) ?? 0) > cutoffSeq,
      );
      const projectionHead = boundary < 0 ? result.messages : result.messages.slice(0, boundary);
      const summaryMessage = result.messages.find(
        (message) => chatfoldMetadata(message)?.transform === 'summary',
      );
      const summaryTokens = summaryMessage === undefined ? 0 : this.#counter.countMessage(summaryMessage);
      const content = snapshotContent(
        report,
        {
          cutoffSeq,
          cutoffId,
          firstId: first.id,
          projectionHead,
          summaryTokens,
          messagesIncluded: report.summary?.messagesSummarized ?? this.#summarized() + removed,
        },
        this.#config.now().toISOString(),
      );
      const written = await this.#config.store.writeSnapshot(
        this.id,
        {
          kind: 'summary',
          content: toJson(content),
          messageCutoffId: cutoffId,
          cutoffSeq,
          tokenCount: summaryTokens,
        },
        { expectedLatestId: this.#snapshot?.id ?? null },
      );
      if (!written.written) {
        this.#emit({
          type: 'snapshot-conflict',
          reason: `the latest snapshot is ${written.latest?.id ?? 'none'}, expected ${this.#snapshot?.id ?? 'none'}`,
        });
        return { report, conflict: true, messages: result.messages };
      }
      this.#snapshot = written.snapshot;
      this.#emit({ type: 'snapshot-written', snapshotId: written.snapshot.id, cutoffSeq });
      for (const message of before) {
        const seq = this.#seqById.get(message.id);
        if (seq !== undefined && seq <= cutoffSeq) this.#seqById.delete(message.id);
      }
    }
    this.#projection = [...result.messages];
    this.#guard = recordCompaction(this.#guard, {
      messageCount: this.#lastSeq,
      before: report.tokensBefore,
      after: report.tokensAfter,
    });
    this.#sinceCompaction = 0;
    return { report, conflict: false, messages: result.messages };
  }

  /** Tracks LLM summarizer failures for the back-off (RT-4). */
  #noteSummarizer(before: readonly Message[], messages: readonly Message[], llmConfigured: boolean): void {
    if (!llmConfigured) return;
    // Only a summary this compaction wrote says how the summarizer did; an earlier one stays.
    const previous = new Set(before);
    const record = messages
      .filter((message) => !previous.has(message))
      .map(chatfoldMetadata)
      .find((meta) => meta?.transform === 'summary');
    if (record === undefined) return;
    if (record.source === 'llm') {
      this.#summarizerFailures = 0;
      return;
    }
    if (record.source !== 'extractive') return;
    this.#summarizerFailures++;
    const wait = Math.min(
      SUMMARIZER_RETRY_BASE_MS * 2 ** (this.#summarizerFailures - 1),
      SUMMARIZER_RETRY_MAX_MS,
    );
    this.#summarizerRetryAt = this.#config.now().getTime() + wait;
    this.#emit({
      type: 'summarizer-fallback',
      reason: 'the summarizer failed; the extractive summary was used',
      retryAfterMs: wait,
    });
  }
}

/** Provider and tools from the call, else from the session configuration. */
function pick(
  options: { readonly provider?: Provider; readonly tools?: readonly ToolDefinition[] },
  config: ChatfoldOptions,
): { provider?: Provider; tools?: readonly ToolDefinition[] } {
  const provider = options.provider ?? config.provider;
  const tools = options.tools ?? config.tools;
  return { ...(provider === undefined ? {} : { provider }), ...(tools === undefined ? {} : { tools }) };
}

/** The listed options that are set (exactOptionalPropertyTypes forbids passing `undefined`). */
function copy<K extends keyof ChatfoldOptions>(
  options: ChatfoldOptions,
  keys: readonly K[],
): Partial<Pick<ChatfoldOptions, K>> {
  const out: Partial<Pick<ChatfoldOptions, K>> = {};
  for (const key of keys) if (options[key] !== undefined) out[key] = options[key];
  return out;
}
