/**
 * `chatfold_recall` in the gateway's wire formats (issue 21). The tool itself — its neutral
 * definition and {@link answerRecall} over a session's full history — lives with sessions
 * (`src/session/recall.ts`), so `chatfold/agent` and library users offer the same one.
 */
import { recallToolDefinition } from '../session/recall.ts';

export type { RecallSource } from '../session/recall.ts';
export { answerRecall, RECALL_LIMITS, RECALL_TOOL_NAME, recallToolDefinition } from '../session/recall.ts';

/** The tool as an OpenAI Chat Completions `tools[]` entry. */
export const openAIRecallTool = Object.freeze({
  type: 'function' as const,
  function: {
    name: recallToolDefinition.name,
    description: recallToolDefinition.description as string,
    parameters: recallToolDefinition.parameters,
  },
});
