import { measureContext } from '../compaction/measure-context.ts';
import { AUTO_COMPACTION_WAITING, reportOf, runCompaction } from '../compaction/plan-compaction.ts';
import type { CompactionPlan, CompactionReport } from '../compaction/types.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { normalizeMessages } from '../messages/normalize.ts';
import { repairToolRounds } from '../messages/repair-tool-rounds.ts';
import { isArray } from '../messages/snapshot.ts';
import type { JsonValue, Message, MessageInput, ToolDefinition } from '../messages/types.ts';
import type { ContextPolicy } from '../policy/context-policy.ts';
import { type CompactionDecision, type ContextMeasure, decide, decideAhead } from '../policy/decide.ts';
import { hasSettings, type Store } from '../stores/types.ts';
import type { CalibratedCounter } from '../tokens/calibrated-counter.ts';
import { sharedPrefixTokens } from '../tokens/shared-prefix.ts';
import { CallQueue } from './call-queue.ts';
import {
  INITIAL_SESSION_STATE,
  mayAutoCompact,
  readSessionState,
  SESSION_STATE_FORMAT,
  type SessionCompactionState,
  stateAfterFailure,
  stateAfterPlan,
} from './compaction-state.ts';
import { type CompactionRequest, pick, runOptions } from './plan-options.ts';
import { idleReport, learnWindow, sessionMeasure, withSessionIds } from './prepare-helpers.ts';
import { SessionBackground } from './session-background.ts';
import { SessionEvents } from './session-events.ts';
import { compactionCount, historyEntries, sessionCompactions } from './session-history.ts';
import { SessionProjection } from './session-projection.ts';
import { sessionStatus } from './session-status.ts';
import type {
  ChatfoldOptions,
  CompactionRecord,
  HistoryEntry,
  HistoryQuery,
  PreparedPrompt,
  PrepareOptions,
  Session,
  SessionCompactOptions,
  SessionEvent,
  SessionStatus,
  SessionUsage,
} from './types.ts';
import { warmCounts } from './warm-counts.ts';

/** What every session of one `createChatfold` shares. */
export interface SessionConfig {
  readonly store: Store;
  readonly options: ChatfoldOptions;
  /** The one policy every session of this `createChatfold` decides with. */
  readonly policy: ContextPolicy;
  readonly window: number;
  readonly maxOutputTokens?: number;
  readonly now: () => Date;
  /** Context limits learned from overflow errors, shared by the sessions (RT-3). */
  readonly learnedWindow: { value?: number };
  readonly onLearnedWindow: (window: number) => Promise<void>;
}

/** Settings key of a session's compaction state (loop guard, cancels, back-off). */
export const sessionStateKey = (id: string): string => `chatfold.session-state:${id}`;

/** How one compaction ran, for `prepare` and `compact`. */
interface CompactOutcome {
  readonly plan: CompactionPlan;
  /** Another writer's snapshot won the compare-and-set; nothing was persisted. */
  readonly conflict: boolean;
  readonly messages: readonly Message[];
}

/**
 * A conversation persisted in a store (RT-1). The session keeps the current projection in
 * memory and only reads what other processes added since; the store keeps every original
 * message (ST-3) and one snapshot per compaction (ST-4). Compaction is a plan: the session
 * applies it and persists it, and never works backwards from message objects.
 * Calls on one session run one at a time, in call order.
 */
export class ChatfoldSession implements Session {
  readonly id: string;
  readonly #config: SessionConfig;
  readonly #counter: CalibratedCounter;
  readonly #projection: SessionProjection;
  readonly #queue = new CallQueue();
  readonly #events: SessionEvents;
  readonly #backgroundJobs: SessionBackground;
  #state: SessionCompactionState = INITIAL_SESSION_STATE;
  #previousPrompt: readonly Message[] = [];
  /** The tool definitions sent with it (the provider's input count includes them). */
  #previousTools: readonly ToolDefinition[] | undefined;

