import type { JsonValue, ToolDefinition } from '../types.ts';
import { invalidTools, objectAt, readToolArray, toolDefinition } from './tool-schema.ts';

/** An OpenAI Chat Completions tool (`tools[]` of a request). */
export type OpenAIToolDefinition =
  | {
      readonly type: 'function';
      readonly function: {
        readonly name: string;
        readonly description?: string;
        readonly parameters?: { readonly [key: string]: JsonValue };
        readonly strict?: boolean | null;
      };
    }
  | {
      readonly type: 'custom';
      readonly custom: { readonly name: string; readonly description?: string; readonly format?: JsonValue };
    };

const EXPECTED = "an OpenAI tool { type: 'function', function: { name, description?, parameters? } }";

/** One OpenAI tool (checked by the caller to be a plain object). */
export function openAIToolDefinition(
  tool: Readonly<Record<string, unknown>>,
  where: string,
  index: number,
): ToolDefinition {
  if (tool.type === 'function' && 'function' in tool) {
    const fn = objectAt(tool.function, `${where}.function`, '{ name, description?, parameters? }', index);
    return toolDefinition(fn, `${where}.function`, index);
  }
  if (tool.type === 'custom') {
    // A free-form (grammar) tool: counted by name and description, as provider tools are.
    const custom = objectAt(tool.custom, `${where}.custom`, '{ name, description?, format? }', index);
    return toolDefinition({ name: custom.name, description: custom.description }, `${where}.custom`, index);
  }
  throw invalidTools(where, EXPECTED, tool, index);
}

/**
 * Converts OpenAI Chat Completions tools to neutral tool definitions (TOK-2): a function tool
 * keeps its name, description and `parameters` schema; a custom (free-form) tool counts by
 * name and description.
 *
 * @param tools - The `tools` array of a request.
 * @returns One definition per tool, in order.
 * @throws ChatfoldError `E_INVALID_TOOLS` naming the index and what was expected.
 * @example
 * countTokens(messages, { model: 'gpt-4o', tools: toolsFromOpenAI(request.tools) });
 */
export function toolsFromOpenAI(tools: readonly OpenAIToolDefinition[]): ToolDefinition[] {
  return readToolArray(tools, EXPECTED, openAIToolDefinition);
}
