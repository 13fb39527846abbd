import { applyCompactionPlan } from '../compaction/apply-plan.ts';
import { compactionPolicy } from '../compaction/compaction-policy.ts';
import { runCompaction } from '../compaction/plan-compaction.ts';
import type { CompactionReport } from '../compaction/types.ts';
import { assertMessages } from '../messages/check-messages.ts';
import type { Message, Provider } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import type { ModelPricing } from '../models/types.ts';
import type { TriggerGroup } from '../policy/context-policy.ts';
import { decide } from '../policy/decide.ts';
import {
  INITIAL_LOOP_GUARD,
  isCompactionAllowed,
  recordCompaction,
  recordFailure,
} from '../policy/loop-guard.ts';
import type { PolicySpec } from '../policy/presets.ts';
import { isUserTurn, type ProtectOptions } from '../strategies/protect.ts';
import type { StrategyOptions, StrategySpec } from '../strategies/registry.ts';
import { extractLedger } from '../summarize/ledger.ts';
import type { Summarizer } from '../summarize/types.ts';
import { sharedPrefixTokens } from '../tokens/shared-prefix.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { projectionText } from './projection-text.ts';

/** Options of {@link replayConversation} (CLI-3, EV-2). */
export interface ReplayOptions {
  readonly counter: TokenCounter;
  readonly window: number;
  readonly maxOutputTokens?: number;
  readonly responseReserve?: number;
  readonly pricing?: ModelPricing;
  readonly provider?: Provider;
  readonly strategy?: StrategySpec;
  readonly strategyOptions?: StrategyOptions;
  /** The policy to replay under (a preset name, a policy, or a preset with overrides). Default `default`. */
  readonly policy?: PolicySpec;
  readonly triggers?: readonly TriggerGroup[];
  readonly target?: number;
  readonly floor?: number;
  readonly protect?: ProtectOptions;
  readonly summarizer?: Summarizer;
}

/** One model call of the replay. */
export interface ReplayTurn {
  /** 1-based number of the model call. */
  readonly turn: number;
  /** Prompt tokens without management (the whole history so far). */
  readonly unmanagedTokens: number;
  /** Prompt tokens chatfold sent. */
  readonly sentTokens: number;
  readonly compacted: boolean;
  /** Tokens of the sent prompt that are an unchanged prefix of the previous prompt (RT-5). */
  readonly cachedPrefixTokens: number;
}

/** The replay report (`chatfold replay --json`). */
export interface ReplayResult {
  readonly turns: number;
  readonly strategy: string;
  readonly window: number;
  readonly budget: number;
  readonly target: number;
  readonly tokenizer: string;
  readonly totals: {
    readonly unmanagedInputTokens: number;
    readonly managedInputTokens: number;
    readonly savedRatio: number;
    readonly peakTokens: number;
    readonly unmanagedPeakTokens: number;
    readonly compactions: number;
    readonly unmanagedOverflowTurns: number;
    readonly costUnmanagedUSD: number | null;
    readonly costUnmanagedCachedUSD: number | null;
    readonly costManagedUSD: number | null;
    readonly costManagedCachedUSD: number | null;
  };
  readonly invariants: { readonly allFit: boolean; readonly allValid: boolean; readonly goalKept: boolean };
  /** Compactions that threw (the turn went on with the projection as it was). */
  readonly failures: readonly string[];
  readonly identifierSurvival: { readonly paths: number | null; readonly commands: number | null };
  readonly compactions: readonly {
    readonly turn: number;
    readonly tokensBefore: number;
    readonly tokensAfter: number;
    readonly stages: CompactionReport['stages'];
    readonly warnings: readonly string[];
  }[];
  readonly perTurn: readonly ReplayTurn[];
}

const price = (tokens: number, perMillion: number | undefined): number =>
  (tokens * (perMillion ?? 0)) / 1_000_000;

/**
 * Replays a recorded conversation turn by turn (CLI-3, EV-2): every assistant message is a
 * model call whose prompt is everything before it. Unmanaged, the prompt is the whole
 * history; managed, chatfold keeps a projection, appends new messages to it and compacts it
 * when the session policy (triggers, hysteresis, loop guard) says so — exactly what a
 * session does between calls.
 */
