import type { Message, Part } from '../../messages/types.ts';
import type { MessageState, StubKind, WireMessage, WirePart } from '../api-types.ts';

/** Longest text part sent to the browser; the rest is cut with a note (`chars` has the length). */
export const MAX_WIRE_TEXT = 100_000;
/** Tool output and arguments are shown compactly (WEB-1): a preview of this many characters. */
export const MAX_WIRE_TOOL_TEXT = 4000;

/** Cuts `text` to `max` characters, saying how many were left out. */
export function preview(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… [${(text.length - max).toLocaleString('en-US')} more characters]`;
}

function wirePart(part: Part): WirePart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: preview(part.text, MAX_WIRE_TEXT), chars: part.text.length };
    case 'reasoning':
      return { type: 'reasoning', text: preview(part.text, MAX_WIRE_TOOL_TEXT), chars: part.text.length };
    case 'tool-call':
      return {
        type: 'tool-call',
        callId: part.id,
        name: part.name,
        arguments: preview(part.arguments, MAX_WIRE_TOOL_TEXT),
      };
    case 'tool-result': {
      const text = part.content
        .map((inner) => (inner.type === 'text' ? inner.text : `[${inner.mediaType}]`))
        .join('');
      return {
        type: 'tool-result',
        callId: part.callId,
        ...(part.toolName === undefined ? {} : { name: part.toolName }),
        text: preview(text, MAX_WIRE_TOOL_TEXT),
        chars: text.length,
        isError: part.isError === true,
      };
    }
    case 'attachment':
      // Attachments are metadata only (MSG-1): bytes never go to the browser.
      return {
        type: 'attachment',
        kind: part.kind,
        mediaType: part.mediaType,
        ...(part.filename === undefined ? {} : { filename: part.filename }),
        ...(part.size === undefined ? {} : { size: part.size }),
      };
  }
}

/**
 * A message as the browser shows it: bounded text, no attachment bytes, no provider metadata.
 * Text stays text: the client renders it as escaped markdown, never as HTML (WEB-8).
 */
export function toWireMessage(
  message: Message,
  seq: number,
  state: MessageState,
  stub?: StubKind,
): WireMessage {
  return {
    id: message.id,
    seq,
    role: message.role,
    createdAt: message.createdAt,
    state,
    ...(stub === undefined ? {} : { stub }),
    parts: message.parts.map(wirePart),
  };
}
