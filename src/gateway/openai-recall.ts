/**
 * The gateway's side of `chatfold_recall` for Chat Completions (issue 21): when the model's
 * answer calls only `chatfold_recall`, the gateway answers the calls from the session's full
 * history and asks the upstream again with the calls and their results after the projection —
 * the client never sees the exchange, and it is not stored (the client's history stays the
 * session's). An answer that mixes recall with the client's own tools loses the recall calls.
 */

import { toOpenAI } from '../messages/openai.ts';
import type { Message } from '../messages/types.ts';
import type { Conversation, GatewayRuntime } from './gateway-runtime.ts';
import { answerRecall, RECALL_TOOL_NAME } from './recall-tool.ts';

/** Recall rounds per request at most; then the last answer goes to the client as it is. */
export const MAX_RECALL_ROUNDS = 3;

type Json = Record<string, unknown>;

/** An upstream answer: status, headers and body text. */
export interface UpstreamAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

interface Call {
  readonly id: string;
  readonly function?: { readonly name?: string; readonly arguments?: string };
}

function firstMessage(text: string): { body: Json; message: Json; calls: Call[] } | undefined {
  try {
    const body = JSON.parse(text) as Json;
    const choice = (body.choices as Json[] | undefined)?.[0];
    const message = choice?.message as Json | undefined;
    if (message === undefined) return undefined;
    return { body, message, calls: Array.isArray(message.tool_calls) ? (message.tool_calls as Call[]) : [] };
  } catch {
    return undefined;
  }
}

export const isRecall = (call: Call): boolean => call.function?.name === RECALL_TOOL_NAME;

/** The text an answer's first choice carries (what the model wrote beside its calls). */
function saidIn(text: string): string {
  const content = firstMessage(text)?.message.content;
  return typeof content === 'string' ? content : '';
}

/**
 * The answer with the recall calls taken out of its first choice (the client does not know the
 * tool), after the text the model wrote in the rounds before it — as a streamed answer shows it.
 */
function withoutRecallCalls(answer: UpstreamAnswer, earlier: string): UpstreamAnswer {
  const read = firstMessage(answer.text);
  if (read === undefined || (!read.calls.some(isRecall) && earlier === '')) return answer;
  const kept = read.calls.filter((call) => !isRecall(call));
  const { tool_calls: _calls, ...message } = read.message;
  const content = typeof message.content === 'string' ? message.content : '';
  const said = earlier === '' ? message : { ...message, content: `${earlier}${content}` };
  const choices = [...(read.body.choices as Json[])];
  choices[0] = {
    ...(choices[0] as Json),
    message: kept.length === 0 ? said : { ...said, tool_calls: kept },
    ...(kept.length === 0 ? { finish_reason: 'stop' } : {}),
  };
  return { ...answer, text: JSON.stringify({ ...read.body, choices }) };
}

/** What a recall loop needs (Chat Completions and Messages alike). */
export interface RecallRounds {
  readonly runtime: GatewayRuntime;
  readonly conversation: Conversation;
  /** The projection the first call sent. */
  readonly projection: readonly Message[];
  /** The request body as sent upstream, the recall tool included (Messages: without `system` and `messages`). */
  readonly body: Json;
  readonly first: UpstreamAnswer;
  readonly incoming: Headers;
  readonly signal?: AbortSignal | undefined;
}

/** How one wire format reads an answer's recall calls and sends their results back. */
export interface RecallDialect {
  readonly format: 'openai' | 'anthropic';
  readonly path: string;
  /**
   * The next round's turns (the model's call and the results) and how many calls they answer;
   * undefined when the answer has no recall call or also calls the client's tools.
   */
  readonly round: (
    text: string,
  ) => Promise<{ readonly calls: number; readonly turns: readonly Json[] } | undefined>;
  /** The request body carrying the projection and the rounds so far. */
  readonly body: (exchange: readonly Json[]) => string;
  /** The text an answer carries beside its calls (kept for the client, as a stream shows it). */
  readonly said: (text: string) => string;
  /** The answer the client gets: the text of the earlier rounds, then the answer without the recall calls it does not know. */
  readonly finish: (answer: UpstreamAnswer, earlier: string) => UpstreamAnswer;
}

