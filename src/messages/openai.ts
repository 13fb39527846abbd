/**
 * OpenAI Chat Completions messages → neutral messages (MSG-2); the way back is in
 * `to-openai.ts`. Pure; no SDK import.
 */

import { base64ByteLength, parseDataUrl, UNKNOWN_FILE_TYPE, UNKNOWN_IMAGE_TYPE } from './attachment-data.ts';
import { contentHash } from './content-hash.ts';
import type { ConversionFormat } from './incremental-converter.ts';
import { checkToolArguments, type NormalizeOptions, normalizeConverted } from './normalize.ts';
import {
  OPENAI_NAMES,
  type OpenAIMessage,
  openAIMessagesSchema,
  type ParsedOpenAIMessage,
} from './openai-schema.ts';
import { extraKeys, parseProviderInput, readProviderInput } from './provider-input.ts';
import { withMarkers } from './provider-metadata.ts';
import { readOnce } from './snapshot.ts';
import type { AttachmentPart, Message, MessageInput, Part, TextPart, ToolCallPart } from './types.ts';

export type {
  OpenAIAssistantMessage,
  OpenAIAudioPart,
  OpenAIContentPart,
  OpenAICustomToolCall,
  OpenAIFilePart,
  OpenAIFunctionMessage,
  OpenAIFunctionToolCall,
  OpenAIImagePart,
  OpenAIMessage,
  OpenAIRefusalPart,
  OpenAISystemMessage,
  OpenAITextPart,
  OpenAIToolCall,
  OpenAIToolMessage,
  OpenAIUserMessage,
} from './openai-schema.ts';
export { type ToOpenAIOptions, toOpenAI } from './to-openai.ts';

const P = 'openai';

type Json = Record<string, unknown>;
type ContentItem = { type: string } & Json;

const KNOWN = {
  message: new Set([
    'role',
    'content',
    'name',
    'refusal',
    'tool_calls',
    'function_call',
    'reasoning_content',
    'tool_call_id',
  ]),
  part: new Set(['type', 'text', 'refusal', 'image_url', 'input_audio', 'file']),
  image: new Set(['url', 'detail']),
  file: new Set(['file_data', 'file_id', 'filename']),
  call: new Set(['id', 'type', 'function', 'custom']),
};

/** How `content` was written: kept so the message converts back the same way. */
function contentShape(content: unknown): 'string' | 'parts' | 'null' | 'absent' {
  if (content === undefined) return 'absent';
  if (content === null) return 'null';
  return typeof content === 'string' ? 'string' : 'parts';
}

function audioMediaType(format: string): string {
  return format === 'mp3' ? 'audio/mpeg' : `audio/${format}`;
}

function partFromContent(item: ContentItem): TextPart | AttachmentPart {
  const extra = extraKeys(item, KNOWN.part);
  switch (item.type) {
    case 'text':
      return { type: 'text', text: item.text as string, ...withMarkers(P, { extra }) };
    case 'refusal':
      return { type: 'text', text: item.refusal as string, ...withMarkers(P, { refusal: 'part', extra }) };
    case 'image_url': {
      const image = item.image_url as Json & { url: string; detail?: string };
      const inline = parseDataUrl(image.url);
      const imageExtra = extraKeys(image, KNOWN.image);
      const canonical = inline !== undefined && inline.prefix === `data:${inline.mediaType};base64,`;
      return {
        type: 'attachment',
        kind: 'image',
        mediaType: inline?.mediaType || UNKNOWN_IMAGE_TYPE,
        ...(inline === undefined
          ? { url: image.url }
          : { data: inline.data, size: base64ByteLength(inline.data) }),
        ...withMarkers(P, {
          part: 'image_url',
          detail: image.detail,
          dataUrl: inline !== undefined && !canonical ? inline.prefix : undefined,
          extra,
          imageExtra,
        }),
      };
    }
    case 'input_audio': {
      const audio = item.input_audio as Json & { data: string; format: string };
      return {
        type: 'attachment',
        kind: 'file',
        mediaType: audioMediaType(audio.format),
        data: audio.data,
        size: base64ByteLength(audio.data),
        ...withMarkers(P, {
          part: 'input_audio',
          format: audio.format,
          extra,
          audioExtra: extraKeys(audio, new Set(['data', 'format'])),
        }),
      };
    }
    default: {
      const file = item.file as Json & { file_data?: string; file_id?: string; filename?: string };
      const inline = file.file_data === undefined ? undefined : parseDataUrl(file.file_data);
      const data = inline?.data ?? file.file_data;
      const mediaType = inline?.mediaType || UNKNOWN_FILE_TYPE;
      return {
        type: 'attachment',
        kind: mediaType.startsWith('image/') ? 'image' : 'file',
        mediaType,
        ...(file.filename === undefined ? {} : { filename: file.filename }),
        ...(data === undefined ? {} : { data, size: base64ByteLength(data) }),
        ...withMarkers(P, {
          part: 'file',
          fileId: file.file_id,
          rawFileData: file.file_data !== undefined && inline === undefined ? true : undefined,
          dataUrl:
            inline !== undefined && inline.prefix !== `data:${inline.mediaType};base64,`
              ? inline.prefix
              : undefined,
          extra,
          fileExtra: extraKeys(file, KNOWN.file),
        }),
      };
    }
  }
}

