import { formatCount } from '../messages/format-count.ts';
import type { CountAccuracy } from '../tokens/types.ts';
import { type Budget, computeBudget } from './budget.ts';
import type { ContextPolicy, TriggerGroup } from './context-policy.ts';

/** How a compaction was asked for: by a trigger, by a person, or by a prompt that does not fit. */
export type CompactionMode = 'auto' | 'manual' | 'overflow';

/** What {@link decide} measures: the model, the counts, and how many messages are new. */
export interface ContextMeasure {
  readonly window: number;
  /** The model's max output tokens (for `responseReserve: 'max-output'`). */
  readonly maxOutputTokens?: number | undefined;
  readonly accuracy: CountAccuracy;
  /** Tokens of the tool definitions sent with every request (outside the message budget). */
  readonly toolTokens: number;
  /** Tokens of the messages. */
  readonly tokens: number;
  /**
   * `tokens` counts the newest messages exactly and estimates older ones: only when the
   * exact part alone is far above every threshold, so the decision is the exact one.
   */
  readonly tokensEstimated?: boolean | undefined;
  /** Messages in the prompt. */
  readonly messages: number;
  /** Messages added since the last compaction (all of them when there was none). */
  readonly messagesSinceCompaction: number;
}

/** One trigger condition and where the prompt stands against it (for `/context` and gauges). */
export interface TriggerCondition {
  /** Index of the AND-group in `policy.triggers`. */
  readonly group: number;
  readonly kind: 'fraction' | 'tokens' | 'messages';
  /** The current value (prompt tokens, or messages since the last compaction). */
  readonly value: number;
  /** The value at which it holds (tokens for `fraction`: the share of the window in tokens). */
  readonly threshold: number;
  /** value / threshold × 100, one decimal. */
  readonly percent: number;
  readonly holds: boolean;
}

/** The one decision (Engine 2): whether to compact now, in which mode, and to what size. */
export interface CompactionDecision {
  readonly compact: boolean;
  /** The mode a compaction runs in: `overflow` when the provider reported one, else as requested. */
  readonly mode: CompactionMode;
  /**
   * The prompt does not fit the budget (window − reserve − margin − tools) or the provider said
   * so: the compaction cannot be cancelled, waits for no back-off, and ignores the floor.
   */
  readonly mustFit: boolean;
  /** Why, in words, e.g. `prompt 3,900 ≥ 95 % of the window 4,096`. */
  readonly reason: string;
  /** The name of the policy that decided. */
  readonly policyName: string;
  readonly budget: Budget;
  /** The prompt (messages + tool definitions): what the gauge shows against the window. */
  readonly promptTokens: number;
  /** True when `promptTokens` estimates the oldest messages (the history is far above every threshold). */
  readonly tokensEstimated?: true;
  /** Tokens the messages may use after the compaction (the policy's target, within the budget). */
  readonly target: number;
  /** Each trigger condition, for display. */
  readonly conditions: readonly TriggerCondition[];
  /** True when a trigger holds but the floor held automatic compaction back. */
  readonly heldByFloor: boolean;
  /**
   * True when the summary must be made even if the prompt is already below the target: a
   * manual request, or a trigger that counts messages rather than tokens.
   */
  readonly summarizeBelowTarget: boolean;
  /** What a manual compaction covers (the policy's `manual.scope`); `retention` otherwise. */
  readonly scope: 'all' | 'retention';
}

const format = (n: number): string => formatCount(Math.round(n));

/** The budget a policy leaves for messages (TRG-1): window − reserve − margin − tools. */
export function policyBudget(
  measure: Pick<ContextMeasure, 'window' | 'maxOutputTokens' | 'accuracy' | 'toolTokens'>,
  policy: ContextPolicy,
): Budget {
  return computeBudget({
    window: measure.window,
    ...(measure.maxOutputTokens === undefined ? {} : { maxOutputTokens: measure.maxOutputTokens }),
    ...(policy.responseReserve === 'max-output' ? {} : { responseReserve: policy.responseReserve }),
    ...(policy.safetyMargin === 'by-accuracy' ? {} : { safetyMargin: policy.safetyMargin }),
    accuracy: measure.accuracy,
    toolTokens: measure.toolTokens,
  });
}

