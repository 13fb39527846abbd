import { DEFAULTS } from '../defaults.ts';
import type { Message } from '../messages/types.ts';
import type { CompactionDecision } from '../policy/decide.ts';
import { isUserTurn, protectedIds } from '../strategies/protect.ts';
import { createStrategyRegistry, type StrategyOptions } from '../strategies/registry.ts';
import { groupUnits } from '../strategies/tool-groups.ts';
import type { Strategy, StrategyContext } from '../strategies/types.ts';
import { compactionCache } from './compaction-cache.ts';
import type { CompactionRun } from './plan-compaction.ts';
import type { BeforeCompactResult } from './types.ts';

/** What a compaction runs, prepared from the decision: the stages and their shared context. */
export interface CompactionPreparation {
  readonly stages: readonly Strategy[];
  /** The strategy context without the run's callbacks and signal (those belong to the async step). */
  readonly context: Omit<StrategyContext, 'signal' | 'onProgress' | 'onFallback'>;
}

/**
 * The second step of a compaction (Engine 2: `decide` → `prepareCompaction` → the pipeline →
 * apply), synchronous and pure: from the decision and the policy, the protected messages (system
 * prompt, goal when the policy keeps it, latest turn, recent tail, pinned, exempt tools), the
 * target and budget, whether the retention stages are forced, what a manual run covers, and
 * the pipeline's stages with the policy's settings (retention, placement, files, marker,
 * failure behaviour for this mode).
 */
export function prepareCompaction(
  messages: readonly Message[],
  decision: CompactionDecision,
  run: CompactionRun,
  hook?: BeforeCompactResult,
): CompactionPreparation {
  const { counter, policy } = run;
  const { budget, target, scope } = decision;
  const lastIsUser = messages.length > 0 && isUserTurn(messages.at(-1) as Message);
  return {
    stages: stagesOf(run, hook, decision.mode, budget.window),
    context: {
      counter,
      target,
      budget: budget.messages,
      reservedTokens: budget.toolTokens,
      protectedIds: protectedIds(
        messages,
        groupUnits(messages),
        {
          ...run.protect,
          keepRecent: policy.protect.recentMessages,
          keepFirstUser: policy.protect.firstUserMessage,
          // A manual "summarize everything" between turns covers the last request too; a pending one stays.
          keepLatestTurn: scope !== 'all' || lastIsUser,
        },
        {
          maxTokens: Math.floor(target * policy.protect.maxShareOfTarget),
          tokensOf: (message) => counter.countMessage(message),
          maxToolTokens: Math.floor(
            budget.messages * (run.strategyOptions?.clip?.maxShare ?? DEFAULTS.clipShare),
          ),
        },
      ),
      force: decision.summarizeBelowTarget,
      scope,
      cache: run.cache ?? compactionCache({ counter }),
      ...(run.provider === undefined ? {} : { provider: run.provider }),
    },
  };
}

/** The stages of a run: the caller's strategy, else the policy's pipeline, with the policy's settings. */
function stagesOf(
  run: CompactionRun,
  hook: BeforeCompactResult | undefined,
  mode: CompactionDecision['mode'],
  window: number,
): Strategy[] {
  const { policy } = run;
  const instructions = [run.instructions, hook?.instructions].filter(Boolean).join('\n\n');
  const user = run.strategyOptions ?? {};
  const retention = {
    ...(policy.retention.tokens === undefined ? {} : { retentionTokens: policy.retention.tokens }),
    ...(policy.retention.messages === undefined ? {} : { retentionMessages: policy.retention.messages }),
  };
  const marker = policy.omissionMarker === undefined ? {} : { marker: policy.omissionMarker };
  const onFailure =
    mode === 'manual' ? policy.onFailure.manual : mode === 'auto' ? policy.onFailure.auto : 'extractive';
  const options: StrategyOptions = {
    ...user,
    summarize: {
      ...retention,
      keepGoal: policy.protect.firstUserMessage,
      placement: policy.summary.placement,
      recentFiles: policy.protect.recentFiles.count,
      recentFilesShare: policy.protect.recentFiles.share,
      ...(policy.summary.maxTokens === undefined ? {} : { maxSummaryTokens: policy.summary.maxTokens }),
      onFailure,
      // The summarizer's own window bounds its prompt; unless told otherwise, it is this model's.
      summarizerWindow: window,
      ...user.summarize,
      ...(run.summarizer === undefined ? {} : { summarizer: run.summarizer }),
      ...(instructions === '' ? {} : { instructions }),
      ...(hook?.customSummary === undefined ? {} : { customSummary: hook.customSummary }),
    },
    truncate: { ...retention, ...marker, ...user.truncate },
    importance: { ...retention, ...marker, ...user.importance },
  };
  return (run.registry ?? createStrategyRegistry()).resolve(run.strategy ?? policy.pipeline, options);
}
