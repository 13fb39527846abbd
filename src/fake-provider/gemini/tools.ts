import type { ToolDefinition } from '../../messages/types.ts';
import { asObject } from '../chat-turn.ts';

/** Gemini `tools: [{ functionDeclarations: [{ name, description?, parameters | parametersJsonSchema }] }]`. */
export function geminiTools(value: unknown): ToolDefinition[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((tool) => {
    const declarations = asObject(tool)?.functionDeclarations;
    if (!Array.isArray(declarations)) return [];
    return declarations.flatMap((entry) => {
      const declaration = asObject(entry);
      if (typeof declaration?.name !== 'string') return [];
      const parameters = (asObject(declaration.parameters) ??
        asObject(declaration.parametersJsonSchema) ??
        {}) as ToolDefinition['parameters'];
      return [
        typeof declaration.description === 'string'
          ? { name: declaration.name, description: declaration.description, parameters }
          : { name: declaration.name, parameters },
      ];
    });
  });
}
