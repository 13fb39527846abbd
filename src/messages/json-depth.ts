/**
 * Nesting-depth bounds for JSON (MSG-4). A 10,000-deep tool input overflows the stack of
 * recursive code (the schema library, `JSON.stringify`, every walker in a provider SDK), so
 * chatfold refuses anything deeper than {@link MAX_NESTING_DEPTH} where it enters, with
 * `E_NESTING_TOO_DEEP`, using iterative checks that cannot overflow themselves.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';

/**
 * Deepest nesting of arrays and objects chatfold accepts in a JSON value (tool-call
 * arguments, tool inputs, metadata, a whole provider request counted from its outermost
 * object). Real tool inputs nest a few levels; recursion in common JSON tooling breaks in the
 * thousands.
 */
export const MAX_NESTING_DEPTH = 256;

/**
 * Extra levels allowed for the structure around a JSON value when a whole request or message
 * is checked at once (request → messages → message → content → block → input is 5 levels), so
 * a tool input {@link MAX_NESTING_DEPTH} deep is accepted in every format.
 */
export const ENVELOPE_DEPTH = 8;

/**
 * Deepest nesting of `[` and `{` in JSON text, stopping as soon as it passes `limit`
 * (so the answer is at most `limit + 1`). One pass, no parsing, no allocation; strings are
 * skipped, so brackets inside them do not count. Not a validator: `JSON.parse` still decides
 * whether the text is JSON.
 */
export function jsonTextDepth(text: string, limit = MAX_NESTING_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return deepest;
}

/**
 * The path of the first array or object nested deeper than `limit` in `value`, or undefined
 * when none is. Recursion stops at `limit`, so it cannot overflow the stack, and a cyclic
 * value ends at the limit too instead of looping. Only arrays and plain objects are entered.
 * Allocates nothing unless it finds something.
 */
export function tooDeepPath(value: unknown, limit = MAX_NESTING_DEPTH): (string | number)[] | undefined {
  const reversed = deepest(value, 1, limit);
  return reversed === undefined ? undefined : reversed.reverse();
}

function deepest(value: unknown, depth: number, limit: number): (string | number)[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > limit) return [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = deepest(value[i], depth + 1, limit);
      if (found !== undefined) {
        found.push(i);
        return found;
      }
    }
  } else if (isPlainObject(value)) {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const found = deepest(value[key], depth + 1, limit);
      if (found !== undefined) {
        found.push(key);
        return found;
      }
    }
  }
  return undefined;
}

/** An object made by a literal, `JSON.parse` or `Object.create(null)` (not a Date, Map, class…). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `E_NESTING_TOO_DEEP` for a value nested deeper than {@link MAX_NESTING_DEPTH} at `where`. */
export function nestingError(where: string, fn?: string): ChatfoldError {
  // A path 256 levels deep says nothing more than its start does.
  const shown = where.length > 120 ? `${where.slice(0, 100)}…` : where;
  return new ChatfoldError(
    'E_NESTING_TOO_DEEP',
    `${fn === undefined ? '' : `${fn}: `}${shown}: nested more than ${MAX_NESTING_DEPTH} levels deep (or cyclic); chatfold accepts JSON nested at most ${MAX_NESTING_DEPTH} levels — flatten the value`,
    { where: shown, limit: MAX_NESTING_DEPTH, ...(fn === undefined ? {} : { function: fn }) },
  );
}
