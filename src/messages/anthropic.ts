/**
 * Anthropic Messages requests → neutral messages (MSG-2); the way back is in
 * `to-anthropic.ts`. Pure; no SDK import.
 */

import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { AnthropicBetaBlock } from './anthropic-request.ts';
import {
  ANTHROPIC_NAMES,
  ANTHROPIC_OPAQUE_BLOCKS,
  type AnthropicBlockInput,
  type AnthropicRequestInput,
  anthropicBlockSchema,
  anthropicContentSchema,
  anthropicRequestSchema,
  type ParsedAnthropicBlock,
} from './anthropic-schema.ts';
import { base64ByteLength, textToBase64, UNKNOWN_FILE_TYPE, UNKNOWN_IMAGE_TYPE } from './attachment-data.ts';
import { type NormalizeOptions, normalizeConverted } from './normalize.ts';
import { extraKeys, parseProviderInput } from './provider-input.ts';
import { type OpaqueItem, opaqueMarker, withMarkers } from './provider-metadata.ts';
import type {
  AttachmentPart,
  JsonValue,
  Message,
  MessageInput,
  Part,
  TextPart,
  ToolResultPart,
} from './types.ts';

export type { UnsupportedAttachments } from './anthropic-attachment.ts';
export type { AnthropicApi } from './anthropic-carried-blocks.ts';
export type {
  AnthropicBetaBlock,
  AnthropicBetaRequest,
  AnthropicBlock,
  AnthropicDocumentBlock,
  AnthropicDocumentSource,
  AnthropicImageBlock,
  AnthropicImageSource,
  AnthropicMessage,
  AnthropicRedactedThinkingBlock,
  AnthropicRequest,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from './anthropic-request.ts';
export type {
  AnthropicBlockInput,
  AnthropicMessageInput,
  AnthropicRequestInput,
} from './anthropic-schema.ts';
export type { AnthropicServerBlock } from './anthropic-server-blocks.ts';
export { DEFAULT_TO_ANTHROPIC_OPTIONS, type ToAnthropicOptions, toAnthropic } from './to-anthropic.ts';

const P = 'anthropic';
const OPAQUE = new Set<string>(ANTHROPIC_OPAQUE_BLOCKS);
type Json = Record<string, unknown>;

const KNOWN: Record<string, ReadonlySet<string>> = {
  text: new Set(['type', 'text']),
  image: new Set(['type', 'source']),
  document: new Set(['type', 'source', 'title']),
  tool_use: new Set(['type', 'id', 'name', 'input']),
  tool_result: new Set(['type', 'tool_use_id', 'content', 'is_error']),
  thinking: new Set(['type', 'thinking', 'signature']),
  redacted_thinking: new Set(['type', 'data']),
};

function attachmentFromBlock(block: Json & { type: 'image' | 'document' }): AttachmentPart {
  const source = block.source as Json & { type: string };
  const isImage = block.type === 'image';
  const extra = extraKeys(block, KNOWN[block.type] as ReadonlySet<string>);
  const base: AttachmentPart = {
    type: 'attachment',
    kind: isImage ? 'image' : 'file',
    mediaType: isImage ? UNKNOWN_IMAGE_TYPE : UNKNOWN_FILE_TYPE,
    ...(typeof block.title === 'string' ? { filename: block.title } : {}),
  };
  const markers = { source: source.type, extra, title: block.title === null ? null : undefined };
  const sourceExtra = extraKeys(source, new Set(['type', 'media_type', 'data', 'url', 'file_id', 'content']));
  switch (source.type) {
    case 'base64': {
      const data = source.data as string;
      return {
        ...base,
        mediaType: source.media_type as string,
        data,
        size: base64ByteLength(data),
        ...withMarkers(P, { ...markers, sourceExtra }),
      };
    }
    case 'text': {
      // Plain-text documents are stored as base64 like every inline attachment (size = UTF-8 bytes).
      const data = textToBase64(source.data as string);
      return {
        ...base,
        mediaType: source.media_type as string,
        data,
        size: base64ByteLength(data),
        ...withMarkers(P, { ...markers, sourceExtra }),
      };
    }
    case 'url':
      // URL documents are PDFs (the only type the API fetches by URL).
      return {
        ...base,
        ...(isImage ? {} : { mediaType: 'application/pdf' }),
        url: source.url as string,
        ...withMarkers(P, { ...markers, sourceExtra }),
      };
    case 'file':
      return { ...base, ...withMarkers(P, { ...markers, fileId: source.file_id as string, sourceExtra }) };
    default:
      // `content` documents (an array of blocks) have no neutral form; the source rides along.
      return {
        ...base,
        mediaType: 'text/plain',
        ...withMarkers(P, { ...markers, content: source.content as JsonValue, sourceExtra }),
      };
  }
}

function toolResultFromBlock(block: Json & { tool_use_id: string }): ToolResultPart {
  const raw = block.content as string | readonly (Json & { type: string })[] | undefined;
  const content: (TextPart | AttachmentPart)[] = [];
  const opaque: OpaqueItem[] = [];
  if (typeof raw === 'string') content.push({ type: 'text', text: raw });
  else {
    for (const [index, inner] of (raw ?? []).entries()) {
      if (OPAQUE.has(inner.type)) opaque.push({ index, value: inner as JsonValue });
      else content.push(partFromParsed(inner as ParsedAnthropicBlock) as TextPart | AttachmentPart);
    }
  }
  return {
    type: 'tool-result',
    callId: block.tool_use_id,
    content,
    ...(typeof block.is_error === 'boolean' ? { isError: block.is_error } : {}),
    ...withMarkers(P, {
      content: raw === undefined ? 'absent' : typeof raw === 'string' ? 'string' : undefined,
      extra: extraKeys(block, KNOWN.tool_result as ReadonlySet<string>),
      opaque: opaqueMarker(opaque),
    }),
  };
}

function partFromParsed(block: ParsedAnthropicBlock): Part {
  const extra =
    KNOWN[block.type] === undefined ? undefined : extraKeys(block, KNOWN[block.type] as ReadonlySet<string>);
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text, ...withMarkers(P, { extra }) };
    case 'image':
    case 'document':
      return attachmentFromBlock(block as Json & { type: 'image' | 'document' });
    case 'thinking':
      return {
        type: 'reasoning',
        text: block.thinking,
        ...(block.signature === undefined ? {} : { signature: block.signature }),
        ...withMarkers(P, { extra }),
      };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redactedData: block.data, ...withMarkers(P, { extra }) };
    case 'tool_use':
      return {
        type: 'tool-call',
        id: block.id,
        name: block.name,
        arguments: JSON.stringify(block.input),
        ...withMarkers(P, { extra }),
      };
    case 'tool_result':
      return toolResultFromBlock(block);
    default:
      // Callers route server-tool blocks to opaque items before getting here.
      throw new Error(`unreachable: ${block.type}`);
  }
}

