/**
 * An OpenAI-compatible model server written for the gateway tests, independent of chatfold's
 * fake provider: plain node:http, its own token count (characters / 4 of every message and
 * tool definition), a hard context limit answered with OpenAI's own overflow error, scripted
 * tool calls, SSE streaming with `stream_options.include_usage`, and `/v1/models`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, unknown>;

/** One request the upstream received. */
export interface UpstreamRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Json;
}

export interface OpenAIUpstream {
  readonly url: string;
  readonly requests: UpstreamRequest[];
  /** Changes the context limit (tokens). */
  setLimit(limit: number): void;
  close(): Promise<void>;
}

/** Tokens of a request as this server counts them: characters of its JSON / 4. */
export function upstreamTokens(body: Json): number {
  return Math.ceil(
    JSON.stringify(body.messages ?? []).length / 4 + JSON.stringify(body.tools ?? []).length / 4,
  );
}

/** The request body as text. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function lastUserText(messages: readonly Json[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
}

/** The first id or span a chatfold summary or omission marker names: `(ids a..b)` or `[ids a..b:`. */
export function namedIds(prompt: string): string | undefined {
  const found = /\(ids ([^)\s\\"]+)\)|\[ids ([^\]:\s\\"]+):/.exec(prompt);
  return found === null ? undefined : (found[1] ?? found[2]);
}

/**
 * The reply: with tools and a user message asking for "weather", two parallel calls; after tool
 * results, a text naming what they said; otherwise `ack <n>: <first 20 chars of the question>`.
 */
function replyFor(body: Json): Json {
  const messages = (body.messages ?? []) as Json[];
  const last = messages.at(-1);
  // chatfold_recall, when offered: "recall: <word>" asks for it; its result is quoted back.
  if (last?.role === 'tool' && String(last.tool_call_id).startsWith('call_recall')) {
    return { role: 'assistant', content: `recalled: ${String(last.content)}` };
  }
  const offersRecall =
    Array.isArray(body.tools) &&
    (body.tools as Json[]).some((tool) => (tool.function as Json | undefined)?.name === 'chatfold_recall');
  // "recall by id": the first ids a summary or marker names in the prompt, as a model reads them.
  if (offersRecall && /recall by id/.test(lastUserText(messages))) {
    const ids = namedIds(JSON.stringify(messages));
    if (ids !== undefined)
      return {
        role: 'assistant',
        content: 'Let me look that up. ',
        tool_calls: [
          {
            id: 'call_recall_ids',
            type: 'function',
            function: { name: 'chatfold_recall', arguments: JSON.stringify({ ids: [ids] }) },
          },
        ],
      };
  }
  const asked = /recall: (\S+)/.exec(lastUserText(messages));
  if (offersRecall && asked !== null) {
    return {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_recall_1',
          type: 'function',
          function: { name: 'chatfold_recall', arguments: JSON.stringify({ query: asked[1] }) },
        },
      ],
    };
  }
  if (last?.role === 'tool') {
    const results = messages.filter((message) => message.role === 'tool').slice(-2);
    return {
      role: 'assistant',
      content: `tools said: ${results.map((result) => result.content).join(' / ')}`,
    };
  }
  if (Array.isArray(body.tools) && /weather/i.test(lastUserText(messages))) {
    return {
      role: 'assistant',
      content: null,
      tool_calls: ['Paris', 'Oslo'].map((city, index) => ({
        id: `call_${index}_${messages.length}`,
        type: 'function',
        function: { name: 'get_weather', arguments: JSON.stringify({ city }) },
      })),
    };
  }
  return { role: 'assistant', content: `ack ${messages.length}: ${lastUserText(messages).slice(0, 20)}` };
}

/**
 * Starts the server on 127.0.0.1.
 *
 * @param limit Context limit in tokens (its own count).
 */
export async function startOpenAIUpstream({
  limit = 1_000_000,
  holdStream,
  script,
}: {
  limit?: number;
  /** Answers chosen by the test (a scripted agent run); undefined falls back to the default answers. */
  script?: (body: Json, requestIndex: number) => Json | undefined;
  /** Streams pause after their first chunk until this resolves (a crash mid-stream). */
  holdStream?: () => Promise<void>;
} = {}): Promise<OpenAIUpstream> {
  const requests: UpstreamRequest[] = [];
  let contextLimit = limit;
  const send = (response: ServerResponse, status: number, body: Json) => {
    response.writeHead(status, { 'content-type': 'application/json', 'x-upstream': 'test' });
    response.end(JSON.stringify(body));
  };
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (request.method === 'GET' && path === '/v1/models') {
      send(response, 200, {
        object: 'list',
        data: [{ id: 'test-model', object: 'model', created: 0, owned_by: 'test' }],
      });
      return;
    }
    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      send(response, 404, { error: { message: `no ${path}`, type: 'invalid_request_error' } });
      return;
    }
    const body = JSON.parse(await readBody(request)) as Json;
    requests.push({ path, headers: request.headers, body });
    if (request.headers.authorization === 'Bearer wrong-key') {
      send(response, 401, {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
      return;
    }
    const promptTokens = upstreamTokens(body);
    if (promptTokens > contextLimit) {
      send(response, 400, {
        error: {
          message: `This model's maximum context length is ${contextLimit} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      });
      return;
    }
    const message = script?.(body, requests.length) ?? replyFor(body);
    const completionTokens = Math.ceil(JSON.stringify(message).length / 4);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
    const base = { id: `chatcmpl-${requests.length}`, created: 1_700_000_000, model: body.model };
    const finish = message.tool_calls === undefined ? 'stop' : 'tool_calls';
    if (body.stream !== true) {
      send(response, 200, {
        ...base,
        object: 'chat.completion',
        choices: [
          { index: 0, message: { ...message, refusal: null }, logprobs: null, finish_reason: finish },
        ],
        usage,
      });
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: Json, finishReason: string | null = null) =>
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] })}\n\n`;
    response.write(chunk({ role: 'assistant', content: '' }));
    if (holdStream !== undefined) await holdStream();
    if (response.destroyed) return;
    if (typeof message.content === 'string') {
      // Split into pieces so the client reassembles a real stream.
      for (const piece of message.content.match(/.{1,7}/gs) ?? []) response.write(chunk({ content: piece }));
    }
    const calls = (message.tool_calls ?? []) as Json[];
    calls.forEach((call, index) => {
      const fn = call.function as Json;
      response.write(
        chunk({
          tool_calls: [{ index, id: call.id, type: 'function', function: { name: fn.name, arguments: '' } }],
        }),
      );
      const args = String(fn.arguments);
      response.write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, 5) } }] }));
      response.write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(5) } }] }));
    });
    response.write(chunk({}, finish));
    const streamOptions = body.stream_options as Json | undefined;
    if (streamOptions?.include_usage === true) {
      response.write(
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`,
      );
    }
    response.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setLimit: (value) => {
      contextLimit = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
