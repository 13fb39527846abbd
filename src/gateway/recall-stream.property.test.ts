import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicStreamRounds } from './anthropic-recall-stream.ts';
import type { GatewayEvent } from './gateway-events.ts';
import type { Conversation, GatewayRuntime } from './gateway-runtime.ts';
import { openAIStreamRounds } from './openai-recall-stream.ts';
import { type StreamRecallDialect, streamRecallRounds } from './recall-stream.ts';
import { createSseReader, type SseEvent } from './sse-reader.ts';

// Issue 21, recall on streamed answers: however the upstream's bytes are cut, the client reads
// one answer — the text of every round in order, its own tool calls with indexes from 0, no
// recall call, one closing — and the next round is asked with the recall calls answered.

const encoder = new TextEncoder();
type Json = Record<string, unknown>;

/** A body that sends `text` cut at the given points. */
function body(text: string, cuts: readonly number[]): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    pieces.push(bytes.slice(start, point));
    start = point;
  }
  return new ReadableStream({
    pull(controller) {
      const piece = pieces.shift();
      if (piece === undefined) controller.close();
      else controller.enqueue(piece);
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = createSseReader((event) => events.push(event));
  for await (const chunk of stream) reader.push(chunk);
  reader.end();
  return events;
}

/** A conversation whose history is empty: recall answers "nothing found". */
const conversation = { sessionId: 's', session: { history: async () => [] } } as unknown as Conversation;

function runtimeWith(
  rounds: readonly string[],
  cuts: readonly number[],
): { runtime: GatewayRuntime; sent: string[]; events: GatewayEvent[] } {
  const sent: string[] = [];
  const events: GatewayEvent[] = [];
  const runtime = {
    emit: (event: GatewayEvent) => events.push(event),
    send: async ({ body: text }: { body: string }) => {
      sent.push(text);
      return new Response(body(rounds[sent.length] ?? '', cuts));
    },
  } as unknown as GatewayRuntime;
  return { runtime, sent, events };
}

interface Round {
  readonly text: string;
  /** Tool calls in upstream order: the recall tool or a client tool. */
  readonly calls: readonly ('recall' | 'client')[];
}

const round = fc.record({
  text: fc.string({ unit: fc.constantFrom('a', 'é', '🙂', '"', ' ', '\n'), maxLength: 20 }),
  calls: fc.array(fc.constantFrom('recall' as const, 'client' as const), { maxLength: 3 }),
});

/**
 * Rounds as the model answers: every round but the last calls only recall; the last calls
 * only recall too only when it is the fourth (past the rounds the gateway answers).
 */
const answer = fc
  .tuple(
    fc.array(
      round.map((r) => ({ ...r, calls: ['recall' as const] })),
      { maxLength: 3 },
    ),
    round,
  )
  .map(([recalls, last]) => {
    const onlyRecall = last.calls.length > 0 && last.calls.every((kind) => kind === 'recall');
    return [
      ...recalls,
      onlyRecall && recalls.length < 3 ? { ...last, calls: [...last.calls, 'client' as const] } : last,
    ];
  });

function openAIRound({ text, calls }: Round, n: number): string {
  const chunk = (delta: Json, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: `chatcmpl-${n}`, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let out = chunk({ role: 'assistant', content: '' });
  for (const piece of text.match(/.{1,3}/gsu) ?? []) out += chunk({ content: piece });
  calls.forEach((kind, index) => {
    const name = kind === 'recall' ? 'chatfold_recall' : `tool_${n}_${index}`;
    const args = kind === 'recall' ? '{"ids":["a..b"]}' : `{"n":${index}}`;
    out += chunk({
      tool_calls: [{ index, id: `call_${n}_${index}`, type: 'function', function: { name, arguments: '' } }],
    });
    out += chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, 4) } }] });
    out += chunk({ tool_calls: [{ index, function: { arguments: args.slice(4) } }] });
  });
  out += chunk({}, calls.length > 0 ? 'tool_calls' : 'stop');
  out += `data: ${JSON.stringify({ id: `chatcmpl-${n}`, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: n } })}\n\n`;
  return `${out}data: [DONE]\n\n`;
}

function anthropicRound({ text, calls }: Round, n: number): string {
  const event = (type: string, data: Json) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  let out = event('message_start', {
    message: { id: `msg_${n}`, role: 'assistant', content: [], usage: { input_tokens: n } },
  });
  let index = 0;
  if (text !== '') {
    out += event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const piece of text.match(/.{1,3}/gsu) ?? [])
      out += event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    out += event('content_block_stop', { index });
    index++;
  }
  calls.forEach((kind, c) => {
    const name = kind === 'recall' ? 'chatfold_recall' : `tool_${n}_${c}`;
    out += event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: `toolu_${n}_${c}`, name, input: {} },
    });
    out += event('content_block_delta', {
      index,
      delta: { type: 'input_json_delta', partial_json: kind === 'recall' ? '{"ids":["a"]}' : '{}' },
    });
    out += event('content_block_stop', { index });
    index++;
  });
  out += event('message_delta', {
    delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn' },
    usage: { output_tokens: 1 },
  });
  return out + event('message_stop', {});
}

