import { ChatfoldError } from '../errors/chatfold-error.ts';
import { cacheTable, type EngineCache } from './engine-cache.ts';
import { jsonTextDepth, MAX_NESTING_DEPTH, nestingError } from './json-depth.ts';
import type { JsonValue, ToolCallPart } from './types.ts';

const PARSED = cacheTable(
  'messages.tool-arguments',
  () => new WeakMap<ToolCallPart, Readonly<Record<string, JsonValue>> | null>(),
);

/**
 * The arguments of a tool call as an object, or undefined when they are not a JSON object.
 * Parsed once per part object and `cache`: strategies, the ledger and recent-files all ask
 * again on every compaction of a long session.
 */
export function toolArguments(
  part: ToolCallPart,
  cache?: EngineCache,
): Readonly<Record<string, JsonValue>> | undefined {
  const parsed = cache?.table(PARSED);
  let value = parsed?.get(part);
  if (value === undefined) {
    value = readArguments(part.arguments).object;
    parsed?.set(part, value);
  }
  return value ?? undefined;
}

/**
 * Arguments text read once: why it cannot be a tool call's arguments (if it cannot) and the
 * object it holds (null when it is not a JSON object). Validation and the readers of the
 * arguments share this one parse through the cache tables.
 */
function readArguments(text: string): {
  readonly fault: ToolArgumentsFault | undefined;
  readonly object: Readonly<Record<string, JsonValue>> | null;
} {
  // Arguments nested too deep are not used (MSG-4); validate reports them.
  if (jsonTextDepth(text) > MAX_NESTING_DEPTH) return { fault: 'too-deep', object: null };
  let json: JsonValue;
  try {
    json = JSON.parse(text) as JsonValue;
  } catch {
    // Not JSON: no arguments object (validate reports it as invalid-tool-arguments).
    return { fault: 'not-json', object: null };
  }
  return {
    fault: undefined,
    object: typeof json === 'object' && json !== null && !Array.isArray(json) ? json : null,
  };
}

/** What is wrong with tool-call arguments text: not JSON, or nested too deep (MSG-4). */
export type ToolArgumentsFault = 'not-json' | 'too-deep';

/**
 * Why `text` cannot be a tool call's arguments, or undefined when it is JSON nested at most
 * `MAX_NESTING_DEPTH` levels. Depth is measured before parsing, so nothing deep is built.
 */
export function argumentsFault(text: string): ToolArgumentsFault | undefined {
  return readArguments(text).fault;
}

const FAULTS = cacheTable(
  'messages.tool-arguments-fault',
  () => new WeakMap<ToolCallPart, ToolArgumentsFault | null>(),
);

/**
 * {@link argumentsFault} of a part, computed once per part object and `cache` (`validate`
 * runs after every stage).
 */
export function toolArgumentsFault(part: ToolCallPart, cache?: EngineCache): ToolArgumentsFault | undefined {
  const faults = cache?.table(FAULTS);
  let fault = faults?.get(part);
  if (fault === undefined) {
    const parsed = cache?.table(PARSED);
    // Arguments already read as an object are JSON within the depth limit.
    if (parsed?.get(part) != null) fault = null;
    else {
      const read = readArguments(part.arguments);
      fault = read.fault ?? null;
      // The parse is kept for the readers (the ledger, supersede, recent files) that come next.
      parsed?.set(part, read.object);
    }
    faults?.set(part, fault);
  }
  return fault ?? undefined;
}

/**
 * Parses tool-call arguments for a converter that must send them as an object (Anthropic
 * `input`, Gemini `args`, AI SDK `input`).
 *
 * @param text The arguments text.
 * @param where Its path, e.g. `messages[3].parts[0].arguments`.
 * @param fn The public function, for the message.
 * @throws ChatfoldError `E_INVALID_TOOL_ARGUMENTS` (not JSON), `E_NESTING_TOO_DEEP`.
 */
export function parseToolArguments(text: string, where: string, fn?: string): JsonValue {
  if (jsonTextDepth(text) > MAX_NESTING_DEPTH) throw nestingError(where, fn);
  try {
    return JSON.parse(text) as JsonValue;
  } catch (cause) {
    throw invalidArgumentsError(text, where, fn, cause);
  }
}

/** `E_INVALID_TOOL_ARGUMENTS` for arguments text that is not JSON. */
export function invalidArgumentsError(
  text: string,
  where: string,
  fn?: string,
  cause?: unknown,
): ChatfoldError {
  const preview = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return new ChatfoldError(
    'E_INVALID_TOOL_ARGUMENTS',
    `${fn === undefined ? '' : `${fn}: `}${where}: tool call arguments are not valid JSON (received ${JSON.stringify(preview)}); send the arguments as JSON text, e.g. JSON.stringify(args)`,
    { where, arguments: preview, ...(fn === undefined ? {} : { function: fn }) },
    ...(cause === undefined ? [] : [{ cause }]),
  );
}
