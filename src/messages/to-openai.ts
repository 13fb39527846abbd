/**
 * Neutral messages → OpenAI (MSG-2). Pure; no SDK import.
 */

import { attachmentPlaceholder } from './attachment-data.ts';
import { assertMessages } from './check-messages.ts';
import { reasoningOption } from './converter-options.ts';
import type { EngineCache } from './engine-cache.ts';
import { nestingError } from './json-depth.ts';
import type { OpenAIContentPart, OpenAIMessage, OpenAITextPart, OpenAIToolCall } from './openai-schema.ts';
import { type Markers, markersOf, objectMarker, stringMarker } from './provider-metadata.ts';
import { invalidArgumentsError, parseToolArguments, toolArgumentsFault } from './tool-arguments.ts';
import type { AttachmentPart, JsonValue, Message, TextPart, ToolCallPart } from './types.ts';

const P = 'openai';

/** Options of {@link toOpenAI}. */
export interface ToOpenAIOptions {
  /**
   * Reasoning parts: Chat Completions has no request field for them, so `'auto'` (default)
   * sends back only reasoning that arrived in an assistant's `reasoning_content` (the field
   * OpenAI-compatible servers such as DeepSeek and vLLM use) and drops the rest; `'omit'` drops
   * all; `'reasoning_content'` sends every reasoning part's text in that field.
   */
  readonly reasoning?: 'auto' | 'omit' | 'reasoning_content';
  /**
   * Remembers checked messages and tool arguments between calls: give the same cache (a
   * conversation's, `createEngineCache()`) when converting the same messages again each turn.
   */
  readonly cache?: EngineCache | undefined;
}

const extraOf = (markers: Markers, key = 'extra'): Readonly<Record<string, JsonValue>> =>
  objectMarker(markers, key) ?? {};

function audioFormat(part: AttachmentPart): string | undefined {
  const kept = stringMarker(markersOf(part, P), 'format');
  if (kept !== undefined) return kept;
  if (part.mediaType === 'audio/mpeg' || part.mediaType === 'audio/mp3') return 'mp3';
  if (part.mediaType === 'audio/wav' || part.mediaType === 'audio/x-wav') return 'wav';
  return undefined;
}

/** An attachment as a user content part; a text placeholder where OpenAI has no way to carry it. */
function attachmentToContent(part: AttachmentPart): OpenAIContentPart {
  const markers = markersOf(part, P);
  const extra = extraOf(markers);
  const kind = stringMarker(markers, 'part');
  const fileId = stringMarker(markers, 'fileId');
  const dataUrl = (data: string) =>
    `${stringMarker(markers, 'dataUrl') ?? `data:${part.mediaType};base64,`}${data}`;
  const format = audioFormat(part);
  if (kind === 'input_audio' || (kind === undefined && part.data !== undefined && format !== undefined)) {
    if (part.data !== undefined && format !== undefined) {
      return {
        type: 'input_audio',
        input_audio: { data: part.data, format, ...extraOf(markers, 'audioExtra') },
        ...extra,
      } as OpenAIContentPart;
    }
  }
  if (kind === 'image_url' || (kind === undefined && part.kind === 'image')) {
    const url = part.data !== undefined ? dataUrl(part.data) : part.url;
    if (url !== undefined) {
      const detail = stringMarker(markers, 'detail');
      return {
        type: 'image_url',
        image_url: { url, ...(detail === undefined ? {} : { detail }), ...extraOf(markers, 'imageExtra') },
        ...extra,
      } as OpenAIContentPart;
    }
  }
  if (part.data !== undefined || fileId !== undefined) {
    const fileData =
      part.data === undefined ? undefined : markers.rawFileData === true ? part.data : dataUrl(part.data);
    return {
      type: 'file',
      file: {
        ...(fileData === undefined ? {} : { file_data: fileData }),
        ...(fileId === undefined ? {} : { file_id: fileId }),
        ...(part.filename === undefined ? {} : { filename: part.filename }),
        ...extraOf(markers, 'fileExtra'),
      },
      ...extra,
    } as OpenAIContentPart;
  }
  return { type: 'text', text: attachmentPlaceholder(part) };
}

