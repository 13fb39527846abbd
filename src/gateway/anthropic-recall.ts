/**
 * The gateway's side of `chatfold_recall` for Anthropic Messages (issue 21): when the model's
 * answer uses only the `chatfold_recall` tool, the gateway answers from the session's full
 * history and asks again with the tool use and its results after the projection. The client
 * never sees the exchange and it is not stored. An answer that mixes recall with the client's
 * own tools loses the recall blocks.
 */
import { toAnthropic } from '../messages/anthropic.ts';
import { MAX_RECALL_ROUNDS, type RecallRounds, type UpstreamAnswer } from './openai-recall.ts';
import { answerRecall, RECALL_TOOL_NAME, recallToolDefinition } from './recall-tool.ts';

type Json = Record<string, unknown>;

/** The tool as an Anthropic Messages `tools[]` entry. */
export const anthropicRecallTool = Object.freeze({
  name: recallToolDefinition.name,
  description: recallToolDefinition.description as string,
  input_schema: recallToolDefinition.parameters,
});

function readContent(text: string): { body: Json; content: Json[] } | undefined {
  try {
    const body = JSON.parse(text) as Json;
    return Array.isArray(body.content) ? { body, content: body.content as Json[] } : undefined;
  } catch {
    return undefined;
  }
}

const isToolUse = (block: Json): boolean => block.type === 'tool_use';
const isRecall = (block: Json): boolean => isToolUse(block) && block.name === RECALL_TOOL_NAME;

/** The answer without recall tool uses (the client does not know the tool). */
function withoutRecall(answer: UpstreamAnswer): UpstreamAnswer {
  const read = readContent(answer.text);
  if (read === undefined || !read.content.some(isRecall)) return answer;
  const content = read.content.filter((block) => !isRecall(block));
  const stillUsesTools = content.some(isToolUse);
  return {
    ...answer,
    text: JSON.stringify({ ...read.body, content, ...(stillUsesTools ? {} : { stop_reason: 'end_turn' }) }),
  };
}

/**
 * Answers recall tool uses until the model answers without them (at most `MAX_RECALL_ROUNDS`).
 *
 * @returns The answer for the client.
 */
export async function resolveAnthropicRecall({
  runtime,
  conversation,
  projection,
  body,
  first,
  incoming,
  signal,
}: RecallRounds): Promise<UpstreamAnswer> {
  let answer = first;
  const exchange: Json[] = [];
  for (let round = 0; round < MAX_RECALL_ROUNDS; round++) {
    const read = readContent(answer.text);
    const uses = read?.content.filter(isToolUse) ?? [];
    if (read === undefined || uses.length === 0 || !uses.every(isRecall)) break;
    const results = await Promise.all(
      uses.map(async (use) => ({
        type: 'tool_result',
        tool_use_id: use.id,
        content: await answerRecall(conversation.session, use.input ?? {}),
      })),
    );
    runtime.emit({ type: 'recall', sessionId: conversation.sessionId, calls: uses.length });
    exchange.push({ role: 'assistant', content: read.content }, { role: 'user', content: results });
    const { system, messages } = toAnthropic(projection, { cache: conversation.cache });
    const response = await runtime.send({
      format: 'anthropic',
      path: '/messages',
      body: JSON.stringify({
        ...body,
        ...(system === undefined ? {} : { system }),
        messages: [...messages, ...exchange],
      }),
      incoming,
      ...(signal === undefined ? {} : { signal }),
    });
    answer = { status: response.status, headers: response.headers, text: await response.text() };
  }
  return withoutRecall(answer);
}
