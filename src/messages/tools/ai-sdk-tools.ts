import { z } from 'zod';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import type { ToolDefinition } from '../types.ts';
import { checkToolSchema, invalidTools, objectAt, type ToolSchema, toolDefinition } from './tool-schema.ts';

/**
 * One tool of an AI SDK tool set (`tool({ description, inputSchema, execute })`): its schema a
 * zod 4 schema, a `jsonSchema(…)` wrapper, a Standard Schema with JSON Schema support, or a
 * plain JSON Schema; AI SDK 4's `parameters` is read the same way.
 */
export interface AiSdkToolDefinition {
  /** AI SDK 7 also takes a function of the call's context, which counting cannot call. */
  readonly description?: string | ((options: never) => string) | undefined;
  readonly inputSchema?: unknown;
  readonly parameters?: unknown;
  /** `function` / `dynamic`, or `provider` / `provider-defined` for a provider's own tool. */
  readonly type?: string | undefined;
}

/** An AI SDK tool set: tool name → tool, as `generateText({ tools })` takes it. */
export type AiSdkToolSet = { readonly [name: string]: AiSdkToolDefinition };

/** The AI SDK's marker of `jsonSchema(…)` schemas (`Symbol.for('vercel.ai.schema')`). */
const SCHEMA_MARKER = Symbol.for('vercel.ai.schema');

/** zod 4 schemas are immutable: their JSON Schema is made once per schema object. */
const zodJsonSchemas = new WeakMap<object, unknown>();

const EXPECTED_SCHEMA =
  'a zod 4 schema, jsonSchema({ … }), a Standard Schema with JSON Schema support, or a JSON Schema object';

/** The JSON Schema an AI SDK schema stands for, made as the AI SDK makes it for the provider. */
function jsonSchemaOf(schema: unknown, where: string, name: string): unknown {
  // A lazySchema(): the AI SDK calls it to get the schema.
  if (typeof schema === 'function')
    return jsonSchemaOf(call(schema as () => unknown, where, name), where, name);
  if (typeof schema !== 'object' || schema === null) return schema;
  if (SCHEMA_MARKER in schema) return markedSchema(schema, where, name);
  if ('_zod' in schema) {
    let json = zodJsonSchemas.get(schema);
    if (json === undefined) {
      // As the AI SDK's zod4Schema: draft 7, the input side, shared schemas inlined.
      const options = { target: 'draft-7', io: 'input', reused: 'inline' } as const;
      json = call(() => z.toJSONSchema(schema as z.core.$ZodType, options), where, name);
      zodJsonSchemas.set(schema, json);
    }
    return json;
  }
  if ('_def' in schema) {
    const hint = 'this is a zod 3 schema: give jsonSchema(zodToJsonSchema(schema)) or use zod 4';
    throw invalidTools(where, `${EXPECTED_SCHEMA} (${hint})`, schema, name);
  }
  if ('~standard' in schema) {
    const standard = schema['~standard'] as
      | { vendor?: unknown; jsonSchema?: { input?: unknown } }
      | undefined;
    const input = standard?.jsonSchema?.input;
    if (typeof input !== 'function') {
      const hint = `Standard Schema vendor ${JSON.stringify(standard?.vendor)} has no JSON Schema conversion`;
      throw invalidTools(where, `${EXPECTED_SCHEMA} (${hint})`, schema, name);
    }
    return call(() => input.call(standard?.jsonSchema, { target: 'draft-07' }), where, name);
  }
  // A plain JSON Schema (checked by the caller).
  return schema;
}

/** `jsonSchema(…)`'s schema: its `jsonSchema` member, which must not be a promise here. */
function markedSchema(schema: object, where: string, name: string): unknown {
  const json = call(() => (schema as { jsonSchema?: unknown }).jsonSchema, where, name);
  if (typeof json === 'object' && json !== null && typeof (json as { then?: unknown }).then === 'function') {
    throw invalidTools(
      where,
      'a JSON Schema available now (counting is synchronous: resolve the promise given to jsonSchema() first)',
      json,
      name,
    );
  }
  return json;
}

/** Runs user schema code; what it throws becomes `E_INVALID_TOOLS` with the cause kept. */
function call<T>(run: () => T, where: string, name: string): T {
  try {
    return run();
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new ChatfoldError(
      'E_INVALID_TOOLS',
      `${where}: the schema did not convert to JSON Schema (${reason}); expected ${EXPECTED_SCHEMA}`,
      { where, index: name, expected: EXPECTED_SCHEMA },
      { cause },
    );
  }
}

/** One tool of a tool set (the caller checked `tools` is a plain object). */
export function aiSdkToolDefinition(tool: unknown, name: string): ToolDefinition {
  const where = `tools[${JSON.stringify(name)}]`;
  const value = objectAt(tool, where, 'an AI SDK tool { description?, inputSchema }', name);
  // A provider's own tool (web search, code execution…) counts by name, as in the middleware.
  if (value.type === 'provider' || value.type === 'provider-defined')
    return toolDefinition({ name }, where, name);
  if (typeof value.description === 'function') {
    throw invalidTools(
      `${where}.description`,
      "a string (this one is a function of the call's context: call it with that context and count the string)",
      value.description,
      name,
    );
  }
  const key = value.inputSchema !== undefined ? 'inputSchema' : 'parameters';
  const schema = value[key];
  // No schema: the AI SDK sends an empty object schema.
  const json =
    schema === undefined
      ? ({ type: 'object', properties: {} } satisfies ToolSchema)
      : checkToolSchema(jsonSchemaOf(schema, `${where}.${key}`, name), `${where}.${key}`, name);
  return toolDefinition({ name, description: value.description, parameters: json }, where, name, key);
}

/**
 * Converts an AI SDK tool set to neutral tool definitions (TOK-2): each tool's name is its key,
 * its schema the JSON Schema the AI SDK sends (zod 4 through `z.toJSONSchema` as the AI SDK
 * calls it, `jsonSchema(…)` as given, a Standard Schema through its JSON Schema converter); a
 * provider tool counts by name. Zod 3 schemas are not read (wrap them in `jsonSchema`).
 *
 * @param tools - The tool set, e.g. `{ weather: tool({ … }) }`.
 * @returns One definition per tool, in key order.
 * @throws ChatfoldError `E_INVALID_TOOLS` naming the tool's key and what was expected.
 * @example
 * countTokens(messages, { model: 'gpt-4o', tools: toolsFromAiSdk({ weather }) });
 */
export function toolsFromAiSdk(tools: AiSdkToolSet): ToolDefinition[] {
  const set = objectAt(tools, 'tools', 'an AI SDK tool set { [name]: tool }', 'tools');
  return Object.keys(set).map((name) => aiSdkToolDefinition(set[name], name));
}
