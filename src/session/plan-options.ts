import type { CompactionRun } from '../compaction/plan-compaction.ts';
import type { CompactionEvent, CompactionHooks, CompactionMode } from '../compaction/types.ts';
import { DEFAULTS } from '../defaults.ts';
import type { Provider, ToolDefinition } from '../messages/types.ts';
import type { ContextPolicy } from '../policy/context-policy.ts';
import type { StrategySpec } from '../strategies/registry.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { isSummarizerAvailable, type SessionCompactionState } from './compaction-state.ts';
import type { SessionConfig } from './session.ts';
import type { ChatfoldOptions } from './types.ts';

/** One compaction a session runs: the mode and this call's inputs. */
export interface CompactionRequest {
  readonly mode: CompactionMode;
  readonly window: number;
  readonly provider?: Provider;
  readonly tools?: readonly ToolDefinition[];
  readonly instructions?: string;
  readonly signal?: AbortSignal;
  /** False: no LLM call in this run (background compaction fits the prompt deterministically). */
  readonly summarizerAllowed?: boolean;
  /** Overrides the policy's pipeline for this run (regenerating a summary runs `summarize` alone). */
  readonly strategy?: StrategySpec;
  /** No hooks and no events (a preview). */
  readonly quiet?: boolean;
  /** This run's policy when it differs from the session's (a custom retention for one manual compaction). */
  readonly policy?: ContextPolicy;
}

/**
 * The `runCompaction` inputs of one session run (HK-1, RT-4, TRG-5 are the session's): the
 * policy, the summarizer unless the back-off holds it (automatic runs only — a manual request
 * always tries the model), whether a `beforeCompact` cancel is still honoured.
 */
export function runOptions(
  config: SessionConfig,
  request: CompactionRequest,
  session: {
    readonly counter: TokenCounter;
    readonly state: SessionCompactionState;
    readonly now: number;
    readonly hooks?: CompactionHooks | undefined;
    readonly onEvent?: ((event: CompactionEvent) => void) | undefined;
  },
): CompactionRun {
  const options = config.options;
  const instructions = [options.instructions, request.instructions].filter(Boolean).join('\n\n');
  const configured = request.summarizerAllowed === false ? undefined : options.summarizer;
  const isBackingOff =
    configured !== undefined &&
    request.mode !== 'manual' &&
    !isSummarizerAvailable(session.state, session.now);
  const summarizer = isBackingOff ? undefined : configured;
  return {
    counter: session.counter,
    policy: request.policy ?? config.policy,
    ...(request.provider === undefined ? {} : { provider: request.provider }),
    ...(request.tools === undefined ? {} : { tools: request.tools }),
    ...(summarizer === undefined ? {} : { summarizer }),
    ...(instructions === '' ? {} : { instructions }),
    ...(request.quiet === true || session.hooks === undefined ? {} : { hooks: session.hooks }),
    ...(request.quiet === true || session.onEvent === undefined ? {} : { onEvent: session.onEvent }),
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    ...((request.strategy ?? options.strategy) === undefined
      ? {}
      : { strategy: request.strategy ?? options.strategy }),
    ...(options.strategyOptions === undefined ? {} : { strategyOptions: options.strategyOptions }),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
    ...(options.protect === undefined ? {} : { protect: options.protect }),
    mayCancel: session.state.consecutiveCancels < DEFAULTS.maxConsecutiveCancels,
    ...(isBackingOff
      ? {
          summarizerUnavailable: `the summarizer failed ${session.state.summarizerFailures} time(s) in a row; automatic compaction tries it again after ${new Date(session.state.summarizerRetryAt).toISOString()}`,
        }
      : {}),
  };
}

/** Provider and tools from the call, else from the session configuration. */
export function pick(
  options: { readonly provider?: Provider; readonly tools?: readonly ToolDefinition[] },
  config: ChatfoldOptions,
): { provider?: Provider; tools?: readonly ToolDefinition[] } {
  const provider = options.provider ?? config.provider;
  const tools = options.tools ?? config.tools;
  return { ...(provider === undefined ? {} : { provider }), ...(tools === undefined ? {} : { tools }) };
}
