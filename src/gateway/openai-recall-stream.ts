/**
 * A streamed Chat Completions answer read round by round for `chatfold_recall` (issue 21): the
 * chunks go to the client as they come, without the recall calls' pieces (the client's own
 * calls keep contiguous indexes) and with the round's finish chunk, usage chunk and `[DONE]`
 * held back until it is known whether another round follows. Later rounds' chunks carry the
 * first round's id, so the client reads one completion.
 */
import type { Conversation } from './gateway-runtime.ts';
import { openAIRecallBody, openAIRecallTurns, type RecallRounds } from './openai-recall.ts';
import { collectOpenAIStream } from './openai-reply.ts';
import { type StreamRound, streamRecallRounds } from './recall-stream.ts';
import { RECALL_TOOL_NAME } from './recall-tool.ts';
import type { SseEvent } from './sse-reader.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The rounds of one streamed Chat Completions answer.
 *
 * @param conversation The session the recall calls are answered from.
 * @returns A round reader per round.
 */
export function openAIStreamRounds(conversation: Conversation): (index: number) => StreamRound {
  let completionId: unknown;
  return (index) => {
    const raw = collectOpenAIStream();
    // Upstream call index → the client's index, or 'recall' for a hidden call.
    const calls = new Map<number, number | 'recall'>();
    let clientCalls = 0;
    const held: SseEvent[] = [];
    return {
      push(event) {
        raw.push(event.data);
        if (event.data === '[DONE]') {
          held.push(event);
          return [];
        }
        let chunk: unknown;
        try {
          chunk = JSON.parse(event.data);
        } catch {
          return [event];
        }
        if (!isObject(chunk)) return [event];
        if (index === 0) completionId ??= chunk.id;
        const choices = Array.isArray(chunk.choices) ? (chunk.choices as unknown[]) : [];
        // The usage chunk (no choices) and the finish chunk close the round.
        let changed = index > 0 && chunk.id !== completionId;
        if (choices.length === 0 && isObject(chunk.usage)) {
          held.push(
            changed ? { event: event.event, data: JSON.stringify({ ...chunk, id: completionId }) } : event,
          );
          return [];
        }
        const out = choices.map((choice) => {
          if (!isObject(choice) || (choice.index ?? 0) !== 0 || !isObject(choice.delta)) return choice;
          const delta = choice.delta;
          if (!Array.isArray(delta.tool_calls)) return choice;
          const kept: Json[] = [];
          let rewritten = false;
          for (const call of delta.tool_calls as unknown[]) {
            if (!isObject(call)) continue;
            const at = typeof call.index === 'number' ? call.index : 0;
            let slot = calls.get(at);
            if (slot === undefined) {
              const name = isObject(call.function) ? call.function.name : undefined;
              slot = name === RECALL_TOOL_NAME ? 'recall' : clientCalls++;
              calls.set(at, slot);
            }
            if (slot === 'recall' || slot !== at) rewritten = true;
            if (slot !== 'recall') kept.push(slot === at ? call : { ...call, index: slot });
          }
          if (!rewritten) return choice;
          changed = true;
          const { tool_calls: _calls, ...rest } = delta;
          return { ...choice, delta: kept.length === 0 ? rest : { ...rest, tool_calls: kept } };
        });
        const finishing = out.some((choice) => isObject(choice) && choice.finish_reason != null);
        const next = { ...chunk, ...(index > 0 ? { id: completionId } : {}), choices: out };
        const text = changed ? JSON.stringify(next) : event.data;
        if (finishing) {
          held.push({ event: event.event, data: text });
          return [];
        }
        // A chunk left with nothing to say (a recall call's piece) is not sent.
        const first = out[0];
        const empty =
          out.length === 1 &&
          isObject(first) &&
          isObject(first.delta) &&
          Object.keys(first.delta).length === 0 &&
          first.finish_reason == null;
        return empty && changed ? [] : [{ event: event.event, data: text }];
      },
      next: () => openAIRecallTurns(conversation, raw.result().message as Json | undefined),
      closing() {
        // Hidden recall calls leave no call for the client: the answer stopped.
        if (clientCalls > 0 || ![...calls.values()].includes('recall')) return held;
        return held.map((event) => {
          try {
            const chunk = JSON.parse(event.data) as Json;
            if (!Array.isArray(chunk.choices)) return event;
            const choices = (chunk.choices as Json[]).map((choice) =>
              choice.finish_reason === 'tool_calls' ? { ...choice, finish_reason: 'stop' } : choice,
            );
            return { event: event.event, data: JSON.stringify({ ...chunk, choices }) };
          } catch {
            return event;
          }
        });
      },
    };
  };
}

/**
 * The client's stream of a streamed Chat Completions request offered `chatfold_recall`.
 *
 * @param options The recall rounds' context (projection and body as sent) and the first
 *   upstream response's body.
 */
export function streamOpenAIRecall(
  options: Omit<RecallRounds, 'first'> & { readonly first: ReadableStream<Uint8Array> },
): ReadableStream<Uint8Array> {
  return streamRecallRounds(options, {
    format: 'openai',
    path: '/chat/completions',
    round: openAIStreamRounds(options.conversation),
    body: openAIRecallBody(options),
  });
}
