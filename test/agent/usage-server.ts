import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// An OpenAI-compatible server written for these tests, independent of chatfold's fake provider:
// it renders the request with a ChatML template, counts with its own word-piece tokenizer, and
// reports usage the way real local servers do — all of it, only the tokens its prompt cache did
// not cover (Ollama has shipped this), or without the tool definitions — in the response shapes
// of llama.cpp's server, vLLM and Ollama.

/** Which server's chunks and usage fields the responses copy. */
export type ServerShape = 'llama.cpp' | 'vllm' | 'ollama';
/** What `usage.prompt_tokens` says. */
export type UsageReporting = 'correct' | 'fresh-only' | 'tools-excluded';

/** One chat completion request as the server saw it. */
export interface ServedRequest {
  /** Tokens of the whole rendered prompt (messages + tools), by the server's tokenizer. */
  readonly promptTokens: number;
  /** What the response reported as `prompt_tokens`. */
  readonly reportedTokens: number;
  readonly messages: number;
  /** Whether the request sent tool definitions (the agent's turns do; summary requests do not). */
  readonly hasTools: boolean;
  /** Whether it looks like a summary request: a system message that speaks of summaries. */
  readonly isSummary: boolean;
  /** Characters of the last user message's text (a paste arrives whole, or not). */
  readonly lastUserLength: number;
  /** Each message as `role: text`, in order. */
  readonly transcript: readonly string[];
}

export interface UsageServer {
  /** Base URL for OpenAI-compatible clients (ends in `/v1`). */
  readonly baseURL: string;
  readonly requests: readonly ServedRequest[];
  close(): Promise<void>;
}

interface ChatBody {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }[];
  tools?: unknown[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

/** Word pieces: runs of letters or digits, each other non-space character alone (a BPE-sized unit). */
const tokenize = (text: string): string[] => text.match(/[A-Za-z]+|\d+|[^\sA-Za-z\d]/g) ?? [];

const contentText = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => (part as { text?: string }).text ?? '').join('')
      : '';

/**
 * A request whose system message asks for a summary (chatfold's summarizer; the agents in these
 * tests have other instructions). A compacted chat also starts with a system message that is a
 * summary, marked `[chatfold summary of …]`: that one is a chat request.
 */
function isSummaryRequest(body: ChatBody): boolean {
  const first = body.messages[0];
  if (first?.role !== 'system') return false;
  const text = contentText(first.content);
  return /summar/i.test(text) && !text.startsWith('[chatfold summary');
}

/** ChatML as llama.cpp and Ollama render Qwen models; tools go in the system block. */
function render(body: ChatBody, withTools: boolean): string {
  const tools =
    withTools && body.tools?.length
      ? `<|im_start|>system\n# Tools\n${body.tools.map((tool) => JSON.stringify(tool)).join('\n')}<|im_end|>\n`
      : '';
  const messages = body.messages
    .map(
      (message) =>
        `<|im_start|>${message.role}\n${contentText(message.content)}${message.tool_calls === undefined ? '' : JSON.stringify(message.tool_calls)}<|im_end|>\n`,
    )
    .join('');
  return `${tools}${messages}<|im_start|>assistant\n`;
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
}