/**
 * Answers recall calls until the model answers without them (at most {@link MAX_RECALL_ROUNDS}),
 * in either wire format.
 *
 * @returns The answer for the client.
 */
export async function runRecallRounds(
  { runtime, conversation, first, incoming, signal }: RecallRounds,
  dialect: RecallDialect,
): Promise<UpstreamAnswer> {
  let answer = first;
  let earlier = '';
  const exchange: Json[] = [];
  for (let round = 0; round < MAX_RECALL_ROUNDS; round++) {
    const next = await dialect.round(answer.text);
    if (next === undefined) break;
    earlier += dialect.said(answer.text);
    const response = await sendRecallRound(
      { runtime, conversation, incoming, signal },
      dialect,
      exchange,
      next,
    );
    answer = { status: response.status, headers: response.headers, text: await response.text() };
  }
  return dialect.finish(answer, earlier);
}

/**
 * Asks the upstream again after a recall round (whole or streamed): emits `recall`, appends the
 * round's turns to `exchange` and sends the projection with every round so far.
 */
export function sendRecallRound(
  {
    runtime,
    conversation,
    incoming,
    signal,
  }: Pick<RecallRounds, 'runtime' | 'conversation' | 'incoming' | 'signal'>,
  dialect: Pick<RecallDialect, 'format' | 'path' | 'body'>,
  exchange: Json[],
  next: { readonly calls: number; readonly turns: readonly Json[] },
): Promise<Response> {
  runtime.emit({ type: 'recall', sessionId: conversation.sessionId, calls: next.calls });
  exchange.push(...next.turns);
  return runtime.send({
    format: dialect.format,
    path: dialect.path,
    body: dialect.body(exchange),
    incoming,
    ...(signal === undefined ? {} : { signal }),
  });
}

/**
 * The next round's turns for an assistant message whose calls are all `chatfold_recall`: the
 * message and one `tool` message per call, answered from the session; undefined otherwise.
 */
export async function openAIRecallTurns(
  conversation: Conversation,
  message: Json | undefined,
): Promise<{ readonly calls: number; readonly turns: readonly Json[] } | undefined> {
  const calls = Array.isArray(message?.tool_calls) ? (message.tool_calls as Call[]) : [];
  if (message === undefined || calls.length === 0 || !calls.every(isRecall)) return undefined;
  const results = await Promise.all(
    calls.map(async (call) => ({
      role: 'tool',
      tool_call_id: call.id,
      content: await answerRecall(conversation.session, call.function?.arguments ?? '{}'),
    })),
  );
  return { calls: calls.length, turns: [message, ...results] };
}

/** The request body of a recall round: the projection, then the rounds so far. */
export function openAIRecallBody({
  conversation,
  projection,
  body,
}: Pick<RecallRounds, 'conversation' | 'projection' | 'body'>): (exchange: readonly Json[]) => string {
  return (exchange) =>
    JSON.stringify({
      ...body,
      messages: [...toOpenAI(projection, { cache: conversation.cache }), ...exchange],
    });
}

/**
 * Answers Chat Completions recall calls until the model answers without them.
 *
 * @param options The runtime, the conversation, the projection sent, the request body (with
 *   the recall tool) and the first answer.
 * @returns The answer for the client.
 */
export function resolveRecall(options: RecallRounds): Promise<UpstreamAnswer> {
  return runRecallRounds(options, {
    format: 'openai',
    path: '/chat/completions',
    round: (text) => openAIRecallTurns(options.conversation, firstMessage(text)?.message),
    body: openAIRecallBody(options),
    said: saidIn,
    finish: withoutRecallCalls,
  });
}
