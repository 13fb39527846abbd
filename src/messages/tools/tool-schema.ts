/**
 * Shared checks of tool-definition converters (TOK-2): every bad shape becomes one
 * `E_INVALID_TOOLS` naming where it is (`tools[2].function.parameters`), what was expected and
 * what was received — never a `TypeError` from inside a counter.
 */
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { isPlainObject, MAX_NESTING_DEPTH } from '../json-depth.ts';
import type { JsonValue, ToolDefinition } from '../types.ts';

/** A JSON Schema object as tool definitions carry it. */
export type ToolSchema = { readonly [key: string]: JsonValue };

/** How a value reads in an error message. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value !== 'object') return `${typeof value} ${String(value)}`;
  if (!isPlainObject(value)) return `an instance of ${value.constructor?.name ?? 'a class'}`;
  const keys = Object.keys(value);
  return keys.length === 0 ? 'an empty object' : `an object with keys ${JSON.stringify(keys.slice(0, 8))}`;
}

/**
 * The `E_INVALID_TOOLS` error for `where`.
 *
 * @param where - Path of the bad value, e.g. `tools[2].function.name`.
 * @param expected - What would have been read, in the provider's words.
 * @param received - The value found there.
 * @param index - Which tool (array index or tool-set key).
 */
export function invalidTools(
  where: string,
  expected: string,
  received: unknown,
  index?: number | string,
): ChatfoldError<'E_INVALID_TOOLS'> {
  return new ChatfoldError(
    'E_INVALID_TOOLS',
    `${where}: expected ${expected}, received ${describeValue(received)}`,
    { where, expected, ...(index === undefined ? {} : { index }) },
  );
}

/** The first value in `root` that is not JSON, or nested too deep (a cycle is): its path. */
function nonJson(root: unknown): { path: (string | number)[]; value: unknown; isTooDeep?: true } | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: (string | number)[] };
    if (value === null || typeof value === 'string' || typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      if (Number.isFinite(value)) continue;
      return { path, value };
    }
    if (typeof value !== 'object') return { path, value };
    if (path.length >= MAX_NESTING_DEPTH) return { path, value, isTooDeep: true };
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        stack.push({ value: item, path: [...path, i] });
      });
    } else if (isPlainObject(value)) {
      for (const key of Object.keys(value)) {
        // `undefined` members are absent in JSON (an optional field left undefined).
        if (value[key] !== undefined) stack.push({ value: value[key], path: [...path, key] });
      }
    } else {
      return { path, value };
    }
  }
  return undefined;
}

const joinPath = (where: string, path: readonly (string | number)[]): string =>
  path.reduce<string>(
    (out, key) =>
      typeof key === 'number'
        ? `${out}[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
          ? `${out}.${key}`
          : `${out}[${JSON.stringify(key)}]`,
    where,
  );

/**
 * Checks that `value` is a JSON Schema object: a plain object of JSON values, nested at most
 * `MAX_NESTING_DEPTH` levels.
 *
 * @param value - The schema.
 * @param where - Its path, for the error.
 * @param index - Which tool it belongs to.
 * @returns The same object, typed.
 * @throws ChatfoldError `E_INVALID_TOOLS`.
 */
export function checkToolSchema(value: unknown, where: string, index: number | string): ToolSchema {
  // Walked on every call (no module memo, issue 22 §3): definitions are small, and the
  // counters cache their count by content.
  if (!isPlainObject(value)) {
    const hint =
      typeof value === 'object' && value !== null && ('_zod' in value || '_def' in value)
        ? ' (a zod schema: pass the tools through toolsFromAiSdk, or give z.toJSONSchema(schema))'
        : '';
    throw invalidTools(where, `a JSON Schema object${hint}`, value, index);
  }
  const found = nonJson(value);
  if (found?.isTooDeep) {
    const shown = joinPath(where, found.path.slice(0, 8));
    throw invalidTools(
      `${shown}…`,
      `JSON nested at most ${MAX_NESTING_DEPTH} levels (this is deeper, or cyclic)`,
      found.value,
      index,
    );
  }
  if (found !== undefined)
    throw invalidTools(joinPath(where, found.path), 'a JSON value', found.value, index);
  return value as ToolSchema;
}

/**
 * A neutral definition from a provider's fields, each checked.
 *
 * @param fields - The tool's name (a non-empty string), description (a string, optional) and
 *   JSON Schema (optional: `{}`, a tool without arguments).
 * @param where - Path of the tool, e.g. `tools[2].function`.
 * @param index - Which tool (array index or tool-set key).
 * @param schemaKey - What the provider calls the schema (`parameters`, `input_schema`, …).
 * @throws ChatfoldError `E_INVALID_TOOLS` naming the bad field.
 */
export function toolDefinition(
  fields: { readonly name?: unknown; readonly description?: unknown; readonly parameters?: unknown },
  where: string,
  index: number | string,
  schemaKey = 'parameters',
): ToolDefinition {
  const { name, description, parameters } = fields;
  if (typeof name !== 'string' || name === '')
    throw invalidTools(`${where}.name`, 'a non-empty string', name, index);
  if (description !== undefined && description !== null && typeof description !== 'string') {
    throw invalidTools(`${where}.description`, 'a string or nothing', description, index);
  }
  return {
    name,
    ...(typeof description === 'string' ? { description } : {}),
    parameters:
      parameters === undefined || parameters === null
        ? {}
        : checkToolSchema(parameters, `${where}.${schemaKey}`, index),
  };
}

/** The members of a plain object, or an `E_INVALID_TOOLS` naming what was expected. */
export function objectAt(value: unknown, where: string, expected: string, index: number | string) {
  if (!isPlainObject(value)) throw invalidTools(where, expected, value, index);
  return value;
}

/**
 * Reads an array of one provider's tools, each checked to be an object first.
 *
 * @param tools - The array (anything else is `E_INVALID_TOOLS`).
 * @param expected - One tool of the provider's shape, in words.
 * @param read - Reads one tool at `tools[index]` into its definitions.
 */
export function readToolArray(
  tools: unknown,
  expected: string,
  read: (
    tool: Readonly<Record<string, unknown>>,
    where: string,
    index: number,
  ) => ToolDefinition | ToolDefinition[],
): ToolDefinition[] {
  if (!Array.isArray(tools)) throw invalidTools('tools', `an array of ${expected}`, tools);
  return (tools as readonly unknown[]).flatMap((tool, index) =>
    read(objectAt(tool, `tools[${index}]`, expected, index), `tools[${index}]`, index),
  );
}