/**
 * Converts one Anthropic content block to a neutral part (used by the Claude Code importer,
 * whose transcripts hold API blocks). Server-tool blocks have no part: they are rejected here
 * and carried as opaque items only by {@link fromAnthropic}.
 *
 * @throws ChatfoldError `E_INVALID_MESSAGE` naming `where` and the bad field.
 */
export function partFromAnthropicBlock(
  block: AnthropicBlockInput | AnthropicBetaBlock | Json,
  where: string,
): Part {
  const parsed = parseProviderInput(anthropicBlockSchema, block, { ...ANTHROPIC_NAMES, root: where });
  if (OPAQUE.has(parsed.type)) {
    throw new ChatfoldError(
      'E_INVALID_MESSAGE',
      `${where}.type: unsupported Anthropic block ${JSON.stringify(parsed.type)} for a single part; server-tool blocks are carried only by whole turns (fromAnthropic, messagesFromAnthropicTurn)`,
      { where, blockType: parsed.type },
    );
  }
  return partFromParsed(parsed);
}

/**
 * One Anthropic turn → one or more neutral messages, in order: a user turn's `tool_result`
 * blocks become a `tool` message and its other blocks a `user` message (several when they
 * alternate). Server-tool blocks are kept on the message they sit in.
 */
export function messagesFromAnthropicTurn(
  role: 'user' | 'assistant',
  content: unknown,
  where: string,
): MessageInput[] {
  const parsed = parseProviderInput(anthropicContentSchema, content, {
    ...ANTHROPIC_NAMES,
    root: `${where}.content`,
  });
  return turnFromParsed(role, parsed);
}

