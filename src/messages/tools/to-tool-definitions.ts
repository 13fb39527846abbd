import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { isPlainObject } from '../json-depth.ts';
import type { ToolDefinition } from '../types.ts';
import { type AiSdkToolSet, aiSdkToolDefinition } from './ai-sdk-tools.ts';
import { type AnthropicToolDefinition, anthropicToolDefinition } from './anthropic-tools.ts';
import { type GeminiToolDefinition, geminiToolDefinitions, isGeminiTool } from './gemini-tools.ts';
import { type OpenAIToolDefinition, openAIToolDefinition } from './openai-tools.ts';
import { invalidTools, readToolArray, toolDefinition } from './tool-schema.ts';

/** One tool in any shape chatfold reads. */
export type ToolInput =
  | ToolDefinition
  | OpenAIToolDefinition
  | AnthropicToolDefinition
  | GeminiToolDefinition;

/**
 * Tool definitions as callers already have them (TOK-2): an array of chatfold's
 * `{ name, description?, parameters }`, OpenAI's `{ type: 'function', function }`, Anthropic's
 * `{ name, input_schema }` or Gemini's `{ functionDeclarations }` (mixed freely), one Gemini
 * `{ functionDeclarations }`, or an AI SDK tool set `{ [name]: tool }`.
 */
export type ToolsInput = readonly ToolInput[] | GeminiToolDefinition | AiSdkToolSet;

const SHAPES =
  "a tool: { name, description?, parameters } (chatfold, OpenAI functions), { type: 'function', function: { … } } (OpenAI), { name, description?, input_schema } (Anthropic) or { functionDeclarations: [ … ] } (Gemini)";

/** The neutral definitions of one array entry, by the shape it has. */
function entryDefinitions(
  tool: Readonly<Record<string, unknown>>,
  where: string,
  index: number,
): ToolDefinition[] {
  if (isGeminiTool(tool)) return geminiToolDefinitions(tool, where, index);
  if ((tool.type === 'function' && 'function' in tool) || tool.type === 'custom') {
    return [openAIToolDefinition(tool, where, index)];
  }
  if (tool.type === 'function') {
    // The flat function shape of OpenAI's Responses API and of AI SDK language-model calls.
    const schemaKey = 'inputSchema' in tool ? 'inputSchema' : 'parameters';
    return [
      toolDefinition(
        { name: tool.name, description: tool.description, parameters: tool[schemaKey] },
        where,
        index,
        schemaKey,
      ),
    ];
  }
  if ('input_schema' in tool || (typeof tool.type === 'string' && typeof tool.name === 'string')) {
    // Anthropic's custom tools, and provider tools of any SDK (counted by name).
    return [anthropicToolDefinition(tool, where, index)];
  }
  if ('name' in tool || 'parameters' in tool) return [toolDefinition(tool, where, index)];
  throw invalidTools(where, SHAPES, tool, index);
}

/**
 * Reads tool definitions in any shape chatfold knows (see {@link ToolsInput}) as neutral
 * definitions: what `count()` and `countTokens()` do with their `tools`. The per-provider
 * converters (`toolsFromOpenAI`, `toolsFromAnthropic`, `toolsFromGemini`, `toolsFromAiSdk`)
 * read one shape only and say so in their errors.
 *
 * @param tools - The definitions.
 * @returns Neutral definitions in order (Gemini declarations flattened, tool-set keys as names).
 * @throws ChatfoldError `E_INVALID_TOOLS` naming the index (or key) and the shapes expected.
 * @example
 * toToolDefinitions([{ type: 'function', function: { name: 'ping', parameters: {} } }]);
 * // [{ name: 'ping', parameters: {} }]
 */
export function toToolDefinitions(tools: ToolsInput): ToolDefinition[] {
  try {
    return readToolDefinitions(tools);
  } catch (error) {
    if (ChatfoldError.isInstance(error)) throw error;
    // A getter or proxy trap of the caller's tools threw (issue 24 §2): say so, typed. Tools
    // hold functions and schema objects, so they are read as they are, not copied first.
    throw new ChatfoldError(
      'E_INVALID_TOOLS',
      `tools: could not be read (${error instanceof Error ? error.message.slice(0, 200) : typeof error}); pass plain tool definitions`,
      { where: 'tools' },
      { cause: error },
    );
  }
}

function readToolDefinitions(tools: ToolsInput): ToolDefinition[] {
  if (Array.isArray(tools)) return readToolArray(tools, SHAPES, entryDefinitions);
  if (!isPlainObject(tools)) {
    throw invalidTools(
      'tools',
      `an array of tools (${SHAPES}) or an AI SDK tool set { [name]: tool }`,
      tools,
    );
  }
  // Only `functionDeclarations` marks a lone Gemini tool: a tool set may name a tool `googleSearch`.
  if ('functionDeclarations' in tools) return geminiToolDefinitions(tools, 'tools', 0);
  if (
    typeof tools.name === 'string' &&
    ('parameters' in tools || 'input_schema' in tools || 'function' in tools)
  ) {
    throw invalidTools(
      'tools',
      'an array of tools or an AI SDK tool set (this is one tool: put it in an array)',
      tools,
    );
  }
  return Object.keys(tools).map((name) => aiSdkToolDefinition(tools[name], name));
}
