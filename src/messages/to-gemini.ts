/**
 * Neutral messages → Gemini (MSG-2). Pure; no SDK import.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { attachmentPlaceholder } from './attachment-data.ts';
import { assertMessages } from './check-messages.ts';
import { reasoningOption, type ToProviderOptions } from './converter-options.ts';
import type { GeminiContent, GeminiPart, GeminiRequest } from './gemini-schema.ts';
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
import type { AttachmentPart, JsonValue, Message, Part, ToolResultPart } from './types.ts';

const P = 'gemini';
type JsonObject = { [key: string]: JsonValue };

const extraOf = (markers: Markers, key = 'extra') => objectMarker(markers, key) ?? {};

function attachmentToGemini(part: AttachmentPart): GeminiPart | undefined {
  const markers = markersOf(part, P);
  const blobExtra = extraOf(markers, 'blobExtra');
  if (part.data !== undefined)
    return { inlineData: { mimeType: part.mediaType, data: part.data, ...blobExtra } };
  if (part.url !== undefined) {
    const known = markers.noMimeType !== true && !part.mediaType.endsWith('/*');
    return { fileData: { ...(known ? { mimeType: part.mediaType } : {}), fileUri: part.url, ...blobExtra } };
  }
  return undefined;
}

/**
 * `response` for a tool result: the kept shape when the result came from Gemini; otherwise
 * JSON-object text that is exactly `JSON.stringify` of an object goes as that object, anything
 * else as `{ output }` (or `{ error }` for an error), so converting back gives the same text.
 */
function responseOf(part: ToolResultPart): JsonObject {
  const text = part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join('');
  const shape = stringMarker(markersOf(part, P), 'response');
  if (shape === 'output' || shape === 'error') return { [shape]: text };
  // Only text that opens like JSON.stringify's output can be an object (skips parsing long logs);
  // JSON nested too deep stays text, as nothing downstream could serialise it (MSG-4).
  if (!text.startsWith('{') || jsonTextDepth(text) > MAX_NESTING_DEPTH) {
    return part.isError === true ? { error: text } : { output: text };
  }
  try {
    const value = JSON.parse(text) as JsonValue;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const keys = Object.keys(value);
      const looksWrapped =
        keys.length === 1 &&
        (keys[0] === 'output' || keys[0] === 'error') &&
        typeof value[keys[0]] === 'string';
      if (shape === 'object' || (JSON.stringify(value) === text && !looksWrapped && part.isError !== true))
        return value;
    }
  } catch {
    // Plain text: wrapped below.
  }
  return part.isError === true ? { error: text } : { output: text };
}

function partToGemini(
  part: Part,
  reasoning: 'auto' | 'omit',
  names: ReadonlyMap<string, string>,
  where: string,
): GeminiPart | undefined {
  const markers = markersOf(part, P);
  const signature = stringMarker(markers, 'thoughtSignature');
  const common = { ...(signature === undefined ? {} : { thoughtSignature: signature }), ...extraOf(markers) };
  switch (part.type) {
    case 'text':
      return { text: part.text, ...(markers.thought === false ? { thought: false } : {}), ...common };
    case 'reasoning':
      // Redacted reasoning (Anthropic) has no text Gemini could read; Anthropic signatures mean nothing to it.
      if (reasoning === 'omit' || (part.text === '' && signature === undefined)) return undefined;
      return { text: part.text, thought: true, ...common };
    case 'tool-call': {
      const value = parseToolArguments(part.arguments, `${where}.arguments`, 'toGemini');
      const args =
        typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { input: value };
      const omitArgs = markers.noArgs === true && Object.keys(args).length === 0;
      return {
        functionCall: {
          ...(markers.generatedId === true ? {} : { id: part.id }),
          name: part.name,
          ...(omitArgs ? {} : { args }),
          ...extraOf(markers, 'callExtra'),
        },
        ...common,
      };
    }
    case 'attachment': {
      const converted = attachmentToGemini(part);
      const thought = typeof markers.thought === 'boolean' ? { thought: markers.thought } : {};
      return converted === undefined
        ? { text: attachmentPlaceholder(part) }
        : { ...converted, ...thought, ...common };
    }
    case 'tool-result': {
      const name = part.toolName ?? names.get(part.callId);
      if (name === undefined) {
        throw new ChatfoldError(
          'E_INVALID_MESSAGE',
          `${where}: Gemini needs the function name of a result; the result for call ${JSON.stringify(part.callId)} has no toolName and no matching call`,
          { where, callId: part.callId },
        );
      }
      const files = part.content.filter((inner): inner is AttachmentPart => inner.type === 'attachment');
      const fileParts = files.map((file) => attachmentToGemini(file)).filter((file) => file !== undefined);
      return {
        functionResponse: {
          ...(markers.generatedId === true ? {} : { id: part.callId }),
          name,
          response: responseOf(part),
          ...(fileParts.length === 0
            ? {}
            : { parts: fileParts as NonNullable<GeminiPart['functionResponse']>['parts'] }),
          ...extraOf(markers, 'responseExtra'),
        },
        ...common,
      } as GeminiPart;
    }
  }
}

