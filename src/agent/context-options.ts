import type { ChatfoldOptions } from '../session/types.ts';
import { DEFAULT_IDEMPOTENT_TOOLS } from '../strategies/supersede/tool-mappings.ts';
import type { AgentContextOptions } from './types.ts';
import { WORKSPACE_IDEMPOTENT_TOOLS, WORKSPACE_TOOL_MAPPINGS } from './workspace/tool-mappings.ts';

/**
 * Defaults of an agent's context settings (AG-1): seed 004's N = 30 messages, K = 128,000
 * tokens and 6 recent messages; the spec's 80 % threshold, 0.5 target, 1,000 retained tokens.
 */
export const AGENT_CONTEXT_DEFAULTS = Object.freeze({
  autoSummarize: true,
  maxMessagesBeforeSummary: 30,
  maxTokensBeforeSummary: 128_000,
  minRecentMessages: 6,
  threshold: 0.8,
  target: 0.5,
  retentionTokens: 1000,
});

/** The chatfold options an agent's context settings and history strategy stand for. */
export type AgentCompactionOptions = Pick<
  ChatfoldOptions,
  'triggers' | 'target' | 'responseReserve' | 'strategy' | 'strategyOptions' | 'protect'
>;

/**
 * Maps seed 004's context settings onto chatfold's options (AG-1, TRG-2): the triggers fire on
 * `{ fraction: threshold }` OR `{ messages: N }` OR `{ tokens: K }`; with `autoSummarize: false`
 * only a prompt that no longer fits compacts (`{ fraction: 1 }`; overflow is never optional).
 * `minRecentMessages` keeps that many messages verbatim (protected tail and summary retention),
 * `retentionTokens` the newest tokens. The workspace tools' supersede mappings ride along (STR-1).
 *
 * @param context The agent's context settings; every field defaults to {@link AGENT_CONTEXT_DEFAULTS}.
 * @param history Strategy or pipeline name (seed 000). Default `'hybrid'`.
 */
export function contextToChatfoldOptions(
  context: AgentContextOptions = {},
  history = 'hybrid',
): AgentCompactionOptions {
  const settings = { ...AGENT_CONTEXT_DEFAULTS, ...definedOnly(context) };
  return {
    triggers: settings.autoSummarize
      ? [
          { fraction: settings.threshold },
          { messages: settings.maxMessagesBeforeSummary },
          { tokens: settings.maxTokensBeforeSummary },
        ]
      : [{ fraction: 1 }],
    target: settings.target,
    ...(context.responseReserve === undefined ? {} : { responseReserve: context.responseReserve }),
    strategy: history,
    protect: { keepRecent: settings.minRecentMessages },
    strategyOptions: {
      summarize: { retentionTokens: settings.retentionTokens, retentionMessages: settings.minRecentMessages },
      supersede: {
        tools: WORKSPACE_TOOL_MAPPINGS,
        idempotentTools: [...DEFAULT_IDEMPOTENT_TOOLS, ...WORKSPACE_IDEMPOTENT_TOOLS],
      },
    },
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
