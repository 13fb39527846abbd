import { z } from 'zod';
import { agentFileSchema } from './agent-file-schema.ts';

/**
 * The JSON Schema of agent files (AG-1), generated from the same zod schema that validates
 * them, for editor completion (`# yaml-language-server: $schema=…` or a `$schema` key).
 * `examples/agents/agent-file.schema.json` is this, written out (a test keeps it current).
 */
export function agentFileJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(agentFileSchema, { io: 'input', target: 'draft-2020-12' }),
    title: 'chatfold agent file',
  };
}
