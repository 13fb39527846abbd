import type { ToolDefinition } from '../../messages/types.ts';
import { asObject } from '../chat-turn.ts';

/** Anthropic `tools: [{ name, description?, input_schema }]` as chatfold tool definitions. */
export function anthropicTools(value: unknown): ToolDefinition[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry) => {
    const tool = asObject(entry);
    if (typeof tool?.name !== 'string') return [];
    const parameters = (asObject(tool.input_schema) ?? {}) as ToolDefinition['parameters'];
    return [
      typeof tool.description === 'string'
        ? { name: tool.name, description: tool.description, parameters }
        : { name: tool.name, parameters },
    ];
  });
}
