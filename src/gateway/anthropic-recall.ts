/**
 * The gateway's side of `chatfold_recall` for Anthropic Messages (issue 21): when the model's
 * answer uses only the `chatfold_recall` tool, the gateway answers from the session's full
 * history and asks again with the tool use and its results after the projection. The client
 * never sees the exchange and it is not stored; what the model wrote beside its recall calls
 * comes first in the answer, as a stream shows it. An answer that mixes recall with the
 * client's own tools loses the recall blocks.
 */
import { toAnthropic } from '../messages/anthropic.ts';
import type { Conversation } from './gateway-runtime.ts';
import { type RecallRounds, runRecallRounds, type UpstreamAnswer } from './openai-recall.ts';
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
export const isRecallUse = (block: Json): boolean => isToolUse(block) && block.name === RECALL_TOOL_NAME;

/** The text blocks of an answer, joined (what the model wrote beside its tool uses). */
function saidIn(text: string): string {
  const content = readContent(text)?.content ?? [];
  return content
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('');
}

/**
 * The answer without recall tool uses (the client does not know the tool), after a text block
 * with what the model wrote in the rounds before it — as a streamed answer shows it.
 */
function withoutRecall(answer: UpstreamAnswer, earlier: string): UpstreamAnswer {
  const read = readContent(answer.text);
  if (read === undefined || (!read.content.some(isRecallUse) && earlier === '')) return answer;
  const content = [
    ...(earlier === '' ? [] : [{ type: 'text', text: earlier }]),
    ...read.content.filter((block) => !isRecallUse(block)),
  ];
  const stillUsesTools = content.some(isToolUse);
  return {
    ...answer,
    text: JSON.stringify({ ...read.body, content, ...(stillUsesTools ? {} : { stop_reason: 'end_turn' }) }),
  };
}

/**
 * The next round's turns for an assistant turn whose tool uses are all `chatfold_recall`: the
 * turn and a user turn with one result per use, answered from the session; undefined otherwise.
 */
export async function anthropicRecallTurns(
  conversation: Conversation,
  content: readonly Json[] | undefined,
): Promise<{ readonly calls: number; readonly turns: readonly Json[] } | undefined> {
  const uses = content?.filter(isToolUse) ?? [];
  if (content === undefined || uses.length === 0 || !uses.every(isRecallUse)) return undefined;
  const results = await Promise.all(
    uses.map(async (use) => ({
      type: 'tool_result',
      tool_use_id: use.id,
      content: await answerRecall(conversation.session, use.input ?? {}),
    })),
  );
  return {
    calls: uses.length,
    turns: [
      { role: 'assistant', content },
      { role: 'user', content: results },
    ],
  };
}

/** The request body of a recall round: the projection, then the rounds so far. */
export function anthropicRecallBody({
  conversation,
  projection,
  body,
}: Pick<RecallRounds, 'conversation' | 'projection' | 'body'>): (exchange: readonly Json[]) => string {
  return (exchange) => {
    const { system, messages } = toAnthropic(projection, { cache: conversation.cache });
    return JSON.stringify({
      ...body,
      ...(system === undefined ? {} : { system }),
      messages: [...messages, ...exchange],
    });
  };
}

/**
 * Answers Messages recall tool uses until the model answers without them.
 *
 * @returns The answer for the client.
 */
export function resolveAnthropicRecall(options: RecallRounds): Promise<UpstreamAnswer> {
  return runRecallRounds(options, {
    format: 'anthropic',
    path: '/messages',
    round: (text) => anthropicRecallTurns(options.conversation, readContent(text)?.content),
    body: anthropicRecallBody(options),
    said: saidIn,
    finish: withoutRecall,
  });
}
