import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';

/**
 * Rebuilds the assistant message of a streamed Chat Completion (choice 0) from its chunks:
 * content and refusal deltas joined, tool calls assembled by `index`.
 */
export function createStreamReply(): {
  add(chunk: ChatCompletionChunk): void;
  message(): ChatCompletionMessageParam;
} {
  let content = '';
  let refusal = '';
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  return {
    add(chunk) {
      const delta = chunk.choices.find((choice) => choice.index === 0)?.delta;
      if (delta === undefined) return;
      content += delta.content ?? '';
      refusal += delta.refusal ?? '';
      for (const call of delta.tool_calls ?? []) {
        const entry = calls.get(call.index) ?? { id: '', name: '', arguments: '' };
        entry.id += call.id ?? '';
        entry.name += call.function?.name ?? '';
        entry.arguments += call.function?.arguments ?? '';
        calls.set(call.index, entry);
      }
    },
    message() {
      const toolCalls = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, call]) => ({
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments === '' ? '{}' : call.arguments },
        }));
      return {
        role: 'assistant',
        content: content === '' && (toolCalls.length > 0 || refusal !== '') ? null : content,
        ...(refusal === '' ? {} : { refusal }),
        ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
      };
    },
  };
}