/**
 * Converts neutral messages to a Gemini request (MSG-2, SUM-7).
 *
 * - System messages go to `systemInstruction` (a `Content`, or the string it came as).
 * - Assistant turns become `model`; tool results become `functionResponse` parts in the `user`
 *   turn after the calls (or the `function` role they came with); consecutive same-role turns
 *   are merged, so results and the user's next text share one turn as Gemini writes them.
 * - Ids are sent where the source had them (or the neutral message came from another format);
 *   generated ids of older Gemini calls are not.
 * - Reasoning goes back as `thought` parts with their `thoughtSignature`; redacted reasoning
 *   (no text) is dropped. Attachments without data or URL become a text placeholder.
 *
 * @throws ChatfoldError `E_INVALID_MESSAGE` for a tool result whose tool name cannot be found;
 *   for input that is not neutral messages (see `assertMessages`); `E_INVALID_TOOL_ARGUMENTS` /
 *   `E_NESTING_TOO_DEEP` for tool arguments that are not JSON or nest too deep.
 * @example
 * const { systemInstruction, contents } = toGemini(history);
 * await ai.models.generateContent({ model, contents, config: { systemInstruction } });
 */
export function toGemini(input: readonly Message[], options: ToProviderOptions = {}): GeminiRequest {
  const messages = assertMessages(input, 'toGemini', { cache: options?.cache });
  const reasoning = reasoningOption(options, ['auto', 'omit'], 'toGemini');
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.parts) if (part.type === 'tool-call') names.set(part.id, part.name);
  }
  const systemParts: GeminiPart[] = [];
  let systemMarkers: Markers | undefined;
  let systemMessages = 0;
  const contents: (GeminiContent & { key: string })[] = [];
  messages.forEach((message, m) => {
    const markers = markersOf(message, P);
    const converted = message.parts
      .map((part, i) => partToGemini(part, reasoning, names, `messages[${m}].parts[${i}]`))
      .filter((part): part is GeminiPart => part !== undefined);
    const parts = restoreOpaque(converted, opaqueItems(markers), (value) => value as GeminiPart);
    if (message.role === 'system') {
      systemMessages++;
      systemMarkers ??= markers;
      systemParts.push(...parts.filter((part) => part.text !== undefined));
      return;
    }
    const resultRole = message.parts.find((part) => part.type === 'tool-result');
    const role =
      message.role === 'assistant'
        ? 'model'
        : markersOf(resultRole ?? message, P).role === 'function'
          ? 'function'
          : 'user';
    const last = contents.at(-1);
    if (last?.key === role) {
      last.parts.push(...parts);
      return;
    }
    const absent = markers.role === 'absent' && role === 'user';
    contents.push({ key: role, ...(absent ? {} : { role }), parts, ...extraOf(markers) });
  });
  const out = contents.map(({ key: _key, ...content }) => content as GeminiContent);
  const only = systemParts[0];
  let systemInstruction: GeminiRequest['systemInstruction'];
  if (systemParts.length > 0 && systemMarkers !== undefined) {
    const asString =
      systemMessages === 1 &&
      systemMarkers.systemInstruction === 'string' &&
      systemParts.length === 1 &&
      Object.keys(only ?? {}).length === 1;
    const role = stringMarker(systemMarkers, 'instructionRole');
    systemInstruction = asString
      ? (only?.text as string)
      : ({
          ...(role === undefined ? {} : { role }),
          parts: systemParts,
          ...extraOf(systemMarkers),
        } as GeminiContent);
  }
  return { ...(systemInstruction === undefined ? {} : { systemInstruction }), contents: out };
}