function contentParts(
  content: string | readonly ContentItem[] | null | undefined,
): (TextPart | AttachmentPart)[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return (content ?? []).map(partFromContent);
}

/** Ids for legacy `function_call`s, which have none: stable for a message position and name. */
const legacyCallId = (index: number, name: string): string =>
  `call_fn_${contentHash(`${index}\u0000${name}`)}`;

/** What a conversion carries from message to message. */
export interface ReadState {
  /** Tool name of each call id (ids may be reused: the latest call wins, as SWE-agent writes them). */
  readonly names: Map<string, string>;
  /** Legacy `function_call`s not answered yet, oldest first. */
  legacy: { id: string; name: string }[];
}

function toolCallPart(call: Json & { id: string; type: string }, where: string): ToolCallPart {
  const extra = extraKeys(call, KNOWN.call);
  if (call.type === 'custom') {
    const custom = call.custom as { name: string; input: string };
    return {
      type: 'tool-call',
      id: call.id,
      name: custom.name,
      arguments: JSON.stringify(custom.input),
      ...withMarkers(P, { type: 'custom', extra }),
    };
  }
  const fn = call.function as { name: string; arguments: string };
  return {
    type: 'tool-call',
    id: call.id,
    name: fn.name,
    arguments: checkToolArguments(fn.arguments, `${where}.function.arguments`),
    ...withMarkers(P, { extra }),
  };
}

function messageFromOpenAI(message: ParsedOpenAIMessage, index: number, state: ReadState): MessageInput {
  const where = `messages[${index}]`;
  const extra = extraKeys(message, KNOWN.message);
  const named = message.role !== 'function' && message.name !== undefined ? { name: message.name } : {};
  switch (message.role) {
    case 'system':
    case 'developer':
    case 'user':
      return {
        role: message.role === 'user' ? 'user' : 'system',
        parts: contentParts(message.content),
        ...named,
        ...withMarkers(P, {
          role: message.role === 'developer' ? 'developer' : undefined,
          content: contentShape(message.content),
          extra,
        }),
      };
    case 'tool':
    case 'function': {
      const isLegacy = message.role === 'function';
      let callId: string;
      let toolName: string | undefined;
      if (message.role === 'tool') {
        callId = message.tool_call_id;
        toolName = state.names.get(callId);
      } else {
        const pending = state.legacy.find((call) => call.name === message.name);
        state.legacy = state.legacy.filter((call) => call !== pending);
        callId = pending?.id ?? legacyCallId(index, message.name);
        toolName = message.name;
      }
      return {
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId,
            ...(toolName === undefined ? {} : { toolName }),
            content: contentParts(message.content),
            ...withMarkers(P, {
              content: contentShape(message.content),
              legacy: isLegacy ? true : undefined,
            }),
          },
        ],
        ...named,
        ...withMarkers(P, { extra }),
      };
    }
    case 'assistant': {
      const parts: Part[] = [];
      if (typeof message.reasoning_content === 'string') {
        parts.push({
          type: 'reasoning',
          text: message.reasoning_content,
          ...withMarkers(P, { field: 'reasoning_content' }),
        });
      }
      parts.push(...contentParts(message.content));
      if (typeof message.refusal === 'string') {
        parts.push({ type: 'text', text: message.refusal, ...withMarkers(P, { refusal: 'field' }) });
      }
      (message.tool_calls ?? []).forEach((call, i) => {
        const part = toolCallPart(call, `${where}.tool_calls[${i}]`);
        state.names.set(part.id, part.name);
        parts.push(part);
      });
      if (message.function_call) {
        const fn = message.function_call;
        const id = legacyCallId(index, fn.name);
        state.legacy.push({ id, name: fn.name });
        state.names.set(id, fn.name);
        parts.push({
          type: 'tool-call',
          id,
          name: fn.name,
          arguments: checkToolArguments(fn.arguments, `${where}.function_call.arguments`),
          ...withMarkers(P, { legacy: true }),
        });
      }
      const nulls = Object.fromEntries(
        (['refusal', 'tool_calls', 'function_call', 'reasoning_content'] as const)
          .filter((key) => message[key] === null)
          .map((key) => [key, null]),
      );
      const kept = { ...(extra ?? {}), ...nulls };
      return {
        role: 'assistant',
        parts,
        ...named,
        ...withMarkers(P, {
          content: contentShape(message.content),
          extra: Object.keys(kept).length ? kept : undefined,
        }),
      };
    }
  }
}

