/**
 * Neutral messages → AI SDK (MSG-2). Pure; no SDK import.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { decodeOpaque, writeAiSdkData } from './ai-sdk-data.ts';
import type {
  AiSdkMessage,
  AiSdkPart,
  AiSdkProviderOptions,
  AiSdkToolResultContent,
  AiSdkToolResultOutput,
} from './ai-sdk-schema.ts';
import { assertMessages } from './check-messages.ts';
import { reasoningOption, type ToProviderOptions } from './converter-options.ts';
import { jsonTextDepth, MAX_NESTING_DEPTH } from './json-depth.ts';
import {
  type Markers,
  markersOf,
  objectMarker,
  opaqueItems,
  restoreOpaque,
  stringMarker,
} from './provider-metadata.ts';
import { parseToolArguments } from './tool-arguments.ts';
import type { AttachmentPart, JsonValue, Message, Part, TextPart, ToolResultPart } from './types.ts';

const P = 'aiSdk';
type Options = { [provider: string]: { [key: string]: JsonValue } };

const objectOf = (markers: Markers, key: string) => objectMarker(markers, key) ?? {};

/** `providerOptions` for a part: the kept ones plus the neutral signatures put back in place. */
function optionsFor(part: Part, markers: Markers): { providerOptions?: AiSdkProviderOptions } {
  const kept = (objectMarker(markers, 'providerOptions') ?? {}) as Options;
  const out: Options = Object.fromEntries(
    Object.entries(kept).map(([provider, values]) => [provider, { ...values }]),
  );
  const add = (provider: string, key: string, value: string | undefined) => {
    if (value === undefined) return;
    out[provider] = { ...(out[provider] ?? {}), [key]: value };
  };
  if (part.type === 'reasoning') {
    add('anthropic', 'signature', part.signature);
    add('anthropic', 'redactedData', part.redactedData);
  }
  add('google', 'thoughtSignature', stringMarker(markersOf(part, 'gemini'), 'thoughtSignature'));
  return Object.keys(out).length === 0 ? {} : { providerOptions: out };
}

function attachmentTo(
  part: AttachmentPart,
  markers: Markers,
  asItem: boolean,
): AiSdkPart | AiSdkToolResultContent {
  const original = stringMarker(markers, 'mediaType');
  const mediaType = original ?? part.mediaType;
  // An image of unknown type (`image/*`) is sent without one; the AI SDK detects it.
  const givenType =
    markers.mediaType === false || (original === undefined && mediaType.endsWith('/*')) ? {} : { mediaType };
  const filename = part.filename === undefined ? {} : { filename: part.filename };
  const item = stringMarker(markers, 'item');
  if (asItem && item !== undefined && item !== 'file') {
    const kept = objectMarker(markers, 'providerOptions');
    const rest = { ...(kept === undefined ? {} : { providerOptions: kept }), ...objectOf(markers, 'extra') };
    if (item.endsWith('-id'))
      return { type: item, fileId: markers.fileId, ...rest } as AiSdkToolResultContent;
    if (item.endsWith('-reference'))
      return { type: item, providerReference: markers.providerReference, ...rest } as AiSdkToolResultContent;
    if (item.endsWith('-url'))
      return { type: item, url: part.url ?? '', ...givenType, ...rest } as AiSdkToolResultContent;
    return { type: item, data: part.data ?? '', mediaType, ...filename, ...rest } as AiSdkToolResultContent;
  }
  if (asItem && item === undefined) {
    return part.data !== undefined
      ? ({
          type: part.kind === 'image' ? 'image-data' : 'file-data',
          data: part.data,
          mediaType,
          ...filename,
        } as AiSdkToolResultContent)
      : ({
          type: part.kind === 'image' ? 'image-url' : 'file-url',
          url: part.url ?? '',
        } as AiSdkToolResultContent);
  }
  const data = writeAiSdkData(part, markers);
  const kind = stringMarker(markers, 'part') ?? (asItem ? 'file' : part.kind === 'image' ? 'image' : 'file');
  const options = optionsFor(part, markers);
  return (
    kind === 'image'
      ? { type: 'image', image: data, ...givenType, ...options, ...objectOf(markers, 'extra') }
      : { type: 'file', data, mediaType, ...filename, ...options, ...objectOf(markers, 'extra') }
  ) as AiSdkPart;
}

