/**
 * What the SDK integrations share (RT-2, RT-3): turn the caller's prompt into the messages to
 * send — stateless with `compact()`, or through a session — and learn from overflow errors.
 * The integrations only convert formats and call the SDK.
 */
import { type CompactOptions, parseCompactOptions } from '../compaction/options.ts';
import { planWithOptions } from '../compaction/plan-compaction.ts';
import { resolveCompactionModel } from '../compaction/resolve-model.ts';
import type { CompactionEvent } from '../compaction/types.ts';
import { DEFAULTS } from '../defaults.ts';
import type { Message, Provider, ToolDefinition } from '../messages/types.ts';
import {
  guardAfterPlan,
  INITIAL_LOOP_GUARD,
  isCompactionAllowed,
  type LoopGuardState,
  recordFailure,
} from '../policy/loop-guard.ts';
import { windowAfterOverflow } from '../policy/overflow-window.ts';
import type { Session } from '../session/types.ts';
import type { ContextOverflow } from './overflow.ts';
import { createProjectionMemory, type RecalledProjection } from './projection-memory.ts';
import { createHistoryTracker } from './unseen-messages.ts';

/** What `refit` takes: a provider's context-overflow error as `parseContextOverflow` reads it. */
export type OverflowReport = ContextOverflow;

/** Something the integration did instead of failing the request, or a retry it made. */
export type IntegrationEvent =
  | CompactionEvent
  | {
      /** Preparing the prompt failed; the caller's prompt was sent unchanged. */
      readonly type: 'prepare-error';
      readonly error: unknown;
    }
  | {
      /**
       * Stateless: the projection remembered for the start of this history could not be
       * continued with the new messages (e.g. a tool result whose call it summarized); the
       * whole history was compacted instead.
       */
      readonly type: 'projection-reset';
      readonly error: unknown;
    }
  | {
      /** Recording usage or the reply in the session failed; the response is returned anyway. */
      readonly type: 'record-error';
      readonly error: unknown;
    }
  | {
      /** The provider rejected the prompt as too long; chatfold compacts and retries once (RT-3). */
      readonly type: 'overflow-retry';
      readonly provider: string;
      readonly limit?: number;
      readonly actual?: number;
    };

/** Options every integration takes besides where the prompt comes from. */
export interface IntegrationCommonOptions {
  /** Target provider rules; default: derived from the model or client. */
  readonly provider?: Provider;
  /** Called for compactions (stateless mode), fallbacks and retries. Never throws into a request. */
  readonly onEvent?: (event: IntegrationEvent) => void;
}

/**
 * Stateless: every call is compacted with these `compact()` options (model: the call's, by
 * default), starting from what was sent for the longest remembered history the call's history
 * extends (the last 16 conversations, per integration instance). Like a session, each
 * remembered conversation holds automatic compaction back after a compaction that saved under
 * 5 % (10 messages) or threw (2, 4, 8 … 64 messages); a prompt that does not fit never waits.
 */
export type StatelessIntegrationOptions = Omit<CompactOptions, 'onEvent' | 'provider'> &
  IntegrationCommonOptions & { readonly session?: undefined };

/** Bound to a session: new messages of each call are appended, the session prepares the prompt. */
export interface SessionIntegrationOptions extends IntegrationCommonOptions {
  readonly session: Session;
}

/** How an integration keeps prompts inside the window. */
export type IntegrationOptions = StatelessIntegrationOptions | SessionIntegrationOptions;

/** One call as the integration sees it, in neutral form. */
export interface FitRequest {
  /** The caller's prompt (its whole history). */
  readonly messages: readonly Message[];
  readonly tools?: readonly ToolDefinition[];
  /** Model id of the call; stateless mode resolves the window from it unless `model` is set. */
  readonly model?: string;
  readonly provider?: Provider;
  readonly signal?: AbortSignal;
}

