import type { JsonValue, ToolCallPart } from './types.ts';

const parsed = new WeakMap<ToolCallPart, Readonly<Record<string, JsonValue>> | null>();

/**
 * The arguments of a tool call as an object, or undefined when they are not a JSON object.
 * Parsed once per part object: strategies, the ledger and recent-files all ask again on every
 * compaction of a long session.
 */
export function toolArguments(part: ToolCallPart): Readonly<Record<string, JsonValue>> | undefined {
  let value = parsed.get(part);
  if (value === undefined) {
    try {
      const json = JSON.parse(part.arguments) as JsonValue;
      value = typeof json === 'object' && json !== null && !Array.isArray(json) ? json : null;
    } catch {
      value = null;
    }
    parsed.set(part, value);
  }
  return value ?? undefined;
}
