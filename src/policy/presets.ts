import { ChatfoldError } from '../errors/chatfold-error.ts';
import {
  type ContextPolicy,
  type ContextPolicyInput,
  mergePolicy,
  type PolicyOverrides,
  parsePolicy,
} from './context-policy.ts';

/**
 * The named policies. Each reproduces one well-known design with that design's own numbers;
 * docs/policies.md shows what each does. The comments name the design document a preset
 * reproduces (internal references; users see the behaviour, not the documents).
 */
/**
 * The local-model SDK's numbers (seed 003): `max_context_tokens` 32,000 as the window, compact at
 * `target_tokens` 28,000 and bring the prompt under it, `keep_recent` 10, the system prompt always
 * kept; one stage decides how (`truncate`, `importance` or `summarize`).
 */
function localModel(name: string, stage: 'truncate' | 'importance' | 'summarize') {
  return {
    name,
    triggers: [{ tokens: 28_000 }],
    target: { tokens: 28_000 },
    responseReserve: 0,
    safetyMargin: 0,
    retention: { messages: 10 },
    protect: { firstUserMessage: false, recentMessages: 10, maxShareOfTarget: 1, recentFiles: { count: 0 } },
    summary: { placement: 'system' },
    pipeline: [stage],
    manual: { scope: 'retention' },
    onFailure: { auto: 'extractive', manual: 'error' },
  } as const satisfies ContextPolicyInput;
}

const PRESET_INPUTS = {
  /**
   * The library default, what users of Claude Code or Codex expect: compact when the prompt
   * reaches 65 % of the window (before the answer's reserve is reached on most models), down
   * to 45 % of it (both chosen on the recorded sessions: bench/RESULTS.md, "Default policy"), keeping as many recent messages verbatim
   * as the target allows; cheap stages first (clip, supersede, mask), then a summary, then
   * truncation. No message-count trigger, no floor beyond a tiny prompt.
   */
  default: {
    name: 'default',
    triggers: [{ fraction: 0.65 }],
    floor: { tokens: 2000 },
    target: { fraction: 0.45 },
    responseReserve: 'max-output',
    safetyMargin: 'by-accuracy',
    retention: {},
    protect: {
      firstUserMessage: true,
      recentMessages: 6,
      maxShareOfTarget: 0.5,
      recentFiles: { count: 10, share: 0.2 },
    },
    summary: { placement: 'provider' },
    pipeline: ['clip', 'supersede', 'mask', 'summarize', 'truncate'],
    manual: { scope: 'retention' },
    onFailure: { auto: 'extractive', manual: 'error' },
  },
  /**
   * A chat app (seed 001): compact at 95 % of the window with the model's max output reserved
   * and a 5 % margin (FR-1.2.*); keep exactly the newest messages within 1,000 tokens
   * (FR-1.3.*); context = summary as the first system message + recent messages + input
   * (FR-1.5.1, no goal pinning); a manual summary covers all messages (FR-2.2.1); nothing
   * automatic below 2,000 tokens (FR-5.4.1); an automatic failure sends the full history and
   * retries with exponential back-off (FR-5.1.1), a manual one is an error with retry (FR-5.1.2).
   */
  'chat-app': {
    name: 'chat-app',
    triggers: [{ fraction: 0.95 }],
    floor: { tokens: 2000 },
    target: {},
    responseReserve: 'max-output',
    safetyMargin: 0.05,
    retention: { tokens: 1000 },
    protect: { firstUserMessage: false, recentMessages: 0, recentFiles: { count: 0 } },
    summary: { placement: 'system' },
    pipeline: ['summarize'],
    manual: { scope: 'all' },
    onFailure: { auto: 'skip', manual: 'error' },
  },
  /**
   * An agent that summarizes its history (seed 000 `history: summarize`): at 80 % of the
   * model's max input tokens, the history becomes the goal (first user message) + a summary +
   * the latest content of the last 10 files read or modified. The window is max input tokens,
   * so nothing more is reserved.
   */
  'agent-summarize': {
    name: 'agent-summarize',
    triggers: [{ fraction: 0.8 }],
    target: { fraction: 0.7 },
    responseReserve: 0,
    safetyMargin: 0,
    retention: { messages: 0 },
    protect: { firstUserMessage: true, recentMessages: 0, recentFiles: { count: 10, share: 0.5 } },
    summary: { placement: 'user' },
    pipeline: ['summarize'],
    manual: { scope: 'retention' },
    onFailure: { auto: 'extractive', manual: 'error' },
  },
  /**
   * An agent that truncates its history (seed 000 `history: truncate`): at 80 % of max input
   * tokens, keep the first user message and the newest messages up to 70 % of it, with a
   * "[N earlier messages truncated to fit context window]" marker where the rest was.
   */
  'agent-truncate': {
    name: 'agent-truncate',
    triggers: [{ fraction: 0.8 }],
    target: { fraction: 0.7 },
    responseReserve: 0,
    safetyMargin: 0,
    retention: {},
    protect: { firstUserMessage: true, recentMessages: 0, recentFiles: { count: 0 } },
    summary: { placement: 'user' },
    pipeline: ['truncate'],
    omissionMarker: '[{count} earlier messages truncated to fit context window]',
    manual: { scope: 'retention' },
    onFailure: { auto: 'extractive', manual: 'error' },
  },
  /**
   * A rolling summary (seed 004): summarize after N = 30 messages since the last summary OR at
   * K = 128,000 tokens, whichever comes first; keep the newest 6 messages verbatim; reserve
   * 4,096 tokens for the answer; the summary is a system message and is persisted; nothing to
   * summarize below 10 messages (6 recent + 4).
   */
  'rolling-summary': {
    name: 'rolling-summary',
    triggers: [{ messages: 30 }, { tokens: 128_000 }],
    floor: { messages: 10 },
    target: {},
    responseReserve: 4096,
    safetyMargin: 'by-accuracy',
    retention: { messages: 6 },
    protect: { firstUserMessage: false, recentMessages: 6, recentFiles: { count: 0 } },
    summary: { placement: 'system' },
    pipeline: ['summarize'],
    manual: { scope: 'retention' },
    onFailure: { auto: 'extractive', manual: 'error' },
  },
  /**
   * A local-model SDK, truncation (seed 003): window `max_context_tokens` 32,000, compact at
   * `target_tokens` 28,000; keep the system prompt and the last `keep_recent` = 10 messages;
   * tool calls and their results are never split.
   */
  'local-truncation': localModel('local-truncation', 'truncate'),
  /**
   * A local-model SDK, importance (seed 003): as `local-truncation`, but the lowest-scored
   * messages outside the recent 10 go first (user 1.0, tool use 1.0, long assistant 0.6,
   * acknowledgements lowest), until the prompt is below `target_tokens`.
   */
  'local-importance': localModel('local-importance', 'importance'),
  /**
   * A local-model SDK, summarization (seed 003): older messages become one summary (system
   * message, at most 500 tokens), the last 10 stay verbatim.
   */
  'local-summarization': {
    ...localModel('local-summarization', 'summarize'),
    summary: { placement: 'system', maxTokens: 500 },
  },
} as const satisfies Record<string, ContextPolicyInput>;

