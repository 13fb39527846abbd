/**
 * `POST /v1/messages` and `/v1/messages/count_tokens` (issue 21): the Anthropic Messages API in
 * front of an Anthropic upstream. The request's `system` and `messages` are mapped to a session
 * and replaced by the projection; every other field goes upstream as sent; the answer (JSON
 * or the SSE event stream) comes back byte for byte.
 */
import type { Context } from 'hono';
import { fromAnthropic, toAnthropic } from '../messages/anthropic.ts';
import type { AnthropicRequestInput } from '../messages/anthropic-schema.ts';
import { contentHash } from '../messages/content-hash.ts';
import type { EngineCache } from '../messages/engine-cache.ts';
import { type AnthropicToolDefinition, toolsFromAnthropic } from '../messages/tools/anthropic-tools.ts';
import type { Message, ToolDefinition } from '../messages/types.ts';
import { anthropicRecallTool, resolveAnthropicRecall } from './anthropic-recall.ts';
import { streamAnthropicRecall } from './anthropic-recall-stream.ts';
import { type AnthropicReply, anthropicReplyFromMessage, collectAnthropicStream } from './anthropic-reply.ts';
import type { GatewayOptions } from './create-gateway.ts';
import { forwardErrorResponse } from './forward-errors.ts';
import type { GatewayVariables } from './gateway-auth.ts';
import type { GatewayRuntime } from './gateway-runtime.ts';
import { recallToolDefinition } from './recall-tool.ts';
import { answerForwarded, readJsonBody } from './route-support.ts';
import { passedResponse, sendUpstream, type UpstreamAuth, upstreamHeaders, upstreamUrl } from './upstream.ts';
import { wireError } from './wire-errors.ts';

type Json = Record<string, unknown>;
type GatewayContext = Context<{ Variables: GatewayVariables }>;

/** The request's conversation and tools in neutral form, or the error response. */
function readRequest(
  runtime: GatewayRuntime,
  body: Json,
  scope: string | undefined,
): { model: string; messages: Message[]; tools: ToolDefinition[] | undefined } | Response {
  if (typeof body.model !== 'string' || !Array.isArray(body.messages)) {
    return wireError(
      'anthropic',
      400,
      'E_INVALID_MESSAGES',
      'expected a Messages request: { model: string, messages: [...], max_tokens: number }',
    );
  }
  try {
    return {
      model: body.model,
      messages:
        scope === undefined
          ? fromAnthropic(body as unknown as AnthropicRequestInput)
          : runtime.anthropicHistory.convert(scope, body as unknown as AnthropicRequestInput),
      tools: Array.isArray(body.tools)
        ? toolsFromAnthropic(body.tools as AnthropicToolDefinition[])
        : undefined,
    };
  } catch (error) {
    return forwardErrorResponse(runtime, 'anthropic', body.model, error);
  }
}

/** The history cache's key: the named session, else the head (system prompt and first turn). */
function historyScope(body: Json, sessionHeader: string | undefined, route: string | undefined): string {
  if (sessionHeader !== undefined) return `${route ?? ''}\nsession\n${sessionHeader}`;
  const first = Array.isArray(body.messages) ? (body.messages as unknown[])[0] : undefined;
  return `${route ?? ''}\nhead\n${contentHash(JSON.stringify([body.system ?? null, first ?? null]))}`;
}

/** The request body with the projection in place of `system` and `messages`. */
function withProjection(body: Json, projection: readonly Message[], cache?: EngineCache): string {
  const { system: _system, messages: _messages, ...rest } = body;
  const { system, messages } = toAnthropic(projection, cache === undefined ? {} : { cache });
  return JSON.stringify({ ...rest, ...(system === undefined ? {} : { system }), messages });
}

function neutralReply(runtime: GatewayRuntime, reply: AnthropicReply): Message | undefined {
  if (reply.message === undefined) return undefined;
  try {
    return fromAnthropic({ messages: [reply.message] })[0];
  } catch {
    runtime.emit({ type: 'error', where: 'anthropic-reply', code: 'E_INVALID_MESSAGE' });
    return undefined;
  }
}