/** The integrations' view of stateless compaction or a session. */
export interface PromptFitter {
  /** The messages to send. Never throws: on any failure it reports and returns the prompt as is. */
  fit(request: FitRequest): Promise<readonly Message[]>;
  /** The messages to send after the provider reported an overflow (compacts harder; may throw). */
  refit(request: FitRequest, overflow: ContextOverflow): Promise<readonly Message[]>;
  /** Records provider-reported usage (and, in session mode, the reply). Never throws. */
  record(
    request: FitRequest,
    result: { readonly inputTokens?: number; readonly outputTokens?: number; readonly reply?: Message },
  ): Promise<void>;
  /** Reports an event, shielding the caller from a throwing listener. */
  emit(event: IntegrationEvent): void;
}

/**
 * Creates the fitter for `options`: a session when `options.session` is set, stateless
 * `compact()` otherwise. A stateless fitter remembers the window it learned from an overflow
 * error and uses it for later calls.
 */
export function createPromptFitter(options: IntegrationOptions): PromptFitter {
  const emit = (event: IntegrationEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // A failing listener must not fail the user's request.
    }
  };
  const fitting =
    options.session === undefined ? statelessFitting(options, emit) : sessionFitting(options, emit);
  return {
    emit,
    async fit(request) {
      try {
        return await fitting.prepare(request);
      } catch (error) {
        // Aborting is the caller's decision, not a fault to fall back from.
        if (request.signal?.aborted) throw error;
        emit({ type: 'prepare-error', error });
        return request.messages;
      }
    },
    refit: fitting.refit,
    record: fitting.record,
  };
}

interface Fitting {
  prepare(request: FitRequest): Promise<readonly Message[]>;
  refit: PromptFitter['refit'];
  record: PromptFitter['record'];
}

function providerOf(options: IntegrationCommonOptions, request: FitRequest): { provider?: Provider } {
  const provider = options.provider ?? request.provider;
  return provider === undefined ? {} : { provider };
}

