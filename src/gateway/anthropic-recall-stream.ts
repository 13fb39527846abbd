/**
 * A streamed Messages answer read round by round for `chatfold_recall` (issue 21): the events
 * go to the client as they come, without the recall tool uses' blocks (the other blocks keep
 * contiguous indexes across rounds) and with `message_delta` (stop reason, usage) and
 * `message_stop` held back until it is known whether another round follows; later rounds'
 * `message_start` is not sent, so the client reads one message.
 */
import { anthropicRecallBody, anthropicRecallTurns } from './anthropic-recall.ts';
import { collectAnthropicStream } from './anthropic-reply.ts';
import type { Conversation } from './gateway-runtime.ts';
import type { RecallRounds } from './openai-recall.ts';
import { type StreamRound, streamRecallRounds } from './recall-stream.ts';
import { RECALL_TOOL_NAME } from './recall-tool.ts';
import type { SseEvent } from './sse-reader.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The rounds of one streamed Messages answer.
 *
 * @param conversation The session the recall tool uses are answered from.
 * @returns A round reader per round.
 */
export function anthropicStreamRounds(conversation: Conversation): (index: number) => StreamRound {
  // Blocks the client has seen, across rounds: the next round's blocks follow them.
  let clientBlocks = 0;
  return (index) => {
    const raw = collectAnthropicStream();
    // Upstream block index → the client's index, or 'recall' for a hidden tool use.
    const blocks = new Map<number, number | 'recall'>();
    let clientToolUses = 0;
    const held: SseEvent[] = [];
    const rewrite = (event: SseEvent, body: Json): SseEvent => ({
      event: event.event,
      data: JSON.stringify(body),
    });
    return {
      push(event) {
        raw.push(event.data);
        let body: unknown;
        try {
          body = JSON.parse(event.data);
        } catch {
          return [event];
        }
        if (!isObject(body)) return [event];
        switch (body.type) {
          case 'message_start':
            return index === 0 ? [event] : [];
          case 'message_delta':
          case 'message_stop':
            held.push(event);
            return [];
          case 'content_block_start':
          case 'content_block_delta':
          case 'content_block_stop': {
            if (typeof body.index !== 'number') return [event];
            let slot = blocks.get(body.index);
            if (slot === undefined) {
              const block = isObject(body.content_block) ? body.content_block : {};
              const isRecall = block.type === 'tool_use' && block.name === RECALL_TOOL_NAME;
              if (!isRecall && block.type === 'tool_use') clientToolUses++;
              slot = isRecall ? 'recall' : clientBlocks++;
              blocks.set(body.index, slot);
            }
            if (slot === 'recall') return [];
            return slot === body.index ? [event] : [rewrite(event, { ...body, index: slot })];
          }
          default:
            return [event];
        }
      },
      next: () => anthropicRecallTurns(conversation, raw.result().message?.content as Json[] | undefined),
      closing() {
        // Hidden recall tool uses leave none for the client: the turn ended.
        if (clientToolUses > 0 || ![...blocks.values()].includes('recall')) return held;
        return held.map((event) => {
          try {
            const body = JSON.parse(event.data) as Json;
            if (
              body.type !== 'message_delta' ||
              !isObject(body.delta) ||
              body.delta.stop_reason !== 'tool_use'
            )
              return event;
            return rewrite(event, { ...body, delta: { ...body.delta, stop_reason: 'end_turn' } });
          } catch {
            return event;
          }
        });
      },
    };
  };
}

/**
 * The client's stream of a streamed Messages request offered `chatfold_recall`.
 *
 * @param options The recall rounds' context (projection and body as sent, without `system`
 *   and `messages`) and the first upstream response's body.
 */
export function streamAnthropicRecall(
  options: Omit<RecallRounds, 'first'> & { readonly first: ReadableStream<Uint8Array> },
): ReadableStream<Uint8Array> {
  return streamRecallRounds(options, {
    format: 'anthropic',
    path: '/messages',
    round: anthropicStreamRounds(options.conversation),
    body: anthropicRecallBody(options),
  });
}
