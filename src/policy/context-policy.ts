import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';

/**
 * The context policy (Engine 2): *when* to compact and *what* to keep, as one JSON object.
 * Every product (`compact()`, sessions, the middleware, the OpenAI wrapper, agents, agent
 * files, the web app, the gateway) takes a policy and decides through the one `decide()`
 * function; nothing else adds a trigger, a floor or a cap. Pure data: it round-trips through
 * JSON, is checked with zod when given (unknown keys fail), and every field is documented in
 * docs/policies.md.
 */

const share = z.number().gt(0).lte(1);
const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();

/**
 * One AND-group of trigger conditions; the policy compacts when ANY group fires (TRG-2).
 * A condition that is not set does not take part.
 */
export const triggerGroupSchema = z
  .object({
    /** The prompt (messages + tool definitions) reaches this share of the model's window. */
    fraction: share.optional(),
    /** The prompt reaches this many tokens. */
    tokens: positiveInt.optional(),
    /** This many messages were added since the last compaction. */
    messages: positiveInt.optional(),
  })
  .strict()
  .refine(
    (group) => group.fraction !== undefined || group.tokens !== undefined || group.messages !== undefined,
    {
      message: 'a trigger group needs fraction, tokens or messages',
    },
  );

/** One AND-group of trigger conditions. */
export type TriggerGroup = z.infer<typeof triggerGroupSchema>;

/** The policy's schema: every field with its default (a partial policy is completed by it). */
export const contextPolicySchema = z
  .object({
    /** Shown in `/context`, the settings page and reports: a preset's name or `custom`. */
    name: z.string().min(1).default('custom'),
    /**
     * OR of AND-groups (TRG-2). `[]`: never compact automatically — only a prompt that does not
     * fit (over the budget) is compacted, because it cannot be sent otherwise.
     */
    triggers: z.array(triggerGroupSchema).default([]),
    /** No automatic compaction while the prompt is below these (TRG-3). Manual ones still run. */
    floor: z
      .object({ tokens: nonNegativeInt.default(0), messages: nonNegativeInt.default(0) })
      .strict()
      .default({ tokens: 0, messages: 0 }),
    /**
     * Where a compaction aims (TRG-4): the prompt after it is at most the smaller of the set
     * values. Neither set: the budget. The retained tail never makes the result exceed it.
     */
    target: z.object({ fraction: share.optional(), tokens: positiveInt.optional() }).strict().default({}),
    /**
     * Tokens kept free for the answer: a number, or `max-output` — the model's max output
     * tokens, capped at 25 % of the window and 32,000 (4,096 when the model's is unknown).
     * Guaranteed separately from the triggers: a prompt that would eat into it is compacted
     * (mode `overflow`) whatever the triggers say.
     */
    responseReserve: z.union([nonNegativeInt, z.literal('max-output')]).default('max-output'),
    /**
     * Share of the window kept free against counting error, or `by-accuracy`: 5 % for exact
     * counts, 8 % for calibrated ones, 15 % for approximations. Guaranteed like the reserve.
     */
    safetyMargin: z.union([z.number().gte(0).lt(1), z.literal('by-accuracy')]).default('by-accuracy'),
    /**
     * The newest messages kept verbatim after a summary (FR-1.3.4): exactly the largest suffix
     * of whole tool groups within `tokens` and `messages` (each only when set) that also keeps
     * the result within the target. Neither set: as many as the target allows.
     */
    retention: z
      .object({ tokens: nonNegativeInt.optional(), messages: nonNegativeInt.optional() })
      .strict()
      .default({}),
    /** What compaction never removes besides the system prompt, pinned messages and the latest user turn. */
    protect: z
      .object({
        /** Keep the first user message (the goal) verbatim before the summary. */
        firstUserMessage: z.boolean().default(true),
        /**
         * The newest messages protected from every stage (clip, mask, drop), widened to whole
         * tool groups, up to `maxShareOfTarget` of the target (the newest group always stays).
         */
        recentMessages: nonNegativeInt.default(0),
        maxShareOfTarget: share.default(0.5),
        /**
         * The latest content of the last `count` files read or written rides along with the
         * summary, each file whole while all of them fit in `share` of the target; a file is
         * cut only when it alone is larger than what is left. Carried across compactions.
         */
        recentFiles: z
          .object({ count: nonNegativeInt.default(0), share: share.default(0.2) })
          .strict()
          .default({ count: 0, share: 0.2 }),
      })
      .strict()
      .default({
        firstUserMessage: true,
        recentMessages: 0,
        maxShareOfTarget: 0.5,
        recentFiles: { count: 0, share: 0.2 },
      }),
    /** How the summary is placed. */
    summary: z
      .object({
        /**
         * `system`: a system message first in the context (before the goal when one is kept),
         * where the provider allows system messages there; `user`: a user turn after the goal;
         * `provider`: system for OpenAI, a user turn for Anthropic and Gemini.
         */
        placement: z.enum(['system', 'user', 'provider']).default('provider'),
        /** Largest summary in tokens; default: what the target leaves after the retained messages, at most 15 % of the target and at least 256. */
        maxTokens: positiveInt.optional(),
      })
      .strict()
      .default({ placement: 'provider' }),
    /**
     * The stages, in order (STR-7): `clip`, `supersede`, `mask`, `summarize`, `importance`,
     * `truncate`, or names you registered. A deterministic fit to the budget always runs last.
     */
    pipeline: z
      .array(z.string().min(1))
      .min(1)
      .default(['clip', 'supersede', 'mask', 'summarize', 'truncate']),
    /** Marker text that stands where `truncate` or `importance` left messages out; `{count}` is replaced. */
    omissionMarker: z
      .string()
      .min(1)
      .refine((text) => text.includes('{count}'), { message: 'must contain {count}' })
      .optional(),
    /** What a manual compaction (`/summarize`, a button) covers: `all` messages, or all but the `retention` tail. */
    manual: z
      .object({ scope: z.enum(['all', 'retention']).default('retention') })
      .strict()
      .default({ scope: 'retention' }),
    /** What happens when the LLM summarizer fails. */
    onFailure: z
      .object({
        /**
         * Automatic compaction: `extractive` summarizes without a model (a fallback event says so);
         * `skip` leaves the prompt as it is when it fits (the deterministic fit still runs when
         * it does not) and tries the model again after the back-off.
         */
        auto: z.enum(['extractive', 'skip']).default('extractive'),
        /** Manual compaction: `error` rejects and changes nothing; `extractive` falls back with an event. */
        manual: z.enum(['error', 'extractive']).default('error'),
        /** Back-off before an automatic compaction calls the model again (doubling); manual requests always call it. */
        backoffMs: z
          .object({ base: nonNegativeInt.default(30_000), max: nonNegativeInt.default(15 * 60_000) })
          .strict()
          .default({ base: 30_000, max: 15 * 60_000 }),
      })
      .strict()
      .default({ auto: 'extractive', manual: 'error', backoffMs: { base: 30_000, max: 15 * 60_000 } }),
  })
  .strict();

