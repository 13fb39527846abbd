/**
 * The assistant message of an OpenAI Chat Completions answer (issue 21), from a whole response
 * or rebuilt from stream chunks, so the gateway stores the reply the client received.
 */
import type { OpenAIMessage } from '../messages/openai.ts';

type Json = Record<string, unknown>;

/** A reply as the gateway stores it: the first choice's message and the call's usage. */
export interface OpenAIReply {
  readonly message?: OpenAIMessage;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function usageOf(value: unknown): Pick<OpenAIReply, 'inputTokens' | 'outputTokens'> {
  if (!isObject(value)) return {};
  return {
    ...(typeof value.prompt_tokens === 'number' ? { inputTokens: value.prompt_tokens } : {}),
    ...(typeof value.completion_tokens === 'number' ? { outputTokens: value.completion_tokens } : {}),
  };
}

/**
 * Reads a non-streamed completion.
 *
 * @param body The parsed JSON body.
 */
export function openAIReplyFromCompletion(body: unknown): OpenAIReply {
  if (!isObject(body)) return {};
  const choice = Array.isArray(body.choices) ? (body.choices as unknown[])[0] : undefined;
  const message = isObject(choice) && isObject(choice.message) ? choice.message : undefined;
  return {
    ...(message === undefined ? {} : { message: message as unknown as OpenAIMessage }),
    ...usageOf(body.usage),
  };
}

interface CallSoFar {
  id: string;
  type: string;
  name: string;
  arguments: string;
}

/** Collects stream chunks (`data:` payloads) into one reply. */
export interface OpenAIStreamCollector {
  /** One `data:` payload; `[DONE]` and anything that is not JSON are ignored. */
  push(data: string): void;
  result(): OpenAIReply;
}

/** Creates a collector for the first choice (index 0) of a streamed completion. */
export function collectOpenAIStream(): OpenAIStreamCollector {
  let content = '';
  let reasoning = '';
  let refusal = '';
  let sawDelta = false;
  const calls: CallSoFar[] = [];
  let usage: Pick<OpenAIReply, 'inputTokens' | 'outputTokens'> = {};
  return {
    push(data) {
      if (data === '[DONE]') return;
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        return;
      }
      if (!isObject(chunk)) return;
      if (isObject(chunk.usage)) usage = usageOf(chunk.usage);
      const choices = Array.isArray(chunk.choices) ? (chunk.choices as unknown[]) : [];
      for (const choice of choices) {
        if (!isObject(choice) || (choice.index ?? 0) !== 0 || !isObject(choice.delta)) continue;
        const delta = choice.delta;
        sawDelta = true;
        if (typeof delta.content === 'string') content += delta.content;
        if (typeof delta.refusal === 'string') refusal += delta.refusal;
        if (typeof delta.reasoning_content === 'string') reasoning += delta.reasoning_content;
        if (!Array.isArray(delta.tool_calls)) continue;
        for (const call of delta.tool_calls as unknown[]) {
          if (!isObject(call)) continue;
          const index = typeof call.index === 'number' ? call.index : calls.length;
          const fn = isObject(call.function) ? call.function : {};
          let slot = calls[index];
          if (slot === undefined) {
            slot = { id: '', type: 'function', name: '', arguments: '' };
            calls[index] = slot;
          }
          if (typeof call.id === 'string') slot.id = call.id;
          if (typeof call.type === 'string') slot.type = call.type;
          if (typeof fn.name === 'string') slot.name += fn.name;
          if (typeof fn.arguments === 'string') slot.arguments += fn.arguments;
        }
      }
    },
    result() {
      if (!sawDelta) return usage;
      const toolCalls = calls
        .filter((call): call is CallSoFar => call !== undefined)
        .map((call) => ({
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments === '' ? '{}' : call.arguments },
        }));
      const message = {
        role: 'assistant',
        content: content === '' && toolCalls.length > 0 ? null : content,
        ...(refusal === '' ? {} : { refusal }),
        ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
        ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
      } as unknown as OpenAIMessage;
      return { message, ...usage };
    },
  };
}