function textToContent(part: TextPart): OpenAIContentPart {
  const markers = markersOf(part, P);
  return markers.refusal === 'part'
    ? ({ type: 'refusal', refusal: part.text, ...extraOf(markers) } as OpenAIContentPart)
    : ({ type: 'text', text: part.text, ...extraOf(markers) } as OpenAIContentPart);
}

/**
 * `content` for a message's visible parts: a string when the source had one (or, without a
 * marker, for a single text), `null`/absent when it had that and nothing is left, else parts.
 * `textOnly` roles (system, tool, assistant) get placeholders for attachments.
 */
function toContent(
  parts: readonly (TextPart | AttachmentPart)[],
  shape: string | undefined,
  textOnly: boolean,
): string | OpenAIContentPart[] | null | undefined {
  const single =
    parts.length === 1 && parts[0]?.type === 'text' && markersOf(parts[0], P).refusal === undefined;
  if (parts.length === 0) {
    if (shape === 'null') return null;
    if (shape === 'absent') return undefined;
    if (shape === 'parts') return [];
    return '';
  }
  if (single && shape !== 'parts') return (parts[0] as TextPart).text;
  return parts.map((part) =>
    part.type === 'text'
      ? textToContent(part)
      : textOnly
        ? ({ type: 'text', text: attachmentPlaceholder(part) } as OpenAITextPart)
        : attachmentToContent(part),
  );
}

/** The arguments text of a call, refused when it is not JSON or nests too deep (MSG-4). */
function checkedArguments(
  part: ToolCallPart,
  at: (part: ToolCallPart) => string,
  cache: EngineCache | undefined,
): string {
  const fault = toolArgumentsFault(part, cache);
  if (fault === 'too-deep') throw nestingError(at(part), 'toOpenAI');
  if (fault === 'not-json') throw invalidArgumentsError(part.arguments, at(part), 'toOpenAI');
  return part.arguments;
}

function toolCallToOpenAI(
  part: ToolCallPart,
  at: (part: ToolCallPart) => string,
  cache: EngineCache | undefined,
): OpenAIToolCall {
  const markers = markersOf(part, P);
  if (markers.type === 'custom') {
    const input = parseToolArguments(part.arguments, at(part), 'toOpenAI');
    return {
      id: part.id,
      type: 'custom',
      custom: { name: part.name, input: typeof input === 'string' ? input : part.arguments },
      ...extraOf(markers),
    } as OpenAIToolCall;
  }
  return {
    id: part.id,
    type: 'function',
    function: { name: part.name, arguments: checkedArguments(part, at, cache) },
    ...extraOf(markers),
  } as OpenAIToolCall;
}

function assistantToOpenAI(
  message: Message,
  reasoning: 'auto' | 'omit' | 'reasoning_content',
  where: string,
  cache: EngineCache | undefined,
): OpenAIMessage {
  const markers = markersOf(message, P);
  const visible: TextPart[] = [];
  let refusal: string | undefined;
  const calls: ToolCallPart[] = [];
  let legacy: ToolCallPart | undefined;
  const thoughts: string[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') {
      if (markersOf(part, P).refusal === 'field' && refusal === undefined) refusal = part.text;
      else visible.push(part);
    } else if (part.type === 'tool-call') {
      if (markersOf(part, P).legacy === true && legacy === undefined) legacy = part;
      else calls.push(part);
    } else if (part.type === 'reasoning') {
      const fromField = markersOf(part, P).field === 'reasoning_content';
      if (reasoning === 'reasoning_content' || (reasoning === 'auto' && fromField)) thoughts.push(part.text);
    }
    // Attachments in assistant turns (generated images) have no Chat Completions request field.
  }
  // Where a call's arguments are, for errors (MSG-4).
  const at = (part: ToolCallPart) => `${where}.parts[${message.parts.indexOf(part)}].arguments`;
  const shape =
    stringMarker(markers, 'content') ?? (calls.length > 0 || legacy !== undefined ? 'null' : undefined);
  const content = toContent(visible, shape, true);
  return {
    role: 'assistant',
    ...(content === undefined ? {} : { content }),
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(refusal === undefined ? {} : { refusal }),
    ...(calls.length === 0 ? {} : { tool_calls: calls.map((call) => toolCallToOpenAI(call, at, cache)) }),
    ...(legacy === undefined
      ? {}
      : { function_call: { name: legacy.name, arguments: checkedArguments(legacy, at, cache) } }),
    ...(thoughts.length === 0 ? {} : { reasoning_content: thoughts.join('\n\n') }),
    ...extraOf(markers),
  } as OpenAIMessage;
}