/** A complete policy: every field set (what `resolvePolicy` returns and reports show). */
export type ContextPolicy = z.output<typeof contextPolicySchema>;

/** `T` with every array and object read-only (a policy written `as const` is accepted). */
type ReadonlyDeep<T> = T extends readonly (infer U)[]
  ? readonly ReadonlyDeep<U>[]
  : T extends object
    ? { readonly [K in keyof T]: ReadonlyDeep<T[K]> }
    : T;

/** A policy as users write it: any field may be left out and takes its default. */
export type ContextPolicyInput = ReadonlyDeep<z.input<typeof contextPolicySchema>>;

/** Deep partial of a policy, for overriding a preset field by field. */
export type PolicyOverrides = {
  readonly [K in keyof ContextPolicyInput]?: ContextPolicyInput[K] extends readonly unknown[]
    ? ContextPolicyInput[K]
    : ContextPolicyInput[K] extends object | undefined
      ? Partial<NonNullable<ContextPolicyInput[K]>>
      : ContextPolicyInput[K];
};

/**
 * Checks a policy (E_INVALID_OPTIONS naming the field) and fills in the defaults.
 *
 * @param input A policy object (partial is fine).
 * @param where Who is asking, for the error message (`createChatfold`, an agent file, …).
 */
export function parsePolicy(input: unknown, where = 'policy'): ContextPolicy {
  const result = contextPolicySchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.length ? `policy.${issue.path.join('.')}` : 'policy';
  const unknownKey = issue?.code === 'unrecognized_keys' ? ` (unknown option "${issue.keys[0]}")` : '';
  throw new ChatfoldError(
    'E_INVALID_OPTIONS',
    `${where}: ${path}: ${issue?.message ?? 'invalid policy'}${unknownKey}`,
    { path: issue?.path.map(String) ?? [] },
  );
}

/** Merges overrides onto a base policy one level deep (nested objects merge, arrays replace). */
export function mergePolicy(base: ContextPolicyInput, overrides: PolicyOverrides): ContextPolicyInput {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const previous = out[key];
    out[key] = isPlainObject(value) && isPlainObject(previous) ? mergeObjects(previous, value) : value;
  }
  return out as ContextPolicyInput;
}

function mergeObjects(
  base: Record<string, unknown>,
  value: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    out[key] =
      isPlainObject(item) && isPlainObject(out[key])
        ? mergeObjects(out[key] as Record<string, unknown>, item)
        : item;
  }
  return out;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