export async function replayConversation(
  input: readonly Message[],
  options: ReplayOptions,
): Promise<ReplayResult> {
  const messages = assertMessages(input, 'replayConversation');
  const { counter } = options;
  const shorthands = {
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    ...(options.triggers === undefined ? {} : { triggers: options.triggers }),
    ...(options.floor === undefined ? {} : { floor: options.floor }),
    ...(options.target === undefined ? {} : { target: options.target }),
    ...(options.responseReserve === undefined ? {} : { responseReserve: options.responseReserve }),
  };
  const policy = compactionPolicy({
    ...shorthands,
    ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
    ...(options.strategyOptions === undefined ? {} : { strategyOptions: options.strategyOptions }),
    ...(options.protect === undefined ? {} : { protect: options.protect }),
  });
  const evaluate = (tokens: number, messages: number, messagesSinceCompaction: number) =>
    decide(
      {
        window: options.window,
        maxOutputTokens: options.maxOutputTokens,
        accuracy: counter.accuracy,
        toolTokens: 0,
        tokens,
        messages,
        messagesSinceCompaction,
      },
      policy,
    );
  const { budget } = evaluate(0, 0, 0);
  const overhead = counter.count([]).total;
  const goal = messages.find(isUserTurn);
  const pricing = options.pricing;

  const perTurn: ReplayTurn[] = [];
  const compactions: ReplayResult['compactions'][number][] = [];
  let projection: Message[] = [];
  let previousPrompt: readonly Message[] = [];
  let unmanagedPrevious = 0;
  let unmanaged = overhead;
  let next = 0;
  let sinceCompaction = 0;
  let guard = INITIAL_LOOP_GUARD;
  let allFit = true;
  let allValid = true;
  let goalKept = true;
  const survival = { paths: [0, 0], commands: [0, 0] };
  const cost = { unmanaged: 0, unmanagedCached: 0, managed: 0, managedCached: 0 };
  let target = 0;
  const failures: string[] = [];

  for (let index = 0; index < messages.length; index++) {
    if ((messages[index] as Message).role !== 'assistant') continue;
    for (; next < index; next++) {
      const message = messages[next] as Message;
      projection.push(message);
      unmanaged += counter.countMessage(message);
      sinceCompaction++;
    }
    let tokens = counter.count(projection).total;
    let compacted = false;
    const decision = evaluate(tokens, projection.length, sinceCompaction);
    if (decision.compact && (decision.mustFit || isCompactionAllowed(guard, next))) {
      try {
        // Decided once above; the run never decides again (the same path a session takes).
        const { plan } = await runCompaction(projection, decision, {
          counter,
          policy,
          ...(options.provider === undefined ? {} : { provider: options.provider }),
          ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
          ...(options.strategyOptions === undefined ? {} : { strategyOptions: options.strategyOptions }),
          ...(options.protect === undefined ? {} : { protect: options.protect }),
          ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
          mayCancel: true,
        });
        target = plan.target;
        if (plan.compacted) {
          const compactedProjection = applyCompactionPlan(projection, plan);
          measureSurvival(projection, compactedProjection, survival);
          projection = compactedProjection;
          compacted = true;
          compactions.push({
            turn: perTurn.length + 1,
            tokensBefore: plan.tokensBefore,
            tokensAfter: plan.tokensAfter,
            stages: plan.stages,
            warnings: plan.warnings,
          });
          guard = recordCompaction(guard, {
            messageCount: next,
            before: tokens,
            after: plan.tokensAfter,
          });
          tokens = plan.tokensAfter;
          sinceCompaction = 0;
        }
      } catch (error) {
        guard = recordFailure(guard, next);
        failures.push(
          `turn ${perTurn.length + 1}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    if (tokens > budget.messages) allFit = false;
    if (
      validate(projection, {
        ...(options.provider === undefined ? {} : { provider: options.provider }),
        allowPendingToolCalls: true,
      }).length > 0
    ) {
      allValid = false;
    }
    if (goal !== undefined && !projection.some((message) => message.id === goal.id)) goalKept = false;
    const cachedPrefixTokens = sharedPrefixTokens(previousPrompt, projection, counter);
    previousPrompt = [...projection];
    cost.unmanaged += price(unmanaged, pricing?.input);
    cost.unmanagedCached +=
      price(unmanagedPrevious, pricing?.cacheRead ?? pricing?.input) +
      price(unmanaged - unmanagedPrevious, pricing?.cacheWrite ?? pricing?.input);
    cost.managed += price(tokens, pricing?.input);
    cost.managedCached +=
      price(cachedPrefixTokens, pricing?.cacheRead ?? pricing?.input) +
      price(tokens - cachedPrefixTokens, pricing?.cacheWrite ?? pricing?.input);
    unmanagedPrevious = unmanaged;
    perTurn.push({
      turn: perTurn.length + 1,
      unmanagedTokens: unmanaged,
      sentTokens: tokens,
      compacted,
      cachedPrefixTokens,
    });
  }

  const unmanagedInputTokens = perTurn.reduce((sum, turn) => sum + turn.unmanagedTokens, 0);
  const managedInputTokens = perTurn.reduce((sum, turn) => sum + turn.sentTokens, 0);
  const hasPrices = pricing?.input !== undefined;
  const usd = (value: number): number | null => (hasPrices ? Math.round(value * 10_000) / 10_000 : null);
  const share = ([kept, total]: number[]): number | null =>
    (total as number) === 0 ? null : Math.round(((kept as number) / (total as number)) * 10_000) / 10_000;
  return {
    turns: perTurn.length,
    strategy: strategyName(options.strategy),
    window: options.window,
    budget: budget.messages,
    target: target || evaluate(0, 0, 0).target,
    tokenizer: counter.tokenizer,
    totals: {
      unmanagedInputTokens,
      managedInputTokens,
      savedRatio:
        unmanagedInputTokens === 0
          ? 0
          : Math.round((1 - managedInputTokens / unmanagedInputTokens) * 10_000) / 10_000,
      peakTokens: Math.max(0, ...perTurn.map((turn) => turn.sentTokens)),
      unmanagedPeakTokens: Math.max(0, ...perTurn.map((turn) => turn.unmanagedTokens)),
      compactions: compactions.length,
      unmanagedOverflowTurns: perTurn.filter(
        (turn) => turn.unmanagedTokens > budget.window - budget.responseReserve,
      ).length,
      costUnmanagedUSD: usd(cost.unmanaged),
      costUnmanagedCachedUSD: usd(cost.unmanagedCached),
      costManagedUSD: usd(cost.managed),
      costManagedCachedUSD: usd(cost.managedCached),
    },
    invariants: { allFit, allValid, goalKept },
    failures,
    identifierSurvival: { paths: share(survival.paths), commands: share(survival.commands) },
    compactions,
    perTurn,
  };
}

function strategyName(spec: StrategySpec | undefined): string {
  if (spec === undefined) return 'hybrid';
  if (typeof spec === 'string') return spec;
  if (Array.isArray(spec)) return spec.map((item) => (typeof item === 'string' ? item : item.name)).join('+');
  return (spec as { name: string }).name;
}

/**
 * Identifier survival (EV-2): of the file paths and commands in messages that left the
 * verbatim projection (dropped, summarized, masked, stubbed or clipped), the share that still
 * occurs somewhere in the new projection.
 */
function measureSurvival(
  before: readonly Message[],
  after: readonly Message[],
  survival: { paths: number[]; commands: number[] },
): void {
  const kept = new Set(after);
  const left = before.filter((message) => !kept.has(message));
  if (left.length === 0) return;
  const ledger = extractLedger(left);
  const text = projectionText(after);
  const tally = (values: readonly string[], into: number[]): void => {
    for (const value of new Set(values)) {
      into[1] = (into[1] as number) + 1;
      if (text.includes(value)) into[0] = (into[0] as number) + 1;
    }
  };
  tally([...ledger.filesRead, ...ledger.filesModified], survival.paths);
  tally(ledger.commands, survival.commands);
}
