/**
 * An Anthropic Messages server written for the gateway tests (independent of chatfold's fake
 * provider): node:http, its own token count (characters / 4 of system, messages and tools), a
 * hard limit answered with Anthropic's own "prompt is too long" error, a tool_use turn for
 * weather questions, the SSE event stream, and `count_tokens`.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { namedIds, readBody, type UpstreamRequest } from './openai-upstream.ts';

type Json = Record<string, unknown>;

export interface AnthropicUpstream {
  readonly url: string;
  readonly requests: UpstreamRequest[];
  close(): Promise<void>;
}

const tokensOf = (body: Json): number =>
  Math.ceil(JSON.stringify([body.system ?? '', body.messages ?? [], body.tools ?? []]).length / 4);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block: Json) => (block.type === 'text' ? String(block.text) : '')).join('');
}

function replyBlocks(body: Json): Json[] {
  const messages = (body.messages ?? []) as Json[];
  const last = messages.at(-1);
  const results = Array.isArray(last?.content)
    ? (last.content as Json[]).filter((block) => block.type === 'tool_result')
    : [];
  // chatfold_recall, when offered: "recall: <word>" asks for it; its result is quoted back.
  const recalled = results.find((block) => String(block.tool_use_id).startsWith('toolu_recall'));
  if (recalled !== undefined) return [{ type: 'text', text: `recalled: ${textOf(recalled.content)}` }];
  const offersRecall =
    Array.isArray(body.tools) && (body.tools as Json[]).some((tool) => tool.name === 'chatfold_recall');
  // "recall by id": the first ids a summary or marker names in the prompt, as a model reads them.
  const ids =
    offersRecall && /recall by id/.test(textOf(last?.content))
      ? namedIds(JSON.stringify([body.system, messages]))
      : undefined;
  if (ids !== undefined) {
    return [
      { type: 'text', text: 'Let me look that up. ' },
      { type: 'tool_use', id: 'toolu_recall_ids', name: 'chatfold_recall', input: { ids: [ids] } },
    ];
  }
  const asked = /recall: (\S+)/.exec(textOf(last?.content));
  if (offersRecall && asked !== null) {
    return [{ type: 'tool_use', id: 'toolu_recall_1', name: 'chatfold_recall', input: { query: asked[1] } }];
  }
  if (results.length > 0) {
    return [
      { type: 'text', text: `tools said: ${results.map((block) => textOf(block.content)).join(' / ')}` },
    ];
  }
  if (Array.isArray(body.tools) && /weather/i.test(textOf(last?.content))) {
    return [
      { type: 'text', text: 'Checking both.' },
      ...['Paris', 'Oslo'].map((city, index) => ({
        type: 'tool_use',
        id: `toolu_${index}_${messages.length}`,
        name: 'get_weather',
        input: { city },
      })),
    ];
  }
  return [{ type: 'text', text: `ack ${messages.length}: ${textOf(last?.content).slice(0, 20)}` }];
}

/** Starts the server on 127.0.0.1 with a context limit in its own tokens. */
export async function startAnthropicUpstream({
  limit = 1_000_000,
}: {
  limit?: number;
} = {}): Promise<AnthropicUpstream> {
  const requests: UpstreamRequest[] = [];
  const send = (response: ServerResponse, status: number, body: Json) => {
    response.writeHead(status, {
      'content-type': 'application/json',
      'request-id': `req_${requests.length}`,
    });
    response.end(JSON.stringify(body));
  };
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const body = JSON.parse((await readBody(request)) || '{}') as Json;
    requests.push({ path, headers: request.headers, body });
    if (path === '/v1/messages/count_tokens') {
      send(response, 200, { input_tokens: tokensOf(body) });
      return;
    }
    if (path !== '/v1/messages') {
      send(response, 404, { type: 'error', error: { type: 'not_found_error', message: `no ${path}` } });
      return;
    }
    const input = tokensOf(body);
    if (input > limit) {
      send(response, 400, {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: `prompt is too long: ${input} tokens > ${limit} maximum`,
        },
      });
      return;
    }
    const content = replyBlocks(body);
    const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
    const output = Math.ceil(JSON.stringify(content).length / 4);
    const message = { id: `msg_${requests.length}`, type: 'message', role: 'assistant', model: body.model };
    if (body.stream !== true) {
      send(response, 200, {
        ...message,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { input_tokens: input, output_tokens: output },
      });
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (type: string, data: Json) =>
      response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message_start', {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: input, output_tokens: 1 },
      },
    });
    content.forEach((block, index) => {
      if (block.type === 'text') {
        event('content_block_start', { index, content_block: { type: 'text', text: '' } });
        for (const piece of String(block.text).match(/.{1,6}/gs) ?? []) {
          event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
        }
      } else {
        event('content_block_start', { index, content_block: { ...block, input: {} } });
        const json = JSON.stringify(block.input);
        event('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: json.slice(0, 4) },
        });
        event('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: json.slice(4) },
        });
      }
      event('content_block_stop', { index });
    });
    event('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: output },
    });
    event('message_stop', {});
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