/**
 * Converts neutral messages to OpenAI Chat Completions request messages (MSG-2): one `tool`
 * message per tool result (`function` for a legacy call); system messages marked `developer`
 * go back as `developer`. What Chat Completions cannot carry: a tool result's `isError` (no
 * such field; the content says it), attachments in system, tool and assistant messages (a
 * one-line text placeholder in system/tool content, dropped from assistant turns), and
 * reasoning (see {@link ToOpenAIOptions.reasoning}).
 *
 * @throws ChatfoldError for input that is not neutral messages (see `assertMessages`),
 *   `E_INVALID_TOOL_ARGUMENTS` / `E_NESTING_TOO_DEEP` for tool arguments that are not JSON
 *   or nest too deep (the model would read them back as its own malformed call).
 *
 * @example
 * const completion = await openai.chat.completions.create({ model: 'gpt-4.1', messages: toOpenAI(messages) });
 */
export function toOpenAI(input: readonly Message[], options: ToOpenAIOptions = {}): OpenAIMessage[] {
  const cache = options?.cache; // options may be anything (checked below)
  const messages = assertMessages(input, 'toOpenAI', { cache });
  const reasoning = reasoningOption(options, ['auto', 'omit', 'reasoning_content'], 'toOpenAI');
  const out: OpenAIMessage[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    const markers = markersOf(message, P);
    const name = message.name === undefined ? {} : { name: message.name };
    if (message.role === 'tool') {
      for (const part of message.parts) {
        if (part.type !== 'tool-result') continue;
        const partMarkers = markersOf(part, P);
        const shape = stringMarker(partMarkers, 'content');
        if (partMarkers.legacy === true && part.toolName !== undefined) {
          const text = part.content
            .map((inner) => (inner.type === 'text' ? inner.text : attachmentPlaceholder(inner)))
            .join('');
          out.push({
            role: 'function',
            name: part.toolName,
            content: text === '' && shape === 'null' ? null : text,
            ...extraOf(markers),
          } as OpenAIMessage);
          continue;
        }
        out.push({
          role: 'tool',
          content:
            toContent(part.content, shape === 'null' || shape === 'absent' ? undefined : shape, true) ?? '',
          tool_call_id: part.callId,
          ...name,
          ...extraOf(markers),
        } as OpenAIMessage);
      }
      continue;
    }
    if (message.role === 'assistant') {
      out.push(assistantToOpenAI(message, reasoning, `messages[${index}]`, cache));
      continue;
    }
    const visible = message.parts.filter(
      (part): part is TextPart | AttachmentPart => part.type === 'text' || part.type === 'attachment',
    );
    const isSystem = message.role === 'system';
    out.push({
      role: isSystem ? (markers.role === 'developer' ? 'developer' : 'system') : 'user',
      content: toContent(visible, stringMarker(markers, 'content'), isSystem) ?? '',
      ...name,
      ...extraOf(markers),
    } as OpenAIMessage);
  }
  return out;
}
