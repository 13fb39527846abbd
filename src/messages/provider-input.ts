/**
 * Boundary validation for provider formats (MSG-4): every `fromX` converter checks its input
 * against a zod schema of the provider's documented shape, and a failure becomes one
 * `ChatfoldError` whose message names the path (`messages[3].tool_calls[0].function.arguments`),
 * what was expected and what was received.
 */
import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { ENVELOPE_DEPTH, MAX_NESTING_DEPTH } from './json-depth.ts';
import { describe } from './normalize.ts';
import { snapshotInput } from './snapshot.ts';
import type { JsonValue } from './types.ts';

/** How a provider's format names things in error messages. */
export interface ProviderInputNames {
  /** Where paths start: `messages`, or `` for a request object (`messages[0]`, `system`). */
  readonly root: string;
  /** What a `type` discriminator selects, e.g. `Anthropic block`, `OpenAI content part`. */
  readonly partNoun: string;
  /** Roles the format accepts, for `E_UNKNOWN_ROLE` messages. */
  readonly roles: readonly string[];
}

/** A key of an object that the schema does not know; kept verbatim for round trips. */
export const extraValue = z.union([z.json(), z.undefined()]);

/** An object with the given keys whose other keys must be JSON (they ride along as extras). */
export const looseObject = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.object(shape).catchall(extraValue);

/** `messages[3].tool_calls[0]` from a root and a zod path. */
export function formatPath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const key of path) {
    out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${String(key)}`;
  }
  return out === '' ? 'request' : out;
}

/**
 * Parses provider input with a schema; throws `E_UNKNOWN_ROLE` for an unknown `role`,
 * `E_NESTING_TOO_DEEP` for JSON nested deeper than `MAX_NESTING_DEPTH`, `E_INVALID_MESSAGE`
 * for anything else that does not match, each naming the path.
 */
export function parseProviderInput<T>(
  schema: z.ZodType<T>,
  input: unknown,
  names: ProviderInputNames,
  limits: { readonly maxBinaryBytes?: number } = {},
): T {
  const snapshot = readProviderInput(input, names, limits);
  const result = schema.safeParse(snapshot);
  // The snapshot, not zod's copy: the schemas only check (no transforms), and zod's copy would
  // lose own `__proto__` keys that tool arguments may legitimately hold.
  if (result.success) return snapshot as T;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  throw issueError(issue, [], snapshot, names, result.error.issues.length);
}

/**
 * The one read of a caller's provider input that {@link parseProviderInput} checks: a plain
 * data copy (issue 24 §2: a proxy or getter cannot answer the schema one way and the conversion
 * another). The copy also bounds depth (a 10,000-deep tool input would overflow the stack
 * inside zod), array lengths and byte arrays before any work (MSG-4). Given an earlier read of
 * the same input, the unchanged parts come back as its objects (`snapshotInput`'s `previous`).
 */
export function readProviderInput(
  input: unknown,
  names: ProviderInputNames,
  limits: { readonly maxBinaryBytes?: number } = {},
  previous?: unknown,
): unknown {
  return snapshotInput(input, {
    root: names.root,
    maxDepth: MAX_NESTING_DEPTH + ENVELOPE_DEPTH,
    ...(limits.maxBinaryBytes === undefined ? {} : { maxBinaryBytes: limits.maxBinaryBytes }),
    ...(previous === undefined ? {} : { previous }),
  });
}

/** Keys of `value` that are not in `known` and not undefined, as JSON, or undefined when none. */
export function extraKeys(
  value: Readonly<Record<string, unknown>>,
  known: ReadonlySet<string>,
): Record<string, JsonValue> | undefined {
  const entries = Object.entries(value).filter(([key, item]) => !known.has(key) && item !== undefined);
  // fromEntries defines own properties, so even a `__proto__` key is kept as data.
  return entries.length === 0 ? undefined : (Object.fromEntries(entries) as Record<string, JsonValue>);
}

/** The value at a schema issue's path in the input (what was received). */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function received(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return describe(value);
}

/** Depth of the deepest issue in a union branch: the branch that got furthest is the one meant. */
function depth(issues: readonly z.core.$ZodIssue[]): number {
  let best = 0;
  for (const issue of issues) {
    let d = issue.path.length + 1;
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      d += Math.max(...issue.errors.map((branch) => depth(branch)));
    }
    if (issue.code === 'invalid_union' && issue.discriminator !== undefined) d += 1;
    best = Math.max(best, d);
  }
  return best;
}

function issueError(
  issue: z.core.$ZodIssue,
  base: readonly PropertyKey[],
  input: unknown,
  names: ProviderInputNames,
  count: number,
): ChatfoldError {
  const path = [...base, ...issue.path];
  const where = formatPath(names.root, path);
  const value = valueAt(input, path);
  const details = { where, issues: count };
  if (path.at(-1) === 'role' && issue.code !== 'invalid_union') {
    return new ChatfoldError(
      'E_UNKNOWN_ROLE',
      `${where}: unknown role ${value === undefined ? '(missing)' : JSON.stringify(value)}; expected one of ${names.roles.join(', ')}`,
      { ...details, role: typeof value === 'string' ? value : describe(value) },
    );
  }
  if (issue.code === 'invalid_union' && issue.discriminator !== undefined) {
    const options = (issue as { options?: readonly unknown[] }).options ?? [];
    const expected = options.map(String).join(', ');
    if (issue.discriminator === 'role') {
      return new ChatfoldError(
        'E_UNKNOWN_ROLE',
        `${where}: unknown role ${JSON.stringify(value)}; expected one of ${names.roles.join(', ')}`,
        { ...details, role: typeof value === 'string' ? value : describe(value) },
      );
    }
    return new ChatfoldError(
      'E_INVALID_MESSAGE',
      `${where}: unsupported ${names.partNoun} ${JSON.stringify(value)}; expected one of ${expected}`,
      { ...details, blockType: typeof value === 'string' ? value : describe(value) },
    );
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const branches = issue.errors;
    const atRoot = branches.every((branch) =>
      branch.every((inner) => inner.path.length === 0 && inner.code === 'invalid_type'),
    );
    if (atRoot) {
      const expected = branches.flatMap((branch) =>
        branch.map((inner) => (inner as { expected?: string }).expected ?? 'a valid value'),
      );
      return new ChatfoldError(
        'E_INVALID_MESSAGE',
        `${where}: expected ${[...new Set(expected)].join(' or ')}, received ${received(value)}`,
        details,
      );
    }
    const deepest = branches.reduce((a, b) => (depth(b) > depth(a) ? b : a));
    const first = deepest[0];
    if (first !== undefined) return issueError(first, path, input, names, count);
  }
  if (issue.code === 'invalid_type') {
    return new ChatfoldError(
      'E_INVALID_MESSAGE',
      `${where}: expected ${issue.expected}, received ${received(value)}`,
      details,
    );
  }
  if (issue.code === 'invalid_value') {
    const expected = issue.values.map((v) => JSON.stringify(v)).join(' or ');
    return new ChatfoldError(
      'E_INVALID_MESSAGE',
      `${where}: expected ${expected}, received ${received(value)}`,
      details,
    );
  }
  return new ChatfoldError('E_INVALID_MESSAGE', `${where}: ${issue.message}`, details);
}