/** The policy's target for the messages, in tokens: the smallest set target, never above the budget. */
export function policyTarget(policy: ContextPolicy, budget: Budget): number {
  const limits = [budget.messages];
  if (policy.target.fraction !== undefined) {
    limits.push(Math.floor(policy.target.fraction * budget.window) - budget.toolTokens);
  }
  if (policy.target.tokens !== undefined) limits.push(policy.target.tokens - budget.toolTokens);
  return Math.max(0, Math.min(...limits));
}

function conditionsOf(
  group: TriggerGroup,
  index: number,
  prompt: number,
  measure: ContextMeasure,
): TriggerCondition[] {
  const out: TriggerCondition[] = [];
  const add = (kind: TriggerCondition['kind'], value: number, threshold: number): void => {
    out.push({
      group: index,
      kind,
      value,
      threshold,
      percent: threshold > 0 ? Math.round((value / threshold) * 1000) / 10 : 0,
      holds: value >= threshold,
    });
  };
  if (group.fraction !== undefined) add('fraction', prompt, Math.ceil(group.fraction * measure.window));
  if (group.tokens !== undefined) add('tokens', prompt, group.tokens);
  if (group.messages !== undefined) add('messages', measure.messagesSinceCompaction, group.messages);
  return out;
}

/** A token count in a reason: `~` marks one that estimates the oldest messages. */
const formatTokens = (n: number, estimated: boolean | undefined): string =>
  `${estimated === true ? '~' : ''}${format(n)}`;

function describe(
  condition: TriggerCondition,
  policy: ContextPolicy,
  window: number,
  estimated: boolean | undefined,
): string {
  const group = policy.triggers[condition.group] as TriggerGroup;
  switch (condition.kind) {
    case 'fraction':
      return `prompt ${formatTokens(condition.value, estimated)} ≥ ${Math.round((group.fraction ?? 0) * 100)} % of the window ${format(window)}`;
    case 'tokens':
      return `prompt ${formatTokens(condition.value, estimated)} ≥ ${format(condition.threshold)} tokens`;
    default:
      return `${format(condition.value)} messages since the last compaction ≥ ${format(condition.threshold)}`;
  }
}

/**
 * Decides whether to compact (TRG-1..4), pure and synchronous: the one place every product
 * decides. A prompt over the budget always compacts (`overflow`, whatever the triggers);
 * `manual` always compacts; `auto` compacts when any trigger group holds in full and the
 * prompt is not below the floor. Nothing else fires: no hidden trigger, floor or cap.
 *
 * @param measure The counts (messages, tools, messages since the last compaction) and the model.
 * @param policy A complete policy (`resolvePolicy`).
 * @param requested The mode asked for (default `auto`).
 */