/** Starts the server on 127.0.0.1 with a free port. */
export async function startUsageServer({
  shape,
  reporting,
  answer = 'Noted.',
  summary = answer,
  contextLength,
  stall,
}: {
  shape: ServerShape;
  reporting: UsageReporting;
  answer?: string;
  /** The answer to summary requests (see `isSummary`). Default `answer`. */
  summary?: string;
  /**
   * The context window the server says it has, where servers say it: vLLM's `max_model_len` in
   * `/v1/models`, llama.cpp's `n_ctx` in `/props`, Ollama's `context_length` in `/api/ps`.
   * Default: it does not say.
   */
  contextLength?: number;
  /** A server that takes the request and then goes silent: before any byte, or after the first chunk. */
  stall?: 'before-headers' | 'after-first-chunk';
}): Promise<UsageServer> {
  const requests: ServedRequest[] = [];
  /** The prompt cache: the last prompt's tokens (one slot, like a single-user local server). */
  let cached: string[] = [];
  const model = shape === 'ollama' ? 'qwen2.5:32b' : 'Qwen/Qwen2.5-32B-Instruct';

  const usageOf = (body: ChatBody, reply: string) => {
    const tokens = tokenize(render(body, true));
    let reused = 0;
    while (reused < cached.length && reused < tokens.length && cached[reused] === tokens[reused]) reused++;
    cached = tokens;
    const reported =
      reporting === 'correct'
        ? tokens.length
        : reporting === 'fresh-only'
          ? tokens.length - reused
          : tokenize(render(body, false)).length;
    const completion = tokenize(reply).length;
    requests.push({
      promptTokens: tokens.length,
      reportedTokens: reported,
      messages: body.messages.length,
      hasTools: (body.tools?.length ?? 0) > 0,
      isSummary: isSummaryRequest(body),
      transcript: body.messages.map((message) => `${message.role}: ${contentText(message.content)}`),
      lastUserLength: contentText(body.messages.findLast((message) => message.role === 'user')?.content)
        .length,
    });
    const usage = {
      prompt_tokens: reported,
      completion_tokens: completion,
      total_tokens: reported + completion,
    };
    if (shape === 'vllm') return { ...usage, prompt_tokens_details: null };
    return usage;
  };

  const head = (created: number) =>
    shape === 'ollama'
      ? {
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion.chunk',
          created,
          model,
          system_fingerprint: 'fp_ollama',
        }
      : shape === 'vllm'
        ? { id: `chatcmpl-${requests.length}a1b2`, object: 'chat.completion.chunk', created, model }
        : {
            id: `chatcmpl-${requests.length}`,
            object: 'chat.completion.chunk',
            created,
            model,
            system_fingerprint: 'b6000-abc1234',
          };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method === 'GET' && request.url?.endsWith('/models')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      const entry =
        shape === 'vllm' && contextLength !== undefined
          ? {
              id: model,
              object: 'model',
              owned_by: 'vllm',
              root: model,
              parent: null,
              max_model_len: contextLength,
            }
          : { id: model, object: 'model', owned_by: shape };
      response.end(JSON.stringify({ object: 'list', data: [entry] }));
      return;
    }
    if (
      request.method === 'GET' &&
      request.url === '/api/ps' &&
      shape === 'ollama' &&
      contextLength !== undefined
    ) {
      response.writeHead(200, { 'content-type': 'application/json' });
      const details = {
        format: 'gguf',
        family: 'qwen2',
        parameter_size: '32.8B',
        quantization_level: 'Q4_K_M',
      };
      const size = 21_000_000_000;
      response.end(
        JSON.stringify({
          models: [{ name: model, model, size, details, size_vram: size, context_length: contextLength }],
        }),
      );
      return;
    }
    if (
      request.method === 'GET' &&
      request.url === '/props' &&
      shape === 'llama.cpp' &&
      contextLength !== undefined
    ) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          default_generation_settings: { n_ctx: contextLength, params: { n_predict: -1 } },
          total_slots: 1,
          model_path: '/models/qwen2.5-32b-instruct-q4_k_m.gguf',
          chat_template: '{% for message in messages %}…{% endfor %}',
        }),
      );
      return;
    }
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
      return;
    }
    const body = JSON.parse(await readBody(request)) as ChatBody;
    const reply = isSummaryRequest(body) ? summary : answer;
    const usage = usageOf(body, reply);
    if (stall === 'before-headers') return; // never answers; the client gives up
    const created = Math.floor(Date.now() / 1000);
    if (body.stream !== true) {
      response.writeHead(200, { 'content-type': 'application/json' });
      const message = { role: 'assistant', content: reply };
      response.end(
        JSON.stringify({
          ...head(created),
          object: 'chat.completion',
          choices: [
            { index: 0, message, finish_reason: 'stop', ...(shape === 'vllm' ? { logprobs: null } : {}) },
          ],
          usage,
          ...(shape === 'llama.cpp'
            ? { timings: { prompt_n: usage.prompt_tokens, predicted_n: usage.completion_tokens } }
            : {}),
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
    send({
      ...head(created),
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    if (stall === 'after-first-chunk') return;
    for (const piece of reply.match(/\S+\s*/g) ?? [])
      send({ ...head(created), choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
    send({ ...head(created), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    if (body.stream_options?.include_usage === true) {
      send({
        ...head(created),
        choices: [],
        usage,
        ...(shape === 'llama.cpp'
          ? { timings: { prompt_n: usage.prompt_tokens, predicted_n: usage.completion_tokens } }
          : {}),
      });
    }
    response.end('data: [DONE]\n\n');
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
