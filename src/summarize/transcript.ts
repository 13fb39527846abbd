import type { Message } from '../messages/types.ts';
import { clipText } from '../projection/clip-text.ts';

/** Longest tool output copied into a summarization prompt, in characters (head + tail kept). */
export const DEFAULT_TRANSCRIPT_OUTPUT_CHARS = 2000;

/**
 * Serializes messages compactly for a summarization prompt: one block per message with its
 * role, tool calls as `name(arguments)`, long tool outputs clipped head+tail.
 */
export function renderTranscript(
  messages: readonly Message[],
  { maxOutputChars = DEFAULT_TRANSCRIPT_OUTPUT_CHARS, maxChars = Number.POSITIVE_INFINITY } = {},
): string {
  const blocks: string[] = [];
  for (const message of messages) {
    const lines: string[] = [];
    for (const part of message.parts) {
      switch (part.type) {
        case 'text':
          lines.push(part.text);
          break;
        case 'tool-call':
          lines.push(`→ ${part.name}(${clipText(part.arguments, maxOutputChars, message.id)})`);
          break;
        case 'tool-result': {
          const text = part.content
            .map((inner) => (inner.type === 'text' ? inner.text : `[${inner.kind} ${inner.mediaType}]`))
            .join('\n');
          lines.push(`${part.isError ? '✗ error' : '←'} ${clipText(text, maxOutputChars, message.id)}`);
          break;
        }
        case 'attachment':
          lines.push(`[${part.kind}${part.filename ? ` ${part.filename}` : ''} ${part.mediaType}]`);
          break;
        case 'reasoning':
          break;
      }
    }
    blocks.push(`[${message.role}]\n${lines.join('\n')}`);
  }
  const transcript = blocks.join('\n\n');
  return transcript.length > maxChars ? clipText(transcript, maxChars, 'transcript') : transcript;
}