function outputOf(part: ToolResultPart, markers: Markers): AiSdkToolResultOutput {
  const kind = stringMarker(markers, 'output');
  const options = objectMarker(markers, 'outputOptions');
  const withOptions = options === undefined ? {} : { providerOptions: options as AiSdkProviderOptions };
  const texts = part.content.every((inner) => inner.type === 'text');
  const text = part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join('');
  if (kind === 'content' || !texts) {
    const items = part.content.map((inner) => {
      const innerMarkers = markersOf(inner, P);
      if (inner.type === 'attachment')
        return attachmentTo(inner, innerMarkers, true) as AiSdkToolResultContent;
      const innerOptions = objectMarker(innerMarkers, 'providerOptions');
      return {
        type: 'text',
        text: inner.text,
        ...(innerOptions === undefined ? {} : { providerOptions: innerOptions }),
      } as AiSdkToolResultContent;
    });
    return {
      type: 'content',
      value: restoreOpaque(items, opaqueItems(markers), (value) => value as AiSdkToolResultContent),
    };
  }
  if (kind === 'execution-denied')
    return {
      type: 'execution-denied',
      ...(part.content.length === 0 ? {} : { reason: text }),
      ...withOptions,
    };
  if ((kind === 'json' || kind === 'error-json') && jsonTextDepth(text) <= MAX_NESTING_DEPTH) {
    try {
      return {
        type: part.isError === true ? 'error-json' : 'json',
        value: JSON.parse(text) as JsonValue,
        ...withOptions,
      };
    } catch {
      // The text was replaced (masked, clipped): send it as text.
    }
  }
  return { type: part.isError === true ? 'error-text' : 'text', value: text, ...withOptions };
}

function partTo(part: Part, names: ReadonlyMap<string, string>, where: string): AiSdkPart {
  const markers = markersOf(part, P);
  const extra = objectOf(markers, 'extra');
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text, ...optionsFor(part, markers), ...extra };
    case 'reasoning':
      return { type: 'reasoning', text: part.text, ...optionsFor(part, markers), ...extra };
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: part.id,
        toolName: part.name,
        input:
          markers.noInput === true && part.arguments === '{}'
            ? undefined
            : parseToolArguments(part.arguments, `${where}.arguments`, 'toAiSdk'),
        ...optionsFor(part, markers),
        ...extra,
      } as AiSdkPart;
    case 'attachment':
      return attachmentTo(part, markers, false) as AiSdkPart;
    case 'tool-result': {
      const toolName = part.toolName ?? names.get(part.callId);
      if (toolName === undefined) {
        throw new ChatfoldError(
          'E_INVALID_MESSAGE',
          `${where}: the AI SDK needs the tool name of a result; the result for call ${JSON.stringify(part.callId)} has no toolName and no matching call`,
          { where, callId: part.callId },
        );
      }
      return {
        type: 'tool-result',
        toolCallId: part.callId,
        toolName,
        output: outputOf(part, markers),
        ...optionsFor(part, markers),
        ...extra,
      };
    }
  }
}

/**
 * Converts neutral messages to Vercel AI SDK `ModelMessage`s (MSG-2). A system message with
 * several text parts becomes several system messages (`ModelMessage` system content is a
 * string). Reasoning keeps Anthropic signatures in `providerOptions.anthropic` and Gemini
 * thought signatures in `providerOptions.google`. Parts and forms that came from the AI SDK come
 * back as they were (a v5 history gives v5 shapes back). The result type is AI SDK 7's
 * `ModelMessage[]` structurally (chatfold does not import `ai`): with `ai` 7 no cast is needed;
 * with `ai` 5 or 6 cast it (`as ModelMessage[]`).
 *
 * @throws ChatfoldError `E_INVALID_MESSAGE` for a tool result whose tool name cannot be found.
 * @example
 * const result = await generateText({ model, messages: toAiSdk(history) });
 */
export function toAiSdk(input: readonly Message[], options: ToProviderOptions = {}): AiSdkMessage[] {
  const messages = assertMessages(input, 'toAiSdk', { cache: options?.cache });
  const reasoning = reasoningOption(options, ['auto', 'omit'], 'toAiSdk');
  const names = new Map<string, string>();
  for (const message of messages)
    for (const part of message.parts) if (part.type === 'tool-call') names.set(part.id, part.name);
  const out: AiSdkMessage[] = [];
  messages.forEach((message, m) => {
    const markers = markersOf(message, P);
    const kept = objectMarker(markers, 'providerOptions');
    const extra = objectOf(markers, 'extra');
    const withOptions = {
      ...(kept === undefined ? {} : { providerOptions: kept as AiSdkProviderOptions }),
      ...extra,
    };
    if (message.role === 'system') {
      const texts = message.parts.filter((part): part is TextPart => part.type === 'text');
      texts.forEach((part, i) => {
        out.push({ role: 'system', content: part.text, ...(i === 0 ? withOptions : {}) });
      });
      return;
    }
    const only = message.parts[0];
    if (
      markers.content === 'string' &&
      message.parts.length === 1 &&
      only?.type === 'text' &&
      markersOf(only, P).extra === undefined
    ) {
      out.push({ role: message.role, content: only.text, ...withOptions } as AiSdkMessage);
      return;
    }
    const parts = message.parts
      .filter((part) => reasoning === 'auto' || part.type !== 'reasoning')
      .map((part, i) => partTo(part, names, `messages[${m}].parts[${i}]`));
    const forms = objectOf(markers, 'opaqueForms');
    const content = restoreOpaque(
      parts,
      opaqueItems(markers),
      (value, index) => decodeOpaque(value, forms[index]) as AiSdkPart,
    );
    // `reasoning: 'omit'` took every part of a reasoning-only turn: send no turn, not an empty one.
    if (content.length === 0 && message.parts.length > 0) return;
    out.push({ role: message.role, content, ...withOptions } as AiSdkMessage);
  });
  return out;
}
