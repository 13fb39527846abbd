import { z } from 'zod';
import {
  answerRecall,
  RECALL_LIMITS,
  RECALL_TOOL_NAME,
  type RecallSource,
  recallToolDefinition,
} from '../session/recall.ts';
import type { AgentTool } from './types.ts';

export { RECALL_TOOL_NAME };

// The neutral definition's schema and descriptions, as a Zod schema the AI SDK reads.
const properties = recallToolDefinition.parameters.properties as Record<string, { description?: string }>;
const inputSchema = z.strictObject({
  ids: z
    .array(z.string())
    .optional()
    .describe(properties.ids?.description ?? ''),
  query: z
    .string()
    .optional()
    .describe(properties.query?.description ?? ''),
  limit: z.number().int().min(1).max(RECALL_LIMITS.maxMessages).optional(),
});

/** What the model sends `chatfold_recall`. */
export type RecallToolInput = z.infer<typeof inputSchema>;

/**
 * `chatfold_recall` as an agent tool (issue 21): the model asks for the messages a summary,
 * omission marker or placeholder names by id (or searches the full history by a query), and
 * gets the originals back from the session. `createAgent({ recall: true })` adds it under its
 * name; give it to `tools` yourself to offer it over another session.
 *
 * @param session The session whose full history answers (or anything with its `history`).
 * @returns The tool, to put under {@link RECALL_TOOL_NAME} in an agent's `tools`.
 *
 * @example
 * const agent = await createAgent({ model, tools: { chatfold_recall: recallAgentTool(session) } });
 */
export function recallAgentTool(session: RecallSource): AgentTool<RecallToolInput> {
  return {
    description: recallToolDefinition.description as string,
    inputSchema,
    execute: (input) => answerRecall(session, input),
  };
}
