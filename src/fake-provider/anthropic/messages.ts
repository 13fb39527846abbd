import { fromAnthropic } from '../../messages/anthropic.ts';
import type { AnthropicRequestInput } from '../../messages/anthropic-schema.ts';
import type { Message } from '../../messages/types.ts';
import { asObject, type ChatTurn, failureResponse, fakeId, runChatTurn, streamPieces } from '../chat-turn.ts';
import type { FakeResponse, FakeRoute, SseEvent } from '../server.ts';
import { anthropicContextOverflow, anthropicError } from './errors.ts';
import { anthropicTools } from './tools.ts';

type Answer = Extract<ChatTurn, { type: 'answer' }>;

function contentBlocks(turn: Answer) {
  return [
    ...(turn.text === '' ? [] : [{ type: 'text', text: turn.text }]),
    ...turn.toolCalls.map((call) => ({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: JSON.parse(call.arguments) as unknown,
    })),
  ];
}

const stopReason = (turn: Answer) => (turn.toolCalls.length > 0 ? 'tool_use' : 'end_turn');

const usage = (turn: Answer, outputTokens: number) => ({
  input_tokens: turn.inputTokens,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: outputTokens,
  service_tier: 'standard',
});

/** The SSE events of `stream: true` (docs.anthropic.com, "Streaming Messages"). */
function events(id: string, model: string, turn: Answer): FakeResponse {
  const list: SseEvent[] = [];
  const push = (type: string, data: Record<string, unknown>) =>
    list.push({ event: type, data: JSON.stringify({ type, ...data }) });
  push('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(turn, 1),
    },
  });
  push('ping', {});
  let index = 0;
  if (turn.text !== '') {
    push('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const piece of streamPieces(turn.text))
      push('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    push('content_block_stop', { index });
    index += 1;
  }
  for (const call of turn.toolCalls) {
    push('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    push('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: call.arguments } });
    push('content_block_stop', { index });
    index += 1;
  }
  push('message_delta', {
    delta: { stop_reason: stopReason(turn), stop_sequence: null },
    usage: { output_tokens: turn.outputTokens },
  });
  push('message_stop', {});
  return { status: 200, events: list, timing: turn.timing };
}

/**
 * Anthropic Messages `POST /v1/messages` (docs.anthropic.com, "Messages"): `{ model,
 * max_tokens, messages, system?, tools?, stream? }` → a `message` with text and `tool_use`
 * blocks, or with `stream: true` the `message_start` … `message_stop` events. Prompts over the
 * context limit get the real "prompt is too long: N tokens > M maximum" error.
 */
export const anthropicMessages: FakeRoute = {
  method: 'POST',
  path: /^\/v1\/messages$/,
  error: anthropicError,
  handle(request, { behaviour }) {
    const { headers } = request;
    if (headers['x-api-key'] === undefined && headers.authorization === undefined)
      return anthropicError(401, 'x-api-key header is required');
    if (headers['anthropic-version'] === undefined)
      return anthropicError(400, 'anthropic-version: header is required');
    const body = asObject(request.body);
    if (body === undefined) return anthropicError(400, 'request body must be a JSON object');
    if (typeof body.model !== 'string' || body.model === '')
      return anthropicError(400, 'model: Field required');
    if (typeof body.max_tokens !== 'number') return anthropicError(400, 'max_tokens: Field required');
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return anthropicError(400, 'messages: at least one message is required');
    let messages: Message[];
    try {
      messages = fromAnthropic(body as unknown as AnthropicRequestInput);
    } catch (error) {
      return anthropicError(400, `messages: ${error instanceof Error ? error.message : String(error)}`);
    }
    const stream = body.stream === true;
    const turn = runChatTurn(
      {
        provider: 'anthropic',
        model: body.model,
        messages,
        tools: anthropicTools(body.tools),
        stream,
        request,
      },
      behaviour,
      'toolu_',
    );
    if (turn.type === 'overflow') return anthropicContextOverflow(turn.limit, turn.actual);
    if (turn.type === 'failure') return failureResponse(anthropicError, turn);
    const id = fakeId('msg_');
    if (stream) return events(id, body.model, turn);
    return {
      status: 200,
      timing: turn.timing,
      body: {
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: contentBlocks(turn),
        stop_reason: stopReason(turn),
        stop_sequence: null,
        usage: usage(turn, turn.outputTokens),
      },
    };
  },
};
