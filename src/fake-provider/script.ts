import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { FakeAnswer } from './chat-turn.ts';

// A fake-provider script: rules that decide what the fake model answers, so a test can drive a
// real tool loop (read a file, edit it, read it again), a slow or failing summarizer, and
// streams slow enough to interrupt — over real HTTP, in every wire format (issue 11, "Tests").
// The rules are plain data (JSON or YAML), validated here at the boundary.

const toolCallSchema = z.strictObject({
  /** Default: generated in the provider's style (`call_…`, `toolu_…`). */
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  /** Default `{}`. */
  arguments: z.record(z.string(), z.unknown()).optional(),
});

const replySchema = z.strictObject({
  text: z.string().optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  usage: z
    .strictObject({
      inputTokens: z.int().nonnegative().optional(),
      outputTokens: z.int().nonnegative().optional(),
    })
    .optional(),
  delayMs: z.int().nonnegative().optional(),
  chunkDelayMs: z.int().nonnegative().optional(),
  error: z
    .strictObject({
      status: z.int().min(400).max(599),
      message: z.string().optional(),
      retryAfter: z.number().nonnegative().optional(),
    })
    .optional(),
});

const matchSchema = z.strictObject({
  lastUserIncludes: z.string().optional(),
  lastUserMatches: z
    .string()
    .refine(
      (source) => {
        try {
          new RegExp(source);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'expected a JavaScript regular expression' },
    )
    .optional(),
  systemIncludes: z.string().optional(),
  hasTool: z.string().optional(),
  isSummary: z.boolean().optional(),
  provider: z.enum(['openai', 'anthropic', 'gemini']).optional(),
  model: z.string().optional(),
});

const ruleSchema = z
  .strictObject({
    match: matchSchema.optional(),
    reply: replySchema.optional(),
    steps: z.array(replySchema).min(1).optional(),
    times: z.int().positive().optional(),
  })
  .refine((rule) => (rule.reply === undefined) !== (rule.steps === undefined), {
    message:
      'expected exactly one of "reply" (every matching call) or "steps" (one per model call of a turn)',
  });

/** The schema of a fake-provider script file (JSON or YAML): `{ rules: [...] }`. */
export const fakeScriptSchema = z.strictObject({ rules: z.array(ruleSchema) });

/**
 * When a rule applies. Every condition given must hold; a rule without `match` applies to
 * every call.
 */
export interface FakeMatch {
  /** The last user message's text contains this (a phrase, or a marker such as `[slow]`). */
  readonly lastUserIncludes?: string;
  /** The last user message's text matches this regular expression (JavaScript syntax). */
  readonly lastUserMatches?: string;
  /** The system instructions contain this (tells agents apart). */
  readonly systemIncludes?: string;
  /** The request offers a tool of this name. */
  readonly hasTool?: string;
  /** `true`: only chatfold's summarization prompt; `false`: never it. */
  readonly isSummary?: boolean;
  readonly provider?: 'openai' | 'anthropic' | 'gemini';
  /** The request's model id, exactly. */
  readonly model?: string;
}

/**
 * One rule: a match and what to answer. `reply` answers every matching call alike; `steps`
 * answer the model calls of one user turn in order — step `n` is the answer to the call that
 * already has `n` assistant messages after the last user message, so a tool loop's second call
 * (after the first tool result) gets `steps[1]`. Past the last step the rule no longer matches.
 */
export interface FakeScriptRule {
  readonly match?: FakeMatch;
  readonly reply?: FakeAnswer;
  readonly steps?: readonly FakeAnswer[];
  /** How many calls the rule may answer; default: no limit (`times: 1` fails only once). */
  readonly times?: number;
}

/**
 * A script for the fake provider: the first rule that matches a chat call decides the answer;
 * when none does, the server's `respond` function (by default the echo / canned summary) does.
 *
 * @example
 * const script: FakeScript = {
 *   rules: [
 *     { match: { isSummary: true }, reply: { delayMs: 2000 } },              // a slow summarizer
 *     { match: { lastUserIncludes: 'fix the typo' }, steps: [
 *       { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] },
 *       { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.md', old: 'teh', new: 'the' } }] },
 *       { text: 'Fixed.' },
 *     ] },
 *     { reply: { chunkDelayMs: 50 } },                                          // every other answer streams slowly
 *   ],
 * };
 */
export interface FakeScript {
  readonly rules: readonly FakeScriptRule[];
}

/** `rules[2].steps[0].toolCalls[0].name` from a zod issue path. */
function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

/**
 * Checks a script read from JSON or YAML and returns it typed.
 *
 * @param value - The parsed document.
 * @param options - `source` names the file in error messages.
 * @returns The script, unchanged.
 * @throws ChatfoldError `E_INVALID_OPTIONS` naming the first invalid field's path, what was
 *   expected and what was received.
 * @example
 * const script = parseFakeScript(JSON.parse(readFileSync('script.json', 'utf8')), { source: 'script.json' });
 */
export function parseFakeScript(value: unknown, { source = 'fake-provider script' } = {}): FakeScript {
  const parsed = fakeScriptSchema.safeParse(value);
  if (parsed.success) return value as FakeScript;
  const issue = parsed.error.issues[0];
  const at = formatPath(issue?.path ?? []) || '(root)';
  throw new ChatfoldError(
    'E_INVALID_OPTIONS',
    `${source}: ${at}: ${issue?.message ?? 'invalid'} (a script is { "rules": [{ "match": {…}, "reply": {…} | "steps": […] }] }; see the README's fake-provider section)`,
    {
      source,
      path: at,
      issues: parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })),
    },
  );
}
