import { z } from 'zod';
import { AGENT_FILE_ALIASES } from './agent-file-aliases.ts';
import { agentFileSchema } from './agent-file-schema.ts';

/**
 * The JSON Schema of agent files (AG-1), generated from the same zod schema that validates
 * them, for editor completion (`# yaml-language-server: $schema=…` or a `$schema` key).
 * `examples/agents/agent-file.schema.json` is this, written out (a test keeps it current).
 */
export function agentFileJsonSchema(): Record<string, unknown> {
  const schema = {
    ...z.toJSONSchema(agentFileSchema, { io: 'input', target: 'draft-2020-12' }),
    title: 'chatfold agent file',
  } as JsonObject;
  // The documents' spellings validate in editors too: each alias is the key's schema, marked.
  for (const { alias, key } of AGENT_FILE_ALIASES) {
    const target = propertyAt(schema, key);
    const section = alias.length === 1 ? schema : propertyAt(schema, alias.slice(0, -1));
    const properties = section?.properties as Record<string, JsonObject> | undefined;
    if (target === undefined || properties === undefined) continue;
    properties[alias[alias.length - 1] as string] = {
      ...target,
      description: `Same as ${key.join('.')}${typeof target.description === 'string' ? `: ${target.description}` : ''}`,
    };
  }
  return schema;
}

type JsonObject = Record<string, unknown>;

/** The JSON Schema of the property at a key path (through `properties`). */
function propertyAt(schema: JsonObject, path: readonly string[]): JsonObject | undefined {
  let current: JsonObject | undefined = schema;
  for (const key of path) current = (current?.properties as Record<string, JsonObject> | undefined)?.[key];
  return current;
}
