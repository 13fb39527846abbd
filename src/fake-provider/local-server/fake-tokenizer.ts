import { asObject } from '../chat-turn.ts';

/**
 * The fake local server's tokenizer: a word-level split in the spirit of the GPT-2 pre-tokenizer
 * (special tokens `<|…|>` whole, letters with their leading space, up to three digits, other
 * symbols, whitespace), each piece one token with a stable id. Not a real vocabulary: it gives
 * the llama.cpp and vLLM fakes token ids and pieces that concatenate back to the text.
 */
const PIECES = /<\|[a-z_]+\|>|\s?\p{L}+|\s?\p{N}{1,3}|\s?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** Id of the begin-of-text token the fake adds when asked for special tokens. */
export const FAKE_BOS_ID = 1;

export function fakePieces(text: string): string[] {
  return text.match(PIECES) ?? [];
}

/** A stable id in 256…100,255 for a piece (FNV-1a). */
export function fakeTokenId(piece: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < piece.length; i++) hash = Math.imul(hash ^ piece.charCodeAt(i), 0x01000193);
  return 256 + ((hash >>> 0) % 100_000);
}

/** Text of an OpenAI Chat message's content: a string, or the text parts of an array. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => asObject(part))
    .filter((part) => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part?.text as string)
    .join('\n');
}

/**
 * The fake chat template: ChatML (`<|im_start|>role\ncontent<|im_end|>\n`, tool calls as their
 * JSON, tool definitions as a system turn), ending with the generation prompt when asked —
 * what `/apply-template` answers and what the vLLM fake tokenizes.
 */
export function renderFakeChatML(messages: readonly unknown[], tools: unknown, generation: boolean): string {
  const turns = messages.map((value) => {
    const message = asObject(value) ?? {};
    const calls = Array.isArray(message.tool_calls) ? `\n${JSON.stringify(message.tool_calls)}` : '';
    return `<|im_start|>${String(message.role)}\n${contentText(message.content)}${calls}<|im_end|>\n`;
  });
  const toolTurn =
    Array.isArray(tools) && tools.length > 0
      ? `<|im_start|>system\n${JSON.stringify(tools)}<|im_end|>\n`
      : '';
  return `${toolTurn}${turns.join('')}${generation ? '<|im_start|>assistant\n' : ''}`;
}
