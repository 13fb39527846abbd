import type { JsonValue, ToolDefinition } from '../types.ts';
import { invalidTools, readToolArray, toolDefinition } from './tool-schema.ts';

/**
 * An Anthropic Messages tool: a custom tool with its `input_schema`, or a server tool
 * (`{ type: 'web_search_20250305', name: 'web_search', … }`).
 */
export type AnthropicToolDefinition =
  | {
      readonly name: string;
      readonly description?: string;
      readonly input_schema: { readonly [key: string]: JsonValue };
      readonly type?: 'custom' | null;
      readonly cache_control?: JsonValue;
    }
  | { readonly type: string; readonly name: string; readonly [key: string]: JsonValue | undefined };

const EXPECTED = 'an Anthropic tool { name, description?, input_schema }';

/** One Anthropic tool (checked by the caller to be a plain object). */
export function anthropicToolDefinition(
  tool: Readonly<Record<string, unknown>>,
  where: string,
  index: number,
): ToolDefinition {
  if ('input_schema' in tool) {
    return toolDefinition(
      { name: tool.name, description: tool.description, parameters: tool.input_schema ?? undefined },
      where,
      index,
      'input_schema',
    );
  }
  // A server tool (bash, web search, text editor…): its schema is Anthropic's, so it counts by
  // name, as provider tools do everywhere in chatfold.
  if (typeof tool.type === 'string' && tool.type !== 'custom' && typeof tool.name === 'string') {
    return toolDefinition({ name: tool.name }, where, index);
  }
  throw invalidTools(where, EXPECTED, tool, index);
}

/**
 * Converts Anthropic Messages tools to neutral tool definitions (TOK-2): a custom tool keeps
 * its name, description and `input_schema`; a server tool counts by name.
 *
 * @param tools - The `tools` array of a request.
 * @returns One definition per tool, in order.
 * @throws ChatfoldError `E_INVALID_TOOLS` naming the index and what was expected.
 * @example
 * countTokens(messages, { model: 'claude-sonnet-4-5', tools: toolsFromAnthropic(request.tools) });
 */
export function toolsFromAnthropic(tools: readonly AnthropicToolDefinition[]): ToolDefinition[] {
  return readToolArray(tools, EXPECTED, anthropicToolDefinition);
}
