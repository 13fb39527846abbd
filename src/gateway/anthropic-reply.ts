/**
 * The assistant turn of an Anthropic Messages answer (issue 21), from a whole response or
 * rebuilt from stream events, so the gateway stores the reply the client received.
 */
import type { AnthropicMessageInput } from '../messages/anthropic-schema.ts';

type Json = Record<string, unknown>;

/** A reply: the assistant turn and the call's usage (input counts every prompt token, cached ones too). */
export interface AnthropicReply {
  readonly message?: AnthropicMessageInput;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Prompt tokens: fresh + cache writes + cache reads (Anthropic reports them apart). */
function inputOf(usage: Json): number | undefined {
  if (typeof usage.input_tokens !== 'number') return undefined;
  const cached = [usage.cache_creation_input_tokens, usage.cache_read_input_tokens].reduce<number>(
    (sum, value) => sum + (typeof value === 'number' ? value : 0),
    0,
  );
  return usage.input_tokens + cached;
}

/** Reads a non-streamed Messages response. */
export function anthropicReplyFromMessage(body: unknown): AnthropicReply {
  if (!isObject(body) || !Array.isArray(body.content)) return {};
  const usage = isObject(body.usage) ? body.usage : {};
  const input = inputOf(usage);
  return {
    message: { role: 'assistant', content: body.content } as unknown as AnthropicMessageInput,
    ...(input === undefined ? {} : { inputTokens: input }),
    ...(typeof usage.output_tokens === 'number' ? { outputTokens: usage.output_tokens } : {}),
  };
}

/** Collects stream events into one reply. */
export interface AnthropicStreamCollector {
  push(data: string): void;
  result(): AnthropicReply;
}

/** Creates a collector for a streamed Messages response. */
export function collectAnthropicStream(): AnthropicStreamCollector {
  const blocks: Json[] = [];
  const partialJson = new Map<number, string>();
  let input: number | undefined;
  let output: number | undefined;
  return {
    push(data) {
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch {
        return;
      }
      if (!isObject(event)) return;
      switch (event.type) {
        case 'message_start': {
          const message = isObject(event.message) ? event.message : {};
          if (isObject(message.usage)) {
            input = inputOf(message.usage);
            if (typeof message.usage.output_tokens === 'number') output = message.usage.output_tokens;
          }
          return;
        }
        case 'content_block_start': {
          if (typeof event.index !== 'number' || !isObject(event.content_block)) return;
          blocks[event.index] = { ...event.content_block };
          return;
        }
        case 'content_block_delta': {
          if (typeof event.index !== 'number' || !isObject(event.delta)) return;
          const block = blocks[event.index];
          if (block === undefined) return;
          const delta = event.delta;
          if (delta.type === 'text_delta' && typeof delta.text === 'string') {
            block.text = `${typeof block.text === 'string' ? block.text : ''}${delta.text}`;
          } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
            partialJson.set(event.index, (partialJson.get(event.index) ?? '') + delta.partial_json);
          } else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
            block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${delta.thinking}`;
          } else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
            block.signature = delta.signature;
          }
          return;
        }
        case 'message_delta': {
          if (isObject(event.usage)) {
            if (typeof event.usage.output_tokens === 'number') output = event.usage.output_tokens;
            input = inputOf(event.usage) ?? input;
          }
          return;
        }
        default:
          return;
      }
    },
    result() {
      const content = blocks
        .map((block, index) => {
          if (block === undefined) return undefined;
          const json = partialJson.get(index);
          if (json === undefined) return block;
          try {
            return { ...block, input: JSON.parse(json === '' ? '{}' : json) as unknown };
          } catch {
            return { ...block, input: {} };
          }
        })
        .filter((block) => block !== undefined);
      return {
        ...(content.length === 0
          ? {}
          : { message: { role: 'assistant', content } as unknown as AnthropicMessageInput }),
        ...(input === undefined ? {} : { inputTokens: input }),
        ...(output === undefined ? {} : { outputTokens: output }),
      };
    },
  };
}
