import type { FlexibleSchema, ToolSet } from 'ai';
import type { JsonValue, ToolDefinition } from '../messages/types.ts';
import type { AgentTool, AgentToolOutput } from './types.ts';

type AiSdk = typeof import('ai');

/** The agent's tools twice: as the AI SDK sends them, and as chatfold counts them (TRG-1). */
export interface PreparedTools {
  /** Definitions without `execute`: the runtime runs tools itself, one at a time, appending each result. */
  readonly sdkTools: ToolSet;
  readonly definitions: readonly ToolDefinition[];
}

/**
 * Turns agent tools into AI SDK tool definitions (no `execute`: the loop runs them, so every
 * result is appended as it happens and an abort stops between tools) and chatfold tool
 * definitions (JSON Schema, counted against the budget).
 */
export async function prepareTools(
  ai: AiSdk,
  tools: Readonly<Record<string, AgentTool<unknown>>>,
): Promise<PreparedTools> {
  const sdkTools: ToolSet = {};
  const definitions: ToolDefinition[] = [];
  for (const [name, tool] of Object.entries(tools)) {
    sdkTools[name] = ai.tool({
      description: tool.description,
      inputSchema: tool.inputSchema as FlexibleSchema<unknown>,
    }) as ToolSet[string];
    const schema = await ai.asSchema(tool.inputSchema as FlexibleSchema<unknown>).jsonSchema;
    definitions.push({
      name,
      description: tool.description,
      parameters: JSON.parse(JSON.stringify(schema)) as { [key: string]: JsonValue },
    });
  }
  return { sdkTools, definitions };
}

/** A tool's return value in one shape. */
export function toolOutputOf(value: AgentToolOutput | string): AgentToolOutput {
  return typeof value === 'string' ? { output: value } : value;
}
