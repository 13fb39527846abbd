// An OpenAI-compatible chat server written for the web app's failure tests, independent of
// chatfold's own fake provider: it speaks `/v1/chat/completions` with streaming as the AI SDK's
// openai-compatible provider calls it, and fails summary requests in the ways a real server
// does (HTTP 500, a stall that never answers, an endless text). It records every request and
// whether the client closed it (an abort that really reached the model server).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the stub answers a summary request (recognised by chatfold's summarizer instructions). */
export type SummaryBehaviour = 'ok' | 'error-500' | 'stall' | 'endless';
/** How it answers a chat turn: a whole echo, or one piece and then a stall. */
export type TurnBehaviour = 'echo' | 'partial-then-stall';

/** One request the stub received. */
export interface StubRequest {
  readonly kind: 'summary' | 'turn';
  readonly body: { messages?: { role: string; content: unknown }[]; max_tokens?: number };
  /** Set when the client closed the connection before the stub ended its answer. */
  closedEarly: boolean;
}

/** A running stub. */
export interface OpenAiCompatibleStub {
  readonly url: string;
  readonly requests: StubRequest[];
  summary: SummaryBehaviour;
  turn: TurnBehaviour;
  /** The summary text an `ok` summary request streams. */
  summaryText: string;
  /** Canned answers: a turn whose last user message contains the key gets the text. */
  readonly replies: Map<string, string>;
  /** Resolves once `count` requests of `kind` were closed early by the client. */
  closed(kind: StubRequest['kind'], count?: number): Promise<void>;
  /** Resolves once `count` requests of `kind` arrived. */
  received(kind: StubRequest['kind'], count: number): Promise<void>;
  close(): Promise<void>;
}

/** Text of chatfold's summarizer instructions (src/summarize/prompts.ts) that marks a summary call. */
const SUMMARY_MARK = 'You compress the earlier part of a conversation';

const chunk = (content: string, finish: string | null = null): string =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-stub',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'stub-model',
    choices: [{ index: 0, delta: finish === null ? { content } : {}, finish_reason: finish }],
  })}\n\n`;

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: string }) => part.text ?? '').join('')
      : '';

async function readBody(request: IncomingMessage): Promise<StubRequest['body']> {
  let text = '';
  for await (const piece of request) text += String(piece);
  return JSON.parse(text) as StubRequest['body'];
}

/** Starts the stub on 127.0.0.1 (a free port). */
export async function startOpenAiCompatibleStub(): Promise<OpenAiCompatibleStub> {
  const waiters: {
    kind: StubRequest['kind'];
    count: number;
    closed: boolean;
    resolve: () => void;
  }[] = [];
  const notify = (): void => {
    for (const waiter of [...waiters]) {
      const seen = stub.requests.filter(
        (r) => r.kind === waiter.kind && (!waiter.closed || r.closedEarly),
      ).length;
      if (seen >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      response.writeHead(404).end();
      return;
    }
    const body = await readBody(request);
    const messages = body.messages ?? [];
    const kind = messages.some((message) => textOf(message.content).includes(SUMMARY_MARK))
      ? 'summary'
      : 'turn';
    const record: StubRequest = { kind, body, closedEarly: false };
    stub.requests.push(record);
    notify();
    let ended = false;
    response.on('close', () => {
      if (!ended) {
        record.closedEarly = true;
        notify();
      }
    });
    const behaviour = kind === 'summary' ? stub.summary : stub.turn;
    if (behaviour === 'error-500') {
      ended = true;
      response
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'upstream exploded', type: 'server_error' } }));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    if (behaviour === 'stall') return; // headers, then nothing, until the client gives up
    if (behaviour === 'partial-then-stall') {
      response.write(chunk('A partial answer that was '));
      response.write(chunk('cut short.'));
      return;
    }
    if (behaviour === 'endless') {
      // Writes until the client closes the connection.
      const line = `${'A summary that never ends. '.repeat(20)}\n`;
      const tick = (): void => {
        if (response.destroyed || response.writableEnded) return;
        response.write(chunk(line), () => setImmediate(tick));
      };
      tick();
      return;
    }
    const lastUser = textOf(messages.filter((m) => m.role === 'user').at(-1)?.content);
    const canned = [...stub.replies].find(([key]) => lastUser.includes(key))?.[1];
    const text = kind === 'summary' ? stub.summaryText : (canned ?? `You said: ${lastUser}`);
    for (let index = 0; index < text.length; index += 40)
      response.write(chunk(text.slice(index, index + 40)));
    response.write(chunk('', 'stop'));
    response.write('data: [DONE]\n\n');
    ended = true;
    response.end();
  };
  const server = createServer((request, response) => {
    answer(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stub: OpenAiCompatibleStub = {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    summary: 'ok',
    turn: 'echo',
    replies: new Map(),
    summaryText: [
      '## Context',
      'The user sent numbered filler turns to test summaries.',
      '',
      '## Key points',
      '- Turn markers were kept.',
    ].join('\n'),
    closed: (kind, count = 1) =>
      new Promise<void>((resolve) => {
        waiters.push({ kind, count, closed: true, resolve });
        notify();
      }),
    received: (kind, count) =>
      new Promise<void>((resolve) => {
        waiters.push({ kind, count, closed: false, resolve });
        notify();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return stub;
}
