import type { Message } from '../messages/types.ts';
import { clipText } from '../projection/clip-text.ts';

/** Longest tool output copied into a summarization prompt, in characters (head + tail kept). */
export const DEFAULT_TRANSCRIPT_OUTPUT_CHARS = 2000;

/**
 * One message of a summarization transcript: its role, then its text, tool calls as
 * `name(arguments)` and tool outputs, long ones clipped head+tail.
 */
export function renderTranscriptMessage(
  message: Message,
  { maxOutputChars = DEFAULT_TRANSCRIPT_OUTPUT_CHARS } = {},
): string {
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
  return `[${message.role}]\n${lines.join('\n')}`;
}

/** Blocks of a transcript are joined by this. */
export const TRANSCRIPT_SEPARATOR = '\n\n';

/**
 * Serializes messages compactly for a summarization prompt: one block per message with its
 * role, tool calls as `name(arguments)`, long tool outputs clipped head+tail.
 */
export function renderTranscript(
  messages: readonly Message[],
  { maxOutputChars = DEFAULT_TRANSCRIPT_OUTPUT_CHARS, maxChars = Number.POSITIVE_INFINITY } = {},
): string {
  const transcript = messages
    .map((message) => renderTranscriptMessage(message, { maxOutputChars }))
    .join(TRANSCRIPT_SEPARATOR);
  return transcript.length > maxChars ? clipText(transcript, maxChars, 'transcript') : transcript;
}
