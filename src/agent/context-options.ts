import type { ContextPolicy, TriggerGroup } from '../policy/context-policy.ts';
import { type PolicyPresetName, type PolicySpec, resolvePolicy } from '../policy/presets.ts';
import type { ChatfoldOptions } from '../session/types.ts';
import { DEFAULT_IDEMPOTENT_TOOLS } from '../strategies/supersede/tool-mappings.ts';
import type { AgentContextOptions } from './types.ts';
import { WORKSPACE_IDEMPOTENT_TOOLS, WORKSPACE_TOOL_MAPPINGS } from './workspace/tool-mappings.ts';

/** The chatfold options an agent's context settings and history strategy stand for. */
export type AgentCompactionOptions = Pick<ChatfoldOptions, 'policy' | 'strategyOptions'> & {
  readonly policy: ContextPolicy;
};

/** A rolling summary needs this many messages beyond the kept ones to be worth making (seed 004). */
const ROLLING_FLOOR_EXTRA = 4;

/** `history:` names that select a whole policy (seed 000), not just a pipeline. */
const HISTORY_POLICIES: Readonly<Record<string, PolicyPresetName>> = {
  summarize: 'agent-summarize',
  truncate: 'agent-truncate',
};

/**
 * Maps an agent's context settings onto one policy (AG-1, TRG-2). The base is
 * `context.policy`; else the policy `history` names (`summarize` → `agent-summarize`,
 * `truncate` → `agent-truncate`); else `rolling-summary` when N or K is set; else the
 * library default. Then each key that is set overrides its field — a key left out adds
 * nothing (no trigger the user did not set or the policy does not show):
 * `maxMessagesBeforeSummary` / `maxTokensBeforeSummary` → the `messages` / `tokens` triggers,
 * `threshold` → the `fraction` trigger, `autoSummarize: false` → no triggers (a prompt that
 * does not fit still compacts), `minRecentMessages` → retained and protected messages,
 * `retentionTokens`, `target`, `responseReserve` → their fields. The workspace tools'
 * supersede mappings ride along (STR-1).
 *
 * @param context The agent's context settings.
 * @param history Strategy or pipeline name (seed 000).
 */
export function contextToChatfoldOptions(
  context: AgentContextOptions = {},
  history?: string,
): AgentCompactionOptions {
  const hasRolling =
    context.maxMessagesBeforeSummary !== undefined || context.maxTokensBeforeSummary !== undefined;
  const historyPolicy = history === undefined ? undefined : HISTORY_POLICIES[history];
  const spec: PolicySpec = context.policy ?? historyPolicy ?? (hasRolling ? 'rolling-summary' : 'default');
  const base = resolvePolicy(spec, 'context.policy');
  let triggers: TriggerGroup[] = base.triggers.map((group) => ({ ...group }));
  if (hasRolling) {
    const n = context.maxMessagesBeforeSummary;
    const k = context.maxTokensBeforeSummary;
    triggers = triggers.map((group) => ({
      ...group,
      ...(n !== undefined && group.messages !== undefined ? { messages: n } : {}),
      ...(k !== undefined && group.tokens !== undefined ? { tokens: k } : {}),
    }));
    if (n !== undefined && !triggers.some((group) => group.messages !== undefined))
      triggers.push({ messages: n });
    if (k !== undefined && !triggers.some((group) => group.tokens !== undefined))
      triggers.push({ tokens: k });
  }
  if (context.threshold !== undefined) {
    triggers = [...triggers.filter((group) => group.fraction === undefined), { fraction: context.threshold }];
  }
  if (context.autoSummarize === false) triggers = [];
  const changed =
    hasRolling ||
    context.threshold !== undefined ||
    context.autoSummarize === false ||
    context.minRecentMessages !== undefined ||
    context.retentionTokens !== undefined ||
    context.target !== undefined ||
    context.responseReserve !== undefined ||
    (history !== undefined && historyPolicy === undefined);
  const policy: ContextPolicy = !changed
    ? base
    : {
        ...base,
        name: base.name.endsWith('(customized)') ? base.name : `${base.name} (customized)`,
        triggers,
        ...(context.target === undefined ? {} : { target: { fraction: context.target } }),
        ...(context.responseReserve === undefined ? {} : { responseReserve: context.responseReserve }),
        retention: {
          ...base.retention,
          ...(context.retentionTokens === undefined ? {} : { tokens: context.retentionTokens }),
          ...(context.minRecentMessages === undefined ? {} : { messages: context.minRecentMessages }),
        },
        protect: {
          ...base.protect,
          ...(context.minRecentMessages === undefined ? {} : { recentMessages: context.minRecentMessages }),
        },
        // The rolling summary's floor is "minimum recent messages + 4" (nothing to summarize below it).
        ...(context.minRecentMessages !== undefined && base.floor.messages > 0
          ? { floor: { ...base.floor, messages: context.minRecentMessages + ROLLING_FLOOR_EXTRA } }
          : {}),
        ...(history !== undefined && historyPolicy === undefined ? { pipeline: [history] } : {}),
      };
  return {
    policy,
    strategyOptions: {
      supersede: {
        tools: WORKSPACE_TOOL_MAPPINGS,
        idempotentTools: [...DEFAULT_IDEMPOTENT_TOOLS, ...WORKSPACE_IDEMPOTENT_TOOLS],
      },
    },
  };
}
