import type { JsonValue, ToolDefinition } from '../types.ts';
import {
  checkToolSchema,
  invalidTools,
  objectAt,
  readToolArray,
  type ToolSchema,
  toolDefinition,
} from './tool-schema.ts';

/** A Gemini function declaration (`tools[].functionDeclarations[]`). */
export interface GeminiFunctionDeclaration {
  readonly name: string;
  readonly description?: string;
  /** Gemini's OpenAPI-style schema (`type: 'OBJECT'` or `'object'`). */
  readonly parameters?: { readonly [key: string]: JsonValue };
  /** A JSON Schema instead of `parameters`. */
  readonly parametersJsonSchema?: { readonly [key: string]: JsonValue };
}

/** A Gemini tool: function declarations, or a built-in tool such as `{ googleSearch: {} }`. */
export interface GeminiToolDefinition {
  readonly functionDeclarations?: readonly GeminiFunctionDeclaration[];
  readonly [builtIn: string]: JsonValue | readonly GeminiFunctionDeclaration[] | undefined;
}

/** Gemini's built-in tools (`Tool` in the Gemini API reference): counted by name. */
const BUILT_IN = new Set([
  'googleSearch',
  'googleSearchRetrieval',
  'codeExecution',
  'urlContext',
  'retrieval',
  'fileSearch',
  'googleMaps',
  'computerUse',
  'enterpriseWebSearch',
]);

/** Whether `tool` has Gemini's shape: function declarations or a built-in tool's key. */
export const isGeminiTool = (tool: Readonly<Record<string, unknown>>): boolean =>
  'functionDeclarations' in tool || Object.keys(tool).some((key) => BUILT_IN.has(key));

const EXPECTED = 'a Gemini tool { functionDeclarations: [{ name, description?, parameters? }] }';

/** Gemini's `Type` values (`STRING`, `OBJECT`, …) as JSON Schema's lowercase `type`. */
function lowercaseTypes(schema: JsonValue): JsonValue {
  if (Array.isArray(schema)) return schema.map(lowercaseTypes);
  if (typeof schema !== 'object' || schema === null) return schema;
  // fromEntries defines own properties, so a property named `__proto__` stays one.
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === 'type' && typeof value === 'string' ? value.toLowerCase() : lowercaseTypes(value),
    ]),
  );
}

/** The definitions one Gemini tool holds (checked by the caller to be a plain object). */
export function geminiToolDefinitions(
  tool: Readonly<Record<string, unknown>>,
  where: string,
  index: number,
): ToolDefinition[] {
  const keys = Object.keys(tool).filter((key) => tool[key] !== undefined);
  if (keys.length === 0 || !keys.every((key) => key === 'functionDeclarations' || BUILT_IN.has(key))) {
    throw invalidTools(where, `${EXPECTED} or a built-in tool (${[...BUILT_IN].join(', ')})`, tool, index);
  }
  const definitions: ToolDefinition[] = [];
  if (tool.functionDeclarations !== undefined) {
    const declarations = tool.functionDeclarations;
    if (!Array.isArray(declarations)) {
      throw invalidTools(
        `${where}.functionDeclarations`,
        'an array of { name, description?, parameters? }',
        declarations,
        index,
      );
    }
    declarations.forEach((entry: unknown, i) => {
      const at = `${where}.functionDeclarations[${i}]`;
      const declaration = objectAt(entry, at, '{ name, description?, parameters? }', index);
      const { parameters, parametersJsonSchema } = declaration;
      const schema =
        parametersJsonSchema !== undefined
          ? checkToolSchema(parametersJsonSchema, `${at}.parametersJsonSchema`, index)
          : parameters === undefined
            ? undefined
            : (lowercaseTypes(checkToolSchema(parameters, `${at}.parameters`, index)) as ToolSchema);
      definitions.push(
        toolDefinition(
          { name: declaration.name, description: declaration.description, parameters: schema },
          at,
          index,
        ),
      );
    });
  }
  for (const key of keys) if (BUILT_IN.has(key)) definitions.push({ name: key, parameters: {} });
  return definitions;
}

/**
 * Converts Gemini tools to neutral tool definitions (TOK-2): each function declaration keeps
 * its name, description and schema (`parameters` with Gemini's uppercase types read as JSON
 * Schema, or `parametersJsonSchema`); a built-in tool (`googleSearch`, `codeExecution`, …)
 * counts by name.
 *
 * @param tools - The `tools` array of a request (`config.tools`), or one `{ functionDeclarations }`.
 * @returns The definitions in order.
 * @throws ChatfoldError `E_INVALID_TOOLS` naming the index and what was expected.
 * @example
 * countTokens(messages, { model: 'gemini-2.5-flash', tools: toolsFromGemini(config.tools) });
 */
export function toolsFromGemini(
  tools: readonly GeminiToolDefinition[] | GeminiToolDefinition,
): ToolDefinition[] {
  if (!Array.isArray(tools)) {
    return geminiToolDefinitions(objectAt(tools, 'tools', `an array of ${EXPECTED}`, 0), 'tools', 0);
  }
  return readToolArray(tools, EXPECTED, geminiToolDefinitions);
}