  constructor(id: string, config: SessionConfig, counter: CalibratedCounter) {
    this.id = id;
    this.#config = config;
    this.#counter = counter;
    this.#projection = new SessionProjection(id, config.store);
    this.#events = new SessionEvents((event) => config.options.onEvent?.(event, id));
    this.#backgroundJobs = new SessionBackground(
      id,
      config,
      this.#projection,
      (event) => this.#emit(event),
      (operation, write) => this.#background(operation, write),
    );
  }

  /** Loads the latest snapshot, the messages after it and the session's state (ST-6). */
  async open(): Promise<void> {
    await this.#queue.run(async () => {
      const store = this.#config.store;
      const [, state] = await Promise.all([
        this.#projection.load(),
        hasSettings(store) ? store.getSetting(sessionStateKey(this.id)) : undefined,
      ]);
      this.#state = readSessionState(state);
      await warmCounts(this.#counter, this.#projection.messages);
    });
  }

  append(input: MessageInput | readonly MessageInput[]): Promise<readonly Message[]> {
    return this.#queue.run(async () => {
      // A revoked proxy throws on Array.isArray: `isArray` reads it once and says no.
      const inputs: readonly MessageInput[] = isArray(input)
        ? (input as readonly MessageInput[])
        : [input as MessageInput];
      const messages = normalizeMessages(withSessionIds(inputs), { now: this.#config.now });
      const rows = await this.#config.store.append(
        this.id,
        messages.map((message) => ({
          message,
          tokenEstimate: this.#counter.countMessage(message),
          tokenizer: this.#counter.tokenizer,
        })),
      );
      this.#projection.apply(rows);
      return rows.map((row) => row.message);
    });
  }

  prepare(options: PrepareOptions = {}): Promise<PreparedPrompt> {
    return this.#queue.run(async () => {
      await this.#projection.sync();
      return this.#prepare(options, true);
    }, options.signal);
  }

  recordUsage(usage: SessionUsage): Promise<void> {
    return this.#queue.run(async () => {
      if (usage.inputTokens !== undefined && this.#previousPrompt.length > 0) {
        const verdict = this.#counter.recordUsage(
          this.#previousPrompt,
          {
            inputTokens: usage.inputTokens,
            ...(usage.outputTokens === undefined ? {} : { outputTokens: usage.outputTokens }),
          },
          this.#previousTools === undefined ? {} : { tools: this.#previousTools },
        );
        if (verdict.kind === 'under-report' && verdict.isFirst) {
          const { kind: _kind, isFirst: _isFirst, ...underReport } = verdict;
          this.#emit({ type: 'usage-under-reported', ...underReport });
        }
      }
      if (usage.messageId !== undefined) {
        await this.#config.store.recordUsage(this.id, usage.messageId, {
          ...(usage.inputTokens === undefined ? {} : { inputTokens: usage.inputTokens }),
          ...(usage.outputTokens === undefined ? {} : { outputTokens: usage.outputTokens }),
        });
      }
    });
  }

  compact(options: SessionCompactOptions = {}): Promise<CompactionPlan> {
    return this.#queue.run(async () => {
      await this.#projection.sync();
      const fromOriginals = options.from === 'originals';
      const request: CompactionRequest = {
        mode: options.mode ?? 'manual',
        window: this.#window(),
        ...pick(options, this.#config.options),
        ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        // WEB-4 "Regenerate summary": one new summary of the stored originals, not of the old summary.
        ...(fromOriginals ? { strategy: ['summarize'] } : {}),
        ...(options.retention === undefined
          ? {}
          : { policy: withRetention(this.#config.policy, options.retention) }),
      };
      if (fromOriginals) await this.#projection.loadOriginals();
      let outcome: CompactOutcome | undefined;
      try {
        const decision = await this.#decide(request, options.signal);
        if (options.dryRun === true) return await this.#preview(request, decision);
        outcome = await this.#compact(request, decision);
      } finally {
        // A preview, a failure or a compaction that changed nothing: back to the current projection.
        if (fromOriginals && (options.dryRun === true || outcome === undefined || !outcome.plan.compacted)) {
          await this.#projection.load();
        }
      }
      if (!outcome.conflict) return outcome.plan;
      await this.#projection.load();
      return {
        ...outcome.plan,
        compacted: false,
        reason: 'another writer compacted this session first; its snapshot is loaded',
      };
    }, options.signal);
  }

  status(): Promise<SessionStatus> {
    return this.#queue.run(async () => {
      await this.#projection.sync();
      const options = this.#config.options;
      const compactions = await compactionCount(this.#config.store, this.id, this.#projection);
      return sessionStatus({
        sessionId: this.id,
        projection: this.#projection,
        counter: this.#counter,
        measure: sessionMeasure(this.#config, this.#counter, this.#projection, {
          window: this.#window(),
          tools: options.tools,
          tokens: undefined,
        }),
        policy: this.#config.policy,
        compactions,
        pending: this.#backgroundJobs.isEnabled ? await this.#backgroundJobs.pending() : undefined,
        guard: this.#state.guard,
      });
    });
  }

  async history(query: HistoryQuery = {}): Promise<readonly HistoryEntry[]> {
    return historyEntries(this.#config.store, this.id, this.#projection, query);
  }

  async compactions(): Promise<readonly CompactionRecord[]> {
    return sessionCompactions(this.#config.store, this.id);
  }

  async precompact(options: { readonly signal?: AbortSignal } = {}): Promise<CompactionPlan> {
    // Read the projection in turn, then plan outside the call queue: a session object shared
    // with the request path never makes a turn wait for the summary.
    const config = this.#config.options;
    const input = await this.#queue.run(async () => {
      await this.#projection.sync();
      const request: CompactionRequest = {
        mode: 'manual',
        window: this.#window(),
        ...pick({}, config),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      };
      // What the trigger will want (its retention, not a manual "summarize everything"), less the
      // growth expected before it fires: the messages added until then stay on top of the plan.
      // Run like a manual compaction (a failed summarizer fails the job, which the queue retries).
      const decision = {
        ...(await this.#decide(request, options.signal, decideAhead)),
        mode: 'manual' as const,
      };
      return {
        messages: [...this.#projection.messages],
        base: this.#projection.snapshot?.id ?? null,
        decision,
        run: this.#runOptions(request, true),
      };
    }, options.signal);
    const outcome = await runCompaction(input.messages, input.decision, input.run);
    await this.#backgroundJobs.store(outcome.plan, input.base);
    return outcome.plan;
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
    return this.#events.on(typeOrListener, typed);
  }

  // ---------------------------------------------------------------------------------------

  #emit(event: SessionEvent): void {
    this.#events.emit(event);
  }

  /** Runs a background write; a failure becomes a `store-error` event (never swallowed). */
  #background(operation: string, write: Promise<unknown>): void {
    write.catch((error: unknown) => this.#emit({ type: 'store-error', operation, error }));
  }

  #window(overflow?: PrepareOptions['overflow']): number {
    return learnWindow(this.#config, overflow, {
      counter: this.#counter,
      previousPrompt: this.#previousPrompt,
      ...(this.#previousTools === undefined ? {} : { previousTools: this.#previousTools }),
      onLearned: (window) => {
        this.#emit({ type: 'window-learned', window });
        this.#background('learned-window', this.#config.onLearnedWindow(window));
      },
    });
  }

  /** Measures the projection and decides, once (exact near a threshold when the counter can, TOK-4). */
  async #decide(
    request: CompactionRequest,
    signal: AbortSignal | undefined,
    how: (measure: ContextMeasure, policy: ContextPolicy) => CompactionDecision = (measure, policy) =>
      decide(measure, policy, request.mode),
  ): Promise<CompactionDecision> {
    const { decision } = await measureContext({
      counter: this.#counter,
      messages: this.#projection.messages,
      decideFor: (tokens, estimated) =>
        how(
          {
            ...sessionMeasure(this.#config, this.#counter, this.#projection, {
              window: request.window,
              tools: request.tools,
              tokens,
            }),
            tokensEstimated: estimated,
          },
          request.policy ?? this.#config.policy,
        ),
      ...(request.tools === undefined ? {} : { tools: request.tools }),
      ...(signal === undefined ? {} : { signal }),
      exactWhenNear: request.mode === 'auto',
      onFallback: (fallback) => this.#emit({ type: 'compaction-fallback', ...fallback }),
    });
    return decision;
  }

  /**
   * @param background a plan written ahead for the trigger (`precompact`): nothing is compacted
   *   yet, so its start and end are not compaction events (`background-ready` reports it, and
   *   applying it is the compaction, `mode: 'auto'`); its progress and fallbacks are still said.
   */
  #runOptions(request: CompactionRequest, background = false) {
    return runOptions(this.#config, request, {
      counter: this.#counter,
      state: this.#state,
      now: this.#config.now().getTime(),
      hooks: this.#config.options.hooks,
      onEvent: (event) => {
        if (background && (event.type === 'compaction-start' || event.type === 'compaction-end')) return;
        this.#emit(event);
      },
    });
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
    const request: CompactionRequest = {
      mode: options.overflow === undefined ? 'auto' : 'overflow',
      window,
      ...(provider === undefined ? {} : { provider }),
      ...(tools === undefined ? {} : { tools }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
    // Decided once, here; the run below never decides again.
    const decision = await this.#decide(request, options.signal);
    let runs = decision.compact;
    // TRG-5: after a stalled or failed automatic compaction, wait (a prompt that does not fit never waits).
    if (runs && !decision.mustFit && !mayAutoCompact(this.#state, this.#projection.lastSeq)) runs = false;
    const tokens = decision.promptTokens - decision.budget.toolTokens;
    const idle = (reason: string): CompactionReport =>
      idleReport({
        reason,
        decision,
        tokens,
        messages: this.#projection.messages.length,
        counter: this.#counter,
        ...(provider === undefined ? {} : { provider }),
      });
    let report: CompactionReport | undefined;
    let summarizerAllowed = true;
    if (runs && !decision.mustFit && this.#backgroundJobs.isEnabled) {
      // The plan a worker prepared applies with no model call; while it is still being written
      // and the prompt fits, the prompt goes as is; over the budget, fit it now without an LLM.
      report = await this.#backgroundJobs.apply(this.#counter, decision.target);
      if (report === undefined) {
        this.#emit({ type: 'background-waiting', tokens, budget: decision.budget.messages });
        report = idle('a background summary is being prepared; the prompt fits until it is ready');
      }
      runs = false;
    } else if (runs && decision.mode === 'auto' && this.#backgroundJobs.isEnabled) {
      // Over the budget: a ready background plan applies; else fit now without waiting for a model.
      const applied = await this.#backgroundJobs.apply(this.#counter, decision.target);
      if (applied !== undefined) {
        // Planned for the trigger, a plan applied far past it (a large message arrived) may still
        // leave the prompt over the budget: the rest is fitted now, from the applied snapshot.
        if (applied.tokensAfter > decision.budget.messages)
          return this.#prepare(options, retryOnConflict, window);
        report = applied;
        runs = false;
      } else {
        summarizerAllowed = false;
        // A model summary that came back too late for the last fit is carried into this one.
        await this.#backgroundJobs.rebase(this.#counter);
      }
    }
    if (!runs) {
      report ??= idle(decision.compact ? AUTO_COMPACTION_WAITING : decision.reason);
    } else {
      const outcome = await this.#compact({ ...request, summarizerAllowed }, decision);
      if (outcome.conflict) {
        if (retryOnConflict) {
          await this.#projection.load();
          return this.#prepare(options, false, window);
        }
        // Lost the race twice in a row: send this compaction without persisting it (the prompt
        // must still fit); the next call loads the winners' snapshot.
        this.#projection.replace(outcome.messages);
      }
      report = reportOf(outcome.plan);
    }
    this.#backgroundJobs.request(report.tokensAfter, decision.budget.messages);
    // Never send a broken history (issue 24 §5): a tool round another turn left unfinished is
    // held back and a result away from its call is moved to it; a well-formed one is unchanged.
    const repair = repairToolRounds(this.#projection.messages);
    if (repair.messages !== this.#projection.messages) {
      this.#emit({
        type: 'history-repaired',
        moved: repair.moved,
        heldBack: repair.heldBack,
        dropped: repair.dropped,
      });
    }
    const messages = [...repair.messages];
    const cachedPrefixTokens = sharedPrefixTokens(this.#previousPrompt, messages, this.#counter);
    this.#previousPrompt = messages;
    this.#previousTools = tools;
    return {
      messages,
      report,
      tokens: report.tokensAfter + decision.budget.toolTokens,
      cachedPrefixTokens,
    };
  }

  /** A compaction's plan, not applied, not persisted, no model call, no hooks, no events. */
  async #preview(request: CompactionRequest, decision: CompactionDecision): Promise<CompactionPlan> {
    const run = this.#runOptions({ ...request, summarizerAllowed: false, quiet: true });
    const { plan } = await runCompaction(this.#projection.messages, decision, run);
    return plan;
  }

  async #compact(request: CompactionRequest, decision: CompactionDecision): Promise<CompactOutcome> {
    const run = this.#runOptions(request);
    const started = performance.now();
    let plan: CompactionPlan;
    let projected: readonly Message[];
    try {
      // The run's own projection is its plan applied (property-tested): no need to re-check a plan made here.
      ({ plan, messages: projected } = await runCompaction(this.#projection.messages, decision, run));
    } catch (error) {
      if (!request.signal?.aborted) this.#saveState(stateAfterFailure(this.#state, this.#projection.lastSeq));
      throw error;
    }
    const { state, backoff } = stateAfterPlan(this.#state, plan, {
      messageCount: this.#projection.lastSeq,
      now: this.#config.now().getTime(),
      llmCalled: run.summarizer !== undefined,
      backoffMs: this.#config.policy.onFailure.backoffMs,
    });
    this.#saveState(state);
    if (backoff !== undefined) this.#emit({ type: 'summarizer-backoff', ...backoff });
    if (!plan.compacted) return { plan, conflict: false, messages: this.#projection.messages };
    const messages = [...projected];
    const written = await this.#projection.persist(plan, messages, {
      counter: this.#counter,
      durationMs: performance.now() - started,
      timestamp: this.#config.now().toISOString(),
    });
    if (written.conflict) {
      this.#emit({ type: 'snapshot-conflict', reason: written.reason });
      return { plan, conflict: true, messages };
    }
    if (written.snapshot !== undefined) {
      this.#emit({
        type: 'snapshot-written',
        snapshotId: written.snapshot.id,
        cutoffSeq: written.snapshot.cutoffSeq,
      });
    }
    return { plan, conflict: false, messages };
  }

  #saveState(state: SessionCompactionState): void {
    if (JSON.stringify(state) === JSON.stringify(this.#state)) return;
    this.#state = state;
    const store = this.#config.store;
    if (!hasSettings(store)) return; // documented: such a store forgets back-offs on restart
    this.#background(
      'session-state',
      store.setSetting(
        sessionStateKey(this.id),
        JSON.parse(JSON.stringify({ version: SESSION_STATE_FORMAT.version, ...state })) as JsonValue,
      ),
    );
  }
}

/**
 * The session's policy with a retention chosen for one manual compaction (FR-2.2.2): the
 * newest tokens/messages given are kept, everything older is summarized.
 */
function withRetention(
  policy: ContextPolicy,
  retention: { readonly tokens?: number; readonly messages?: number },
): ContextPolicy {
  for (const [key, value] of Object.entries(retention)) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `compact: retention.${key}: expected a whole number of ${key} ≥ 0, received ${String(value)}`,
        { option: `retention.${key}` },
      );
    }
  }
  return {
    ...policy,
    name: `${policy.name} (custom retention)`,
    retention: {
      ...(retention.tokens === undefined ? {} : { tokens: retention.tokens }),
      ...(retention.messages === undefined ? {} : { messages: retention.messages }),
    },
    protect: { ...policy.protect, recentMessages: 0 },
    manual: { scope: 'retention' },
  };
}
