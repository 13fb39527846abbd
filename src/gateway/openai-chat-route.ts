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
import { resolveRecall, type UpstreamAnswer } from './openai-recall.ts';
import { collectOpenAIStream, type OpenAIReply, openAIReplyFromCompletion } from './openai-reply.ts';
import { openAIRecallTool, recallToolDefinition } from './recall-tool.ts';
import { readJsonBody, requestEvent, streamThrough } from './route-support.ts';
import { passedResponseHeaders } from './upstream.ts';
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
  // Recall is answered by the gateway between two upstream calls: only when the answer is whole.
  const recall = runtime.recall && !stream;
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
  const { response, conversation, prepared } = forwarded;
  const headers = passedResponseHeaders(response.headers);
  for (const [name, value] of Object.entries(runtime.headers(conversation, prepared)))
    headers.set(name, value);
  const report = (status: number) =>
    runtime.emit(requestEvent({ format: 'openai', route, model, stream, status, forwarded, started }));
  if (stream && response.body !== null) {
    const collector = collectOpenAIStream();
    report(response.status);
    return new Response(
      streamThrough(
        response.body,
        (event) => collector.push(event.data),
        async () => {
          const reply = collector.result();
          await runtime.recordReply(conversation, neutralReply(runtime, reply), reply);
        },
        runtime,
        conversation.sessionId,
      ),
      { status: response.status, headers },
    );
  }
  let answer: UpstreamAnswer = {
    status: response.status,
    headers: response.headers,
    text: await response.text(),
  };
  if (recall) {
    try {
      answer = await resolveRecall({
        runtime,
        conversation,
        projection: prepared.messages,
        body: sent,
        first: answer,
        incoming: context.get('incoming'),
        signal: context.req.raw.signal,
      });
    } catch (error) {
      return forwardErrorResponse(runtime, 'openai', model, error);
    }
  }
  const text = answer.text;
  let reply: OpenAIReply = {};
  try {
    reply = openAIReplyFromCompletion(JSON.parse(text));
  } catch {
    // Not JSON: passed on as it came; nothing to store.
  }
  try {
    await runtime.recordReply(conversation, neutralReply(runtime, reply), reply);
  } catch {
    runtime.emit({ type: 'reply-not-recorded', sessionId: conversation.sessionId, reason: 'store error' });
  }
  report(answer.status);
  return new Response(text, { status: answer.status, headers });
}