/**
 * Converts OpenAI Chat Completions request messages to neutral messages (MSG-2).
 *
 * - `developer` becomes `system`, marked so it converts back to `developer`.
 * - `tool_calls[].function.arguments` is kept byte for byte (checked to be JSON); custom tool
 *   calls keep their free-form `input` as a JSON string; a legacy `function_call` gets a
 *   deterministic id and the `function` message that answers it becomes its tool result.
 * - `tool` messages become tool results named after their call; `refusal` becomes text.
 * - `data:` URL images, `input_audio` and `file_data` become attachments with media type and
 *   decoded size; `https:` images keep their URL.
 * - `reasoning_content` (OpenAI-compatible servers) becomes a reasoning part.
 *
 * @param messages - The `messages` array of a request, or `{ messages }`.
 * @throws ChatfoldError `E_UNKNOWN_ROLE`, `E_INVALID_MESSAGE` or `E_INVALID_TOOL_ARGUMENTS` naming
 *   the path, e.g. `messages[3].tool_calls[0].function.arguments`.
 * @example
 * const messages = fromOpenAI([{ role: 'user', content: 'Hello' }]);
 */
export function fromOpenAI(
  messages: readonly OpenAIMessage[] | { readonly messages: readonly OpenAIMessage[] },
  options: NormalizeOptions = {},
): Message[] {
  return fromOpenAIList(messagesOf(messages), options);
}

/** The `messages` array of a request or the array itself, read once. */
function messagesOf(input: unknown): unknown {
  // Guarded: a revoked proxy throws from Array.isArray itself (issue 24 §2).
  return readOnce(
    () =>
      !Array.isArray(input) && typeof input === 'object' && input !== null && 'messages' in input
        ? input.messages
        : input,
    'messages',
    'fromOpenAI',
  );
}

/** {@link fromOpenAI} of the `messages` array itself. */
function fromOpenAIList(list: unknown, options: NormalizeOptions): Message[] {
  const parsed = parseProviderInput(openAIMessagesSchema, list, OPENAI_NAMES);
  const state: ReadState = { names: new Map(), legacy: [] };
  return normalizeConverted(
    parsed.map((message, index) => messageFromOpenAI(message, index, state)),
    options,
  );
}

/**
 * {@link fromOpenAI} message by message, for `createIncrementalConverter`: a history resent
 * with new messages converts only those (issue 19 §2), with the tool names of earlier calls
 * and the unanswered legacy `function_call`s carried over.
 */
export const openAIConversion: ConversionFormat<ReadState> = {
  read: (input, _options, previous) => readProviderInput(messagesOf(input), OPENAI_NAMES, {}, previous),
  accepts: (messages) => openAIMessagesSchema.safeParse(messages).success,
  start: () => ({ names: new Map(), legacy: [] }),
  copy: (state) => ({ names: new Map(state.names), legacy: [...state.legacy] }),
  convert: (message, index, state) => messageFromOpenAI(message as ParsedOpenAIMessage, index, state),
  convertAll: fromOpenAIList,
};