async function client(
  rounds: readonly Round[],
  cuts: readonly number[],
  write: (round: Round, n: number) => string,
  dialect: (runtime: GatewayRuntime) => StreamRecallDialect,
) {
  const texts = rounds.map(write);
  const { runtime, sent, events } = runtimeWith(texts, cuts);
  const stream = streamRecallRounds(
    { runtime, conversation, first: body(texts[0] as string, cuts), incoming: new Headers() },
    dialect(runtime),
  );
  return { events: await readAll(stream), sent, gatewayEvents: events };
}

describe('recall inside a streamed answer', () => {
  it('Chat Completions: one completion, every round’s text, the client’s calls from index 0, no recall call', async () => {
    await fc.assert(
      fc.asyncProperty(answer, fc.array(fc.nat(), { maxLength: 8 }), async (rounds, cuts) => {
        const { events, sent } = await client(rounds, cuts, openAIRound, () => ({
          format: 'openai',
          path: '/chat/completions',
          round: openAIStreamRounds(conversation),
          body: (exchange) => JSON.stringify({ messages: exchange }),
        }));
        const last = rounds.at(-1) as Round;
        const lastCallsOnlyRecall = last.calls.length > 0 && last.calls.every((kind) => kind === 'recall');
        // A last round of recall calls only is answered too, up to three rounds.
        expect(sent).toHaveLength(Math.min(rounds.length - 1, 3));
        expect(events.at(-1)?.data).toBe('[DONE]');
        const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as Json);
        expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set(['chatcmpl-0']));
        const deltas = chunks.flatMap((chunk) =>
          (chunk.choices as Json[]).map((choice) => choice.delta as Json),
        );
        expect(deltas.map((delta) => delta.content ?? '').join('')).toBe(rounds.map((r) => r.text).join(''));
        const calls = deltas.flatMap((delta) => (delta.tool_calls as Json[] | undefined) ?? []);
        const named = calls.filter((call) => (call.function as Json | undefined)?.name !== undefined);
        const clientCalls = last.calls.filter((kind) => kind === 'client').length;
        expect(named.map((call) => call.index)).toEqual([...Array(clientCalls).keys()]);
        expect(named.some((call) => (call.function as Json).name === 'chatfold_recall')).toBe(false);
        const finishes = chunks
          .flatMap((chunk) => (chunk.choices as Json[]).map((choice) => choice.finish_reason))
          .filter(Boolean);
        expect(finishes).toEqual([
          clientCalls > 0
            ? 'tool_calls'
            : lastCallsOnlyRecall
              ? 'stop'
              : last.calls.length > 0
                ? 'tool_calls'
                : 'stop',
        ]);
        expect(chunks.filter((chunk) => chunk.usage !== undefined)).toHaveLength(1);
        // Each round's request carries the recall calls and their results.
        sent.forEach((text, i) => {
          const messages = (JSON.parse(text) as { messages: Json[] }).messages;
          expect(messages.filter((message) => message.role === 'tool')).toHaveLength(i + 1);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('Messages: one message, blocks numbered from 0 without the recall tool uses, one stop', async () => {
    await fc.assert(
      fc.asyncProperty(answer, fc.array(fc.nat(), { maxLength: 8 }), async (rounds, cuts) => {
        const { events } = await client(rounds, cuts, anthropicRound, () => ({
          format: 'anthropic',
          path: '/messages',
          round: anthropicStreamRounds(conversation),
          body: (exchange) => JSON.stringify({ messages: exchange }),
        }));
        const bodies = events.map((event) => JSON.parse(event.data) as Json);
        expect(bodies.filter((b) => b.type === 'message_start')).toHaveLength(1);
        expect(bodies.at(-1)?.type).toBe('message_stop');
        expect(bodies.filter((b) => b.type === 'message_delta')).toHaveLength(1);
        const starts = bodies.filter((b) => b.type === 'content_block_start');
        expect(starts.map((b) => b.index)).toEqual([...starts.keys()]);
        expect(starts.some((b) => (b.content_block as Json).name === 'chatfold_recall')).toBe(false);
        const expectedBlocks = rounds.flatMap((r, i) => [
          ...(r.text === '' ? [] : ['text']),
          ...(i === rounds.length - 1 && r.calls.some((kind) => kind === 'client')
            ? r.calls.filter((k) => k === 'client')
            : []),
        ]);
        expect(starts.map((b) => ((b.content_block as Json).type === 'text' ? 'text' : 'client'))).toEqual(
          expectedBlocks,
        );
        const text = bodies
          .filter((b) => b.type === 'content_block_delta' && (b.delta as Json).type === 'text_delta')
          .map((b) => (b.delta as Json).text)
          .join('');
        expect(text).toBe(rounds.map((r) => r.text).join(''));
        const stop = (bodies.find((b) => b.type === 'message_delta')?.delta as Json | undefined)?.stop_reason;
        expect(stop).toBe(expectedBlocks.includes('client') ? 'tool_use' : 'end_turn');
      }),
      { numRuns: 200 },
    );
  });
});
