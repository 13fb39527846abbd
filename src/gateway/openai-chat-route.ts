/**
 * `POST /v1/chat/completions` (issue 21): the OpenAI Chat Completions API in front of any
 * OpenAI-compatible upstream. The request's history is mapped to a session, the projection
 * replaces `messages`, every other field goes upstream as sent, and the upstream's answer —
 * a JSON completion or an SSE stream — comes back byte for byte, with the gateway's headers.
 */
import type { Context } from 'hono';
import { contentHash } from '../messages/content-hash.ts';
import { fromOpenAI, type OpenAIMessage, toOpenAI } from '../messages/openai.ts';
import { type OpenAIToolDefinition, toolsFromOpenAI } from '../messages/tools/openai-tools.ts';
import type { Message, ToolDefinition } from '../messages/types.ts';
import { forwardErrorResponse } from './forward-errors.ts';
import type { GatewayVariables } from './gateway-auth.ts';
import type { GatewayRuntime } from './gateway-runtime.ts';
import { resolveRecall } from './openai-recall.ts';
import { streamOpenAIRecall } from './openai-recall-stream.ts';
import { collectOpenAIStream, type OpenAIReply, openAIReplyFromCompletion } from './openai-reply.ts';
import { openAIRecallTool, recallToolDefinition } from './recall-tool.ts';
import { answerForwarded, readJsonBody } from './route-support.ts';
import { wireError } from './wire-errors.ts';

type Json = Record<string, unknown>;

/** The history cache's key: the named session, else the wire head (system prompt and first user turn). */
function historyScope(
  wire: readonly Json[],
  sessionHeader: string | undefined,
  route: string | undefined,
): string {
  if (sessionHeader !== undefined) return `${route ?? ''}\nsession\n${sessionHeader}`;
  const firstUser = wire.findIndex((message) => message?.role === 'user');
  return `${route ?? ''}\nhead\n${contentHash(JSON.stringify(wire.slice(0, firstUser < 0 ? wire.length : firstUser + 1)))}`;
}

/** The reply as a neutral message, or undefined when there is none or it does not convert. */
function neutralReply(runtime: GatewayRuntime, reply: OpenAIReply): Message | undefined {
  if (reply.message === undefined) return undefined;
  try {
    return fromOpenAI([reply.message])[0];
  } catch {
    runtime.emit({ type: 'error', where: 'openai-reply', code: 'E_INVALID_MESSAGE' });
    return undefined;
  }
}

/**
 * Handles one Chat Completions request.
 *
 * @param runtime The shared request path.
 * @param context The Hono context.
 * @param route The route name when the client used `/<route>/v1`.
 */
export async function openAIChatCompletions(
  runtime: GatewayRuntime,
  context: Context<{ Variables: GatewayVariables }>,
  route: string | undefined,
): Promise<Response> {
  const started = performance.now();
  const parsed = await readJsonBody(context, 'openai');
  if (parsed instanceof Response) return parsed;
  const body = parsed as Json;
  if (typeof body.model !== 'string' || !Array.isArray(body.messages)) {
    return wireError(
      'openai',
      400,
      'E_INVALID_MESSAGES',
      'expected a Chat Completions request: { model: string, messages: [...] }',
    );
  }
  const model = body.model;
  const stream = body.stream === true;
  const sessionHeader = context.req.header('x-chatfold-session') || undefined;
  // Recall is answered by the gateway between two upstream calls, inside the client's stream
  // when it streams.
  const recall = runtime.recall;
  const sent = recall
    ? { ...body, tools: [...(Array.isArray(body.tools) ? (body.tools as unknown[]) : []), openAIRecallTool] }
    : body;
  let messages: Message[];
  let tools: ToolDefinition[] | undefined;
  try {
    messages = runtime.openAIHistory.convert(
      historyScope(body.messages as Json[], sessionHeader, route),
      body.messages as OpenAIMessage[],
    );
    tools = Array.isArray(body.tools) ? toolsFromOpenAI(body.tools as OpenAIToolDefinition[]) : undefined;
    if (recall) tools = [...(tools ?? []), recallToolDefinition];
  } catch (error) {
    return forwardErrorResponse(runtime, 'openai', model, error);
  }
  let forwarded: Awaited<ReturnType<GatewayRuntime['forward']>>;
  try {
    forwarded = await runtime.forward({
      format: 'openai',
      provider: 'openai',
      route,
      model,
      messages,
      tools,
      sessionHeader,
      incoming: context.get('incoming'),
      path: '/chat/completions',
      body: (projection, cache) => JSON.stringify({ ...sent, messages: toOpenAI(projection, { cache }) }),
      signal: context.req.raw.signal,
      startedAt: started,
    });
  } catch (error) {
    return forwardErrorResponse(runtime, 'openai', model, error);
  }
  // What a recall round needs: the projection and the request body as they were sent.
  const rounds = {
    runtime,
    conversation: forwarded.conversation,
    projection: forwarded.prepared.messages,
    body: sent,
    incoming: context.get('incoming'),
    signal: context.req.raw.signal,
  };
  return answerForwarded({
    runtime,
    format: 'openai',
    route,
    model,
    stream,
    started,
    forwarded,
    reader: {
      collect: collectOpenAIStream,
      parse: openAIReplyFromCompletion,
      toMessage: (reply) => neutralReply(runtime, reply),
    },
    streamRecall: recall ? (first) => streamOpenAIRecall({ ...rounds, first }) : undefined,
    recall: recall ? (first) => resolveRecall({ ...rounds, first }) : undefined,
  });
}