/**
 * Handles one Messages request.
 *
 * @param runtime The shared request path.
 * @param context The Hono context.
 * @param route The route name when the client used `/<route>/v1`.
 */
export async function anthropicMessages(
  runtime: GatewayRuntime,
  context: GatewayContext,
  route: string | undefined,
): Promise<Response> {
  const started = performance.now();
  const parsed = await readJsonBody(context, 'anthropic');
  if (parsed instanceof Response) return parsed;
  const body = parsed as Json;
  const sessionHeader = context.req.header('x-chatfold-session') || undefined;
  const request = readRequest(runtime, body, historyScope(body, sessionHeader, route));
  if (request instanceof Response) return request;
  const { model, messages } = request;
  const stream = body.stream === true;
  // Recall is answered by the gateway between two upstream calls, inside the client's stream
  // when it streams.
  const recall = runtime.recall;
  const sent = recall
    ? {
        ...body,
        tools: [...(Array.isArray(body.tools) ? (body.tools as unknown[]) : []), anthropicRecallTool],
      }
    : body;
  const tools = recall ? [...(request.tools ?? []), recallToolDefinition] : request.tools;
  let forwarded: Awaited<ReturnType<GatewayRuntime['forward']>>;
  try {
    forwarded = await runtime.forward({
      format: 'anthropic',
      provider: 'anthropic',
      route,
      model,
      messages,
      tools,
      sessionHeader,
      incoming: context.get('incoming'),
      path: '/messages',
      body: (projection, cache) => withProjection(sent, projection, cache),
      signal: context.req.raw.signal,
      startedAt: started,
    });
  } catch (error) {
    return forwardErrorResponse(runtime, 'anthropic', model, error);
  }
  const { system: _system, messages: _messages, ...withoutHistory } = sent;
  // What a recall round needs: the projection and the request body as they were sent.
  const rounds = {
    runtime,
    conversation: forwarded.conversation,
    projection: forwarded.prepared.messages,
    body: withoutHistory,
    incoming: context.get('incoming'),
    signal: context.req.raw.signal,
  };
  return answerForwarded({
    runtime,
    format: 'anthropic',
    route,
    model,
    stream,
    started,
    forwarded,
    reader: {
      collect: collectAnthropicStream,
      parse: anthropicReplyFromMessage,
      toMessage: (reply) => neutralReply(runtime, reply),
    },
    streamRecall: recall ? (first) => streamAnthropicRecall({ ...rounds, first }) : undefined,
    recall: recall ? (first) => resolveAnthropicRecall({ ...rounds, first }) : undefined,
  });
}

/**
 * `count_tokens`: the tokens of what the gateway would send for this conversation (its
 * projection), counted by the Anthropic upstream when there is one, else by chatfold.
 */
export async function anthropicCountTokens(
  runtime: GatewayRuntime,
  context: GatewayContext,
  route: string | undefined,
  options: Pick<GatewayOptions, 'upstream' | 'upstreamFormat' | 'fetch' | 'config'> & {
    readonly auth: UpstreamAuth;
  },
): Promise<Response> {
  const parsed = await readJsonBody(context, 'anthropic');
  if (parsed instanceof Response) return parsed;
  const body = parsed as Json;
  const request = readRequest(runtime, body, undefined);
  if (request instanceof Response) return request;
  try {
    const projected = await runtime.project({ ...request, route, provider: 'anthropic' });
    if ((options.upstreamFormat ?? options.config?.upstreamFormat ?? 'openai') !== 'anthropic') {
      return Response.json({ input_tokens: projected.tokens });
    }
    const response = await sendUpstream({
      url: upstreamUrl(options.upstream, '/messages/count_tokens'),
      headers: upstreamHeaders(context.get('incoming'), options.auth, 'anthropic'),
      body: withProjection(body, projected.messages),
      signal: context.req.raw.signal,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
    return passedResponse(response);
  } catch (error) {
    return forwardErrorResponse(runtime, 'anthropic', request.model, error);
  }
}