/** The name of a built-in policy. */
export type PolicyPresetName = keyof typeof PRESET_INPUTS;

/** The names of the built-in policies, default first. */
export const POLICY_PRESET_NAMES = Object.freeze(Object.keys(PRESET_INPUTS)) as readonly PolicyPresetName[];

/** Every built-in policy, complete (defaults filled in), read-only. */
export const POLICIES: Readonly<Record<PolicyPresetName, ContextPolicy>> = Object.freeze(
  Object.fromEntries(
    Object.entries(PRESET_INPUTS).map(([name, input]) => [
      name,
      deepFreeze(parsePolicy(input, `preset ${name}`)),
    ]),
  ) as Record<PolicyPresetName, ContextPolicy>,
);

/** A policy as callers give it: a preset name, a (partial) policy, or a preset with overrides. */
export type PolicySpec =
  | PolicyPresetName
  | ContextPolicyInput
  | { readonly preset: PolicyPresetName; readonly overrides?: PolicyOverrides };

/**
 * The complete policy for a spec: a preset by name, a preset with overrides, or a partial
 * policy (completed from the `default` preset, so an object with only `triggers` keeps the
 * default's target, reserve and pipeline). Unknown names and keys are `E_INVALID_OPTIONS`.
 *
 * @example
 * resolvePolicy('chat-app');
 * resolvePolicy({ preset: 'rolling-summary', overrides: { triggers: [{ messages: 15 }, { tokens: 32_000 }] } });
 */
export function resolvePolicy(spec: PolicySpec | undefined, where = 'policy'): ContextPolicy {
  if (spec === undefined) return POLICIES.default;
  if (typeof spec === 'string') {
    const preset = POLICIES[spec as PolicyPresetName];
    if (preset === undefined) throw unknownPreset(spec, where);
    return preset;
  }
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    throw new ChatfoldError('E_INVALID_OPTIONS', `${where}: expected a preset name or a policy object`, {});
  }
  if ('preset' in spec) {
    const { preset, overrides, ...rest } = spec as { preset: string; overrides?: PolicyOverrides };
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) {
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `${where}: unknown option "${extra}" beside preset (put fields in overrides)`,
        { key: extra },
      );
    }
    const base = PRESET_INPUTS[preset as PolicyPresetName];
    if (base === undefined) throw unknownPreset(preset, where);
    if (overrides === undefined) return POLICIES[preset as PolicyPresetName];
    return parsePolicy(mergePolicy(base, { name: `${preset} (customized)`, ...overrides }), where);
  }
  return parsePolicy(
    mergePolicy(PRESET_INPUTS.default, { name: 'custom', ...(spec as PolicyOverrides) }),
    where,
  );
}

function unknownPreset(name: string, where: string): ChatfoldError {
  return new ChatfoldError(
    'E_INVALID_OPTIONS',
    `${where}: unknown policy ${JSON.stringify(name)}; known: ${POLICY_PRESET_NAMES.join(', ')}`,
    { policy: name, known: [...POLICY_PRESET_NAMES] },
  );
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