/**
 * {@link messagesFromAnthropicTurn} for content the request's schema already parsed: parsing
 * it again per turn copied and checked every block twice (issue 24 §3).
 */
function turnFromParsed(
  role: 'user' | 'assistant',
  parsed: string | readonly ParsedAnthropicBlock[],
): MessageInput[] {
  if (typeof parsed === 'string') {
    return [
      {
        role,
        parts: parsed === '' ? [] : [{ type: 'text', text: parsed }],
        ...withMarkers(P, { content: 'string' }),
      },
    ];
  }
  const out: { role: MessageInput['role']; parts: Part[]; opaque: OpaqueItem[] }[] = [];
  for (const block of parsed) {
    const isOpaque = OPAQUE.has(block.type);
    const kind = role === 'assistant' ? 'assistant' : block.type === 'tool_result' ? 'tool' : 'user';
    let current = out.at(-1);
    if (current?.role !== kind) {
      current = { role: kind, parts: [], opaque: [] };
      out.push(current);
    }
    if (isOpaque)
      current.opaque.push({ index: current.parts.length + current.opaque.length, value: block as JsonValue });
    else current.parts.push(partFromParsed(block));
  }
  if (out.length === 0) return [{ role, parts: [] }];
  return out.map((message) => ({
    role: message.role,
    parts: message.parts,
    ...withMarkers(P, { opaque: opaqueMarker(message.opaque) }),
  }));
}

/** `system` (top level, or a `system` message inside `messages` when `inline`). */
function systemMessage(system: string | readonly ParsedAnthropicBlock[], inline: boolean): MessageInput {
  return {
    role: 'system',
    parts:
      typeof system === 'string'
        ? [{ type: 'text', text: system }]
        : system.map((block) => partFromParsed(block)),
    ...withMarkers(P, {
      content: typeof system === 'string' ? 'string' : undefined,
      inline: inline ? true : undefined,
    }),
  };
}

/**
 * Converts an Anthropic Messages request (`system` + `messages`) to neutral messages (MSG-2).
 *
 * - `system` (a string or text blocks) becomes one system message.
 * - `tool_use.input` becomes `arguments` JSON text; `thinking` (with `signature`) and
 *   `redacted_thinking` become reasoning parts kept intact.
 * - A user turn's `tool_result` blocks become a `tool` message (content string or blocks,
 *   `is_error`), and text after them a separate user message, in order.
 * - `cache_control`, `citations` and other block keys ride in `providerMetadata`; server-tool
 *   blocks (`server_tool_use`, `web_search_tool_result`, …) are carried verbatim.
 *
 * @throws ChatfoldError `E_UNKNOWN_ROLE` or `E_INVALID_MESSAGE` naming the path, e.g.
 *   `messages[2].content[1].input`.
 * @example
 * const messages = fromAnthropic({ system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] });
 */
export function fromAnthropic(request: AnthropicRequestInput, options: NormalizeOptions = {}): Message[] {
  const parsed = parseProviderInput(anthropicRequestSchema, request, ANTHROPIC_NAMES);
  const out: MessageInput[] = [];
  if (parsed.system !== undefined) out.push(systemMessage(parsed.system, false));
  for (const message of parsed.messages) {
    if (message.role === 'system') out.push(systemMessage(message.content, true));
    else for (const turn of turnFromParsed(message.role, message.content)) out.push(turn);
  }
  return normalizeConverted(out, options);
}
