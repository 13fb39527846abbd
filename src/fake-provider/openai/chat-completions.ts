import { fromOpenAI, type OpenAIMessage } from '../../messages/openai.ts';
import type { Message, ToolDefinition } from '../../messages/types.ts';
import { asObject, type ChatTurn, failureResponse, fakeId, runChatTurn, streamPieces } from '../chat-turn.ts';
import type { FakeResponse, FakeRoute, SseEvent } from '../server.ts';
import { openaiContextOverflow, openaiError } from './errors.ts';

type Answer = Extract<ChatTurn, { type: 'answer' }>;

function toolsOf(value: unknown): ToolDefinition[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((tool) => {
    const fn = asObject(asObject(tool)?.function);
    if (typeof fn?.name !== 'string') return [];
    const parameters = (asObject(fn.parameters) ?? {}) as ToolDefinition['parameters'];
    return [
      typeof fn.description === 'string'
        ? { name: fn.name, description: fn.description, parameters }
        : { name: fn.name, parameters },
    ];
  });
}

const usageOf = (turn: Answer) => ({
  prompt_tokens: turn.inputTokens,
  completion_tokens: turn.outputTokens,
  total_tokens: turn.inputTokens + turn.outputTokens,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
});

const finishReason = (turn: Answer) => (turn.toolCalls.length > 0 ? 'tool_calls' : 'stop');

function completion(id: string, model: string, turn: Answer): FakeResponse {
  const toolCalls = turn.toolCalls.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    status: 200,
    timing: turn.timing,
    body: {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: turn.text === '' && toolCalls.length > 0 ? null : turn.text,
            refusal: null,
            annotations: [],
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: finishReason(turn),
        },
      ],
      usage: usageOf(turn),
      service_tier: 'default',
      system_fingerprint: 'fp_chatfold_fake',
    },
  };
}

/** The SSE stream of `stream: true`: role, content deltas, tool-call deltas, finish, usage, `[DONE]`. */
function chunks(id: string, model: string, turn: Answer, includeUsage: boolean): FakeResponse {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], usage?: unknown) =>
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      service_tier: 'default',
      system_fingerprint: 'fp_chatfold_fake',
      choices,
      ...(includeUsage ? { usage: usage ?? null } : {}),
    });
  const delta = (value: unknown, finish: string | null = null) => ({
    index: 0,
    delta: value,
    logprobs: null,
    finish_reason: finish,
  });
  const events: SseEvent[] = [{ data: chunk([delta({ role: 'assistant', content: '', refusal: null })]) }];
  for (const piece of streamPieces(turn.text)) events.push({ data: chunk([delta({ content: piece })]) });
  turn.toolCalls.forEach((call, index) => {
    events.push({
      data: chunk([
        delta({
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        }),
      ]),
    });
    events.push({
      data: chunk([delta({ tool_calls: [{ index, function: { arguments: call.arguments } }] })]),
    });
  });
  events.push({ data: chunk([delta({}, finishReason(turn))]) });
  if (includeUsage) events.push({ data: chunk([], usageOf(turn)) });
  events.push({ data: '[DONE]' });
  return { status: 200, events, timing: turn.timing };
}

/**
 * OpenAI Chat Completions `POST /v1/chat/completions` (platform.openai.com, "Create chat
 * completion"): `{ model, messages, tools?, stream?, stream_options? }` → a `chat.completion`,
 * or with `stream: true` `chat.completion.chunk` events ending in `data: [DONE]`, with a last
 * usage chunk (empty `choices`) when `stream_options.include_usage` is set. Prompts over the
 * context limit get the real `context_length_exceeded` error.
 */
export const openaiChatCompletions: FakeRoute = {
  method: 'POST',
  path: /^\/v1\/chat\/completions$/,
  error: openaiError,
  handle(request, { behaviour }) {
    const auth = request.headers.authorization;
    if (auth === undefined || !/^Bearer \S+/.test(auth))
      return openaiError(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        { code: null },
      );
    const body = asObject(request.body);
    if (body === undefined) return openaiError(400, 'We could not parse the JSON body of your request.');
    if (typeof body.model !== 'string' || body.model === '')
      return openaiError(400, 'you must provide a model parameter');
    if (!Array.isArray(body.messages))
      return openaiError(400, "Missing required parameter: 'messages'.", {
        param: 'messages',
        code: 'missing_required_parameter',
      });
    if (body.messages.length === 0)
      return openaiError(
        400,
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        { param: 'messages', code: 'empty_array' },
      );
    let messages: Message[];
    try {
      messages = fromOpenAI(body.messages as OpenAIMessage[]);
    } catch (error) {
      return openaiError(
        400,
        `Invalid 'messages': ${error instanceof Error ? error.message : String(error)}`,
        {
          param: 'messages',
        },
      );
    }
    const stream = body.stream === true;
    const turn = runChatTurn(
      { provider: 'openai', model: body.model, messages, tools: toolsOf(body.tools), stream, request },
      behaviour,
      'call_',
    );
    if (turn.type === 'overflow') return openaiContextOverflow(turn.limit, turn.actual);
    if (turn.type === 'failure') return failureResponse(openaiError, turn);
    const id = fakeId('chatcmpl-');
    if (!stream) return completion(id, body.model, turn);
    return chunks(id, body.model, turn, asObject(body.stream_options)?.include_usage === true);
  },
};