export function decide(
  measure: ContextMeasure,
  policy: ContextPolicy,
  requested: CompactionMode = 'auto',
): CompactionDecision {
  const budget = policyBudget(measure, policy);
  const prompt = measure.tokens + measure.toolTokens;
  const conditions = policy.triggers.flatMap((group, index) => conditionsOf(group, index, prompt, measure));
  const firing = policy.triggers.findIndex((_, index) =>
    conditions.filter((condition) => condition.group === index).every((condition) => condition.holds),
  );
  const target = policyTarget(policy, budget);
  const countsMessages =
    firing >= 0 &&
    conditions.some((condition) => condition.group === firing && condition.kind === 'messages');
  const estimated = measure.tokensEstimated;
  const base = {
    budget,
    promptTokens: prompt,
    ...(estimated === true ? { tokensEstimated: true as const } : {}),
    target,
    conditions,
    policyName: policy.name,
  };
  if (requested === 'overflow') {
    return {
      ...base,
      compact: true,
      mode: 'overflow',
      mustFit: true,
      reason: 'the provider reported a context overflow',
      heldByFloor: false,
      summarizeBelowTarget: false,
      scope: 'retention',
    };
  }
  if (measure.tokens > budget.messages) {
    // The reserve and margin are guaranteed apart from the triggers: a prompt that would eat
    // into them is compacted now, whatever the triggers, the floor or a hook say.
    return {
      ...base,
      compact: true,
      mode: requested,
      mustFit: true,
      reason: `the prompt ${formatTokens(prompt, estimated)} would eat into the answer's reserve: messages ${formatTokens(measure.tokens, estimated)} > budget ${format(budget.messages)} (window ${format(budget.window)} − reserve ${format(budget.responseReserve)} − margin ${format(budget.safetyMargin)} − tools ${format(budget.toolTokens)})`,
      heldByFloor: false,
      summarizeBelowTarget: requested === 'manual',
      scope: requested === 'manual' ? policy.manual.scope : 'retention',
    };
  }
  if (requested === 'manual') {
    return {
      ...base,
      compact: true,
      mode: 'manual',
      mustFit: false,
      reason: 'manual compaction',
      heldByFloor: false,
      summarizeBelowTarget: true,
      scope: policy.manual.scope,
    };
  }
  const idle = (reason: string, heldByFloor = false): CompactionDecision => ({
    ...base,
    compact: false,
    mode: 'auto',
    mustFit: false,
    reason,
    heldByFloor,
    summarizeBelowTarget: false,
    scope: 'retention',
  });
  if (firing < 0) {
    return idle(policy.triggers.length === 0 ? 'no automatic triggers in this policy' : 'no trigger fired');
  }
  const fired = conditions
    .filter((condition) => condition.group === firing)
    .map((condition) => describe(condition, policy, measure.window, estimated))
    .join(' and ');
  if (prompt < policy.floor.tokens) {
    return idle(
      `${fired}, but the prompt ${formatTokens(prompt, estimated)} is below the floor of ${format(policy.floor.tokens)} tokens`,
      true,
    );
  }
  if (measure.messages < policy.floor.messages) {
    return idle(
      `${fired}, but ${format(measure.messages)} messages are below the floor of ${format(policy.floor.messages)}`,
      true,
    );
  }
  return {
    ...base,
    compact: true,
    mode: 'auto',
    mustFit: false,
    reason: fired,
    heldByFloor: false,
    // A trigger that counts messages, or one that fires at or below the target, means "summarize
    // now" — otherwise the trigger would change nothing.
    summarizeBelowTarget: countsMessages || measure.tokens <= target,
    scope: 'retention',
  };
}

/**
 * The decision a background plan is made for (`precompact`): the automatic compaction the
 * trigger will ask for, planned before it fires. Messages that arrive until the plan is applied
 * stay on top of it, so the tail it keeps is the target less the growth expected until then:
 * the earliest trigger group that counts tokens, or the budget when none does (the prompt is
 * fitted there, and a ready plan is what fits it). Applied there, the prompt lands on the target.
 * A trigger that already holds, or one that counts messages, plans exactly what `decide` would
 * (growth none, or not measurable in tokens).
 */
export function decideAhead(measure: ContextMeasure, policy: ContextPolicy): CompactionDecision {
  const now = decide(measure, policy, 'auto');
  if (now.compact) return now;
  const { budget, target } = now;
  // The prompt (messages + tools) at which each group holds, when tokens alone decide it.
  // A prompt one token over the budget is fitted (with a ready plan, by applying it).
  let appliesAt = budget.messages + 1 + budget.toolTokens;
  let byTokens = false; // a group that counts tokens holds before the budget is reached
  let countsMessages = false; // that group also counts messages
  let onlyMessages = false; // a group holds on a count of messages alone (when is not in tokens)
  policy.triggers.forEach((_, index) => {
    const group = now.conditions.filter((condition) => condition.group === index);
    const tokens = group.filter((condition) => condition.kind !== 'messages');
    if (tokens.length === 0) {
      onlyMessages ||= group.length > 0;
      return;
    }
    const level = Math.max(policy.floor.tokens, ...tokens.map((condition) => condition.threshold));
    if (level < appliesAt) {
      appliesAt = level;
      byTokens = true;
      countsMessages = group.length > tokens.length;
    }
  });
  const growth = Math.max(0, appliesAt - now.promptTokens);
  const tail = Math.max(0, target - growth);
  return {
    ...now,
    compact: true,
    target: tail,
    reason: `planned ahead of the trigger: the prompt ${formatTokens(now.promptTokens, measure.tokensEstimated)} is expected to reach ${format(appliesAt)} before this plan is applied, so it plans the messages at ${format(tail)} tokens: the target ${format(target)} less that growth`,
    heldByFloor: false,
    // As `decide` will say when it fires: a trigger that counts messages means "summarize now".
    summarizeBelowTarget:
      countsMessages || (onlyMessages && !byTokens) || appliesAt - budget.toolTokens <= target,
  };
}