function statelessFitting(
  options: StatelessIntegrationOptions,
  emit: (event: IntegrationEvent) => void,
): Fitting {
  const { provider: _provider, onEvent: _onEvent, session: _session, ...compactOptions } = options;
  // Bad configuration fails here, when the integration is built, not on every call.
  parseCompactOptions(compactOptions, 'chatfold integration');
  // HK-1 across calls: after too many cancels in a row the hook is overridden.
  let consecutiveCancels = 0;
  // Like a session's, learned from overflow errors and used for every later call (RT-3) to the
  // same model: one client or middleware may call models with different windows.
  const learnedWindows = new Map<string | undefined, number>();
  const modelOf = (request: FitRequest) => compactOptions.model ?? request.model;
  const optionsFor = (request: FitRequest): CompactOptions => {
    const model = modelOf(request);
    const window = Math.min(
      compactOptions.window ?? Number.POSITIVE_INFINITY,
      learnedWindows.get(model) ?? Number.POSITIVE_INFINITY,
    );
    return {
      ...compactOptions,
      ...(model === undefined ? {} : { model }),
      ...(Number.isFinite(window) ? { window } : {}),
      ...(request.tools === undefined || request.tools.length === 0 ? {} : { tools: request.tools }),
      ...providerOf(options, request),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
      onEvent: emit,
    };
  };
  /**
   * Plans `messages` under the conversation's loop guard (TRG-5, as a session does): while the
   * guard waits, an automatic compaction leaves the prompt as is; a compaction that ran is
   * recorded in the guard by the session's rule (`guardAfterPlan`). `count` is the
   * length of the caller's whole history, what a session counts as its messages.
   */
  const plan = async (
    messages: readonly Message[],
    compactOptions: CompactOptions,
    guard: LoopGuardState,
    count: number,
    onRunError: () => void,
  ): Promise<{ sent: readonly Message[]; guard: LoopGuardState }> => {
    // HK-1: after several cancels in a row the hook's cancel is no longer honoured.
    const {
      plan,
      messages: projection,
      ran,
    } = await planWithOptions(messages, compactOptions, {
      mayCancel: consecutiveCancels < DEFAULTS.maxConsecutiveCancels,
      autoCompactionWaits: !isCompactionAllowed(guard, count),
      onRunError,
    });
    consecutiveCancels = plan.cancelled ? consecutiveCancels + 1 : 0;
    return {
      sent: plan.compacted ? projection : messages,
      guard: ran ? guardAfterPlan(guard, plan, count) : guard,
    };
  };
  // Issue 19 §2: what was sent for a history, so a request that extends it starts from there
  // (the summary made once, reused until the next compaction) instead of the whole history.
  // TRG-5: each remembered conversation keeps its loop guard; one not remembered starts with
  // none waiting, as a new session does.
  const memory = createProjectionMemory(DEFAULTS.rememberedConversations);
  const run = async (request: FitRequest, compactOptions: CompactOptions) => {
    const scope = `${compactOptions.model ?? ''}\u0000${compactOptions.provider ?? ''}`;
    const count = request.messages.length;
    const remembered = memory.recall(scope, request.messages);
    let recalled: RecalledProjection | undefined = remembered;
    const guard = remembered?.guard ?? INITIAL_LOOP_GUARD;
    let outcome: { sent: readonly Message[]; guard: LoopGuardState } | undefined;
    // Set when the compaction run itself threw (a hook, the summarizer, the fit), not when the
    // messages could not be planned: a session backs off after such a failure
    // (`stateAfterFailure`), and so does this conversation, whatever it planned from.
    let runFailed = false;
    const onRunError = () => {
      runFailed = true;
    };
    try {
      if (recalled !== undefined) {
        try {
          outcome = await plan(recalled.messages, compactOptions, guard, count, onRunError);
        } catch (error) {
          if (runFailed || request.signal?.aborted) throw error;
          // E.g. a new tool result whose call the remembered projection summarized: the whole
          // history is planned as if nothing were remembered.
          emit({ type: 'projection-reset', error });
          recalled = undefined;
        }
      }
      outcome ??= await plan(request.messages, compactOptions, guard, count, onRunError);
    } catch (error) {
      if (runFailed && !request.signal?.aborted) {
        const failed = recordFailure(guard, count);
        if (remembered !== undefined) memory.rememberGuard(remembered, failed);
        else memory.remember(scope, request.messages, request.messages, undefined, failed);
      }
      throw error;
    }
    const { sent } = outcome;
    // A history never compacted and not waiting needs no memory: planning it again is planning
    // the projection.
    if (recalled !== undefined || sent !== request.messages || outcome.guard !== INITIAL_LOOP_GUARD) {
      memory.remember(scope, request.messages, sent, recalled, outcome.guard);
    }
    return sent;
  };
  return {
    async prepare(request) {
      return run(request, optionsFor(request));
    },
    async refit(request, overflow) {
      const current = optionsFor(request);
      const window = current.window ?? resolveCompactionModel(current).window;
      const next = windowAfterOverflow(window, overflow);
      const model = modelOf(request);
      learnedWindows.set(model, Math.min(learnedWindows.get(model) ?? Number.POSITIVE_INFINITY, next));
      return run(request, { ...current, mode: 'overflow', window: next });
    },
    async record() {
      // Stateless: usage and replies are not recorded (the next call's history carries the reply).
    },
  };
}

function sessionFitting(
  options: SessionIntegrationOptions,
  emit: (event: IntegrationEvent) => void,
): Fitting {
  const { session } = options;
  const tracker = createHistoryTracker(session);
  const prepareOptions = (request: FitRequest) => ({
    ...providerOf(options, request),
    ...(request.tools === undefined ? {} : { tools: request.tools }),
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  });
  return {
    async prepare(request) {
      await tracker.appendUnseen(request.messages);
      return (await session.prepare(prepareOptions(request))).messages;
    },
    async refit(request, overflow) {
      const reported = {
        ...(overflow.limit === undefined ? {} : { limit: overflow.limit }),
        ...(overflow.actual === undefined ? {} : { actual: overflow.actual }),
      };
      return (await session.prepare({ ...prepareOptions(request), overflow: reported })).messages;
    },
    async record(request, result) {
      try {
        const stored =
          result.reply === undefined ? undefined : await tracker.appendReply(request.messages, result.reply);
        if (result.inputTokens === undefined && result.outputTokens === undefined) return;
        await session.recordUsage({
          ...(result.inputTokens === undefined ? {} : { inputTokens: result.inputTokens }),
          ...(result.outputTokens === undefined ? {} : { outputTokens: result.outputTokens }),
          ...(stored === undefined ? {} : { messageId: stored.id }),
        });
      } catch (error) {
        emit({ type: 'record-error', error });
      }
    },
  };
}
