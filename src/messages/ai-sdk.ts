/**
 * Vercel AI SDK `ModelMessage`s → neutral messages (MSG-2); the way back is in `to-ai-sdk.ts`.
 * Pure; chatfold never imports `ai`.
 */
import { encodeOpaque, readAiSdkData, toJsonValue } from './ai-sdk-data.ts';
import {
  AI_SDK_NAMES,
  AI_SDK_OPAQUE_PARTS,
  type AiSdkMessageInput,
  aiSdkMessagesSchema,
  type ParsedAiSdkMessage,
} from './ai-sdk-schema.ts';
import { base64ByteLength, UNKNOWN_FILE_TYPE, UNKNOWN_IMAGE_TYPE } from './attachment-data.ts';
import type { ConversionFormat } from './incremental-converter.ts';
import { DEFAULT_MAX_MESSAGE_CHARS, type NormalizeOptions, normalizeConverted } from './normalize.ts';
import { extraKeys, parseProviderInput, readProviderInput } from './provider-input.ts';
import { type OpaqueItem, opaqueMarker, withMarkers } from './provider-metadata.ts';
import type {
  AttachmentPart,
  JsonValue,
  Message,
  MessageInput,
  Part,
  ProviderMetadata,
  TextPart,
  ToolResultPart,
} from './types.ts';

export type {
  AiSdkCustomPart,
  AiSdkData,
  AiSdkDataContent,
  AiSdkFilePart,
  AiSdkImagePart,
  AiSdkJsonValue,
  AiSdkLegacyToolResultContent,
  AiSdkMessage,
  AiSdkMessageInput,
  AiSdkOpaquePart,
  AiSdkPart,
  AiSdkProviderOptions,
  AiSdkProviderReference,
  AiSdkReasoningFilePart,
  AiSdkReasoningPart,
  AiSdkTaggedData,
  AiSdkTextPart,
  AiSdkToolApprovalRequest,
  AiSdkToolApprovalResponse,
  AiSdkToolCallPart,
  AiSdkToolResultContent,
  AiSdkToolResultOutput,
  AiSdkToolResultPart,
} from './ai-sdk-schema.ts';
export { toAiSdk } from './to-ai-sdk.ts';

const P = 'aiSdk';
const OPAQUE = new Set<string>(AI_SDK_OPAQUE_PARTS);
type Json = Record<string, unknown>;
type Options = { [provider: string]: { [key: string]: JsonValue } };

/**
 * Moves the provider options chatfold understands into neutral fields: Anthropic's
 * `signature` / `redactedData` on reasoning and Google's `thoughtSignature` (what the AI SDK's
 * providers read when sending history back). The rest stays as a marker.
 */
function splitOptions(options: Options | undefined): {
  rest: Options | undefined;
  signature?: string;
  redactedData?: string;
  thoughtSignature?: string;
} {
  if (options === undefined) return { rest: undefined };
  const rest: Options = {};
  const found: { signature?: string; redactedData?: string; thoughtSignature?: string } = {};
  for (const [provider, values] of Object.entries(options)) {
    const kept: { [key: string]: JsonValue } = {};
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) continue;
      if (
        provider === 'anthropic' &&
        (key === 'signature' || key === 'redactedData') &&
        typeof value === 'string'
      )
        found[key] = value;
      else if (provider === 'google' && key === 'thoughtSignature' && typeof value === 'string')
        found.thoughtSignature = value;
      else kept[key] = value;
    }
    if (Object.keys(kept).length > 0 || Object.keys(values).length === 0) rest[provider] = kept;
  }
  return { rest: Object.keys(rest).length > 0 ? rest : undefined, ...found };
}

const signatureMarkers = (thoughtSignature: string | undefined): ProviderMetadata | undefined =>
  thoughtSignature === undefined ? undefined : { gemini: { thoughtSignature } };

/** Merges markers of two providers into one `providerMetadata`. */
function metadata(
  aiSdk: Record<string, JsonValue | undefined>,
  gemini?: ProviderMetadata,
): { providerMetadata?: ProviderMetadata } {
  const own = withMarkers(P, aiSdk).providerMetadata;
  if (own === undefined && gemini === undefined) return {};
  return { providerMetadata: { ...(own ?? {}), ...(gemini ?? {}) } };
}

function attachmentFrom(
  item: Json & { type: string },
  partMarkers: Record<string, JsonValue | undefined>,
): AttachmentPart {
  const value = item.type === 'image' ? item.image : item.data;
  const read = readAiSdkData(value as never);
  const given = typeof item.mediaType === 'string' ? item.mediaType : undefined;
  const topLevelOnly = given !== undefined && !given.includes('/');
  const isImage = item.type === 'image' || (given ?? read.mediaType ?? '').startsWith('image');
  const mediaType = topLevelOnly
    ? `${given}/*`
    : (given ?? read.mediaType ?? (isImage ? UNKNOWN_IMAGE_TYPE : UNKNOWN_FILE_TYPE));
  return {
    type: 'attachment',
    kind: isImage ? 'image' : 'file',
    mediaType,
    ...(typeof item.filename === 'string' ? { filename: item.filename } : {}),
    ...(read.data === undefined ? {} : { data: read.data, size: base64ByteLength(read.data) }),
    ...(read.url === undefined ? {} : { url: read.url }),
    ...withMarkers(P, {
      ...read.markers,
      ...partMarkers,
      mediaType: topLevelOnly ? given : given === undefined ? false : undefined,
    }),
  };
}

function contentItemToPart(item: Json & { type: string }): TextPart | AttachmentPart {
  const extra = extraKeys(
    item,
    new Set([
      'type',
      'text',
      'data',
      'url',
      'mediaType',
      'filename',
      'fileId',
      'providerReference',
      'providerOptions',
    ]),
  );
  const common = { item: item.type, extra, providerOptions: item.providerOptions as JsonValue | undefined };
  if (item.type === 'text') return { type: 'text', text: item.text as string, ...withMarkers(P, common) };
  if (item.type === 'file') return attachmentFrom(item, common);
  const isImage =
    item.type.startsWith('image') ||
    (typeof item.mediaType === 'string' && item.mediaType.startsWith('image/'));
  const base = {
    type: 'attachment' as const,
    kind: isImage ? ('image' as const) : ('file' as const),
    mediaType:
      typeof item.mediaType === 'string' ? item.mediaType : isImage ? UNKNOWN_IMAGE_TYPE : UNKNOWN_FILE_TYPE,
    ...(typeof item.filename === 'string' ? { filename: item.filename } : {}),
  };
  if (typeof item.data === 'string')
    return { ...base, data: item.data, size: base64ByteLength(item.data), ...withMarkers(P, common) };
  if (typeof item.url === 'string') {
    return {
      ...base,
      url: item.url,
      ...withMarkers(P, { ...common, mediaType: item.mediaType === undefined ? false : undefined }),
    };
  }
  if (item.providerReference !== undefined)
    return {
      ...base,
      ...withMarkers(P, { ...common, providerReference: item.providerReference as JsonValue }),
    };
  return { ...base, ...withMarkers(P, { ...common, fileId: item.fileId as JsonValue }) };
}

function toolResultFrom(
  part: Json & { toolCallId: string; toolName: string; output: Json & { type: string } },
): ToolResultPart {
  const output = part.output;
  const content: (TextPart | AttachmentPart)[] = [];
  const opaque: OpaqueItem[] = [];
  switch (output.type) {
    case 'text':
    case 'error-text':
      content.push({ type: 'text', text: output.value as string });
      break;
    case 'json':
    case 'error-json':
      content.push({ type: 'text', text: JSON.stringify(output.value) });
      break;
    case 'execution-denied':
      if (typeof output.reason === 'string') content.push({ type: 'text', text: output.reason });
      break;
    default:
      (output.value as (Json & { type: string })[]).forEach((item, index) => {
        if (item.type === 'custom') opaque.push({ index, value: toJsonValue(item) });
        else content.push(contentItemToPart(item));
      });
  }
  const { rest } = splitOptions(part.providerOptions as Options | undefined);
  return {
    type: 'tool-result',
    callId: part.toolCallId,
    toolName: part.toolName,
    content,
    ...(output.type.startsWith('error') || output.type === 'execution-denied' ? { isError: true } : {}),
    ...withMarkers(P, {
      output: output.type,
      outputOptions: output.providerOptions as JsonValue | undefined,
      providerOptions: rest,
      extra: extraKeys(part, new Set(['type', 'toolCallId', 'toolName', 'output', 'providerOptions'])),
      opaque: opaqueMarker(opaque),
    }),
  };
}

function partFrom(part: Json & { type: string }): Part {
  const { rest, signature, redactedData, thoughtSignature } = splitOptions(
    part.providerOptions as Options | undefined,
  );
  const extra = extraKeys(
    part,
    new Set([
      'type',
      'text',
      'image',
      'data',
      'mediaType',
      'filename',
      'toolCallId',
      'toolName',
      'input',
      'output',
      'providerOptions',
    ]),
  );
  switch (part.type) {
    case 'text':
      return {
        type: 'text',
        text: part.text as string,
        ...metadata({ providerOptions: rest, extra }, signatureMarkers(thoughtSignature)),
      };
    case 'reasoning':
      return {
        type: 'reasoning',
        text: part.text as string,
        ...(signature === undefined ? {} : { signature }),
        ...(redactedData === undefined ? {} : { redactedData }),
        ...metadata({ providerOptions: rest, extra }, signatureMarkers(thoughtSignature)),
      };
    case 'image':
    case 'file': {
      const attachment = attachmentFrom(part, { part: part.type, providerOptions: rest, extra });
      const gemini = signatureMarkers(thoughtSignature);
      return gemini === undefined
        ? attachment
        : { ...attachment, providerMetadata: { ...attachment.providerMetadata, ...gemini } };
    }
    case 'tool-call':
      return {
        type: 'tool-call',
        id: part.toolCallId as string,
        name: part.toolName as string,
        arguments: JSON.stringify(part.input ?? {}),
        ...metadata(
          { providerOptions: rest, extra, noInput: part.input === undefined ? true : undefined },
          signatureMarkers(thoughtSignature),
        ),
      };
    default:
      return toolResultFrom(part as never);
  }
}

/** Provider-executed calls and results, approvals, custom and reasoning-file parts have no neutral part. */
const isOpaque = (part: Json & { type: string }, role: string): boolean =>
  OPAQUE.has(part.type) ||
  (role === 'assistant' && part.type === 'tool-result') ||
  (part.type === 'tool-call' && part.providerExecuted === true);

function messageFrom(message: ParsedAiSdkMessage): MessageInput {
  const extra = extraKeys(message, new Set(['role', 'content', 'providerOptions']));
  const base = { providerOptions: message.providerOptions as JsonValue | undefined, extra };
  if (typeof message.content === 'string') {
    return {
      role: message.role,
      parts: [{ type: 'text', text: message.content }],
      ...withMarkers(P, { ...base, content: 'string' }),
    };
  }
  const parts: Part[] = [];
  const opaque: OpaqueItem[] = [];
  const forms: Record<string, JsonValue> = {};
  (message.content as (Json & { type: string })[]).forEach((part, index) => {
    if (!isOpaque(part, message.role)) {
      parts.push(partFrom(part));
      return;
    }
    // Reasoning files hold bytes or URL objects: remember where, so they come back as such.
    const encoded = encodeOpaque(part);
    opaque.push({ index, value: encoded.value });
    if (encoded.forms !== undefined) forms[index] = encoded.forms;
  });
  return {
    role: message.role,
    parts,
    ...withMarkers(P, {
      ...base,
      opaque: opaqueMarker(opaque),
      opaqueForms: Object.keys(forms).length === 0 ? undefined : forms,
    }),
  };
}

/**
 * Most bytes one byte array may carry: their base64 text must fit in one JavaScript string
 * (V8's limit is 2^29 − 24 characters), whatever `maxMessageChars` allows.
 */
const MAX_BASE64_BYTES = Math.floor(((2 ** 29 - 24) * 3) / 4) - 3;

/**
 * Converts Vercel AI SDK `ModelMessage`s (v5, v6, v7) to neutral messages (MSG-2). The
 * provider-level prompt of a language model (`LanguageModelV4Prompt`, what middleware sees) has
 * the same shapes and converts too.
 *
 * - `tool-call.input` becomes `arguments` JSON text; `tool-result.output` becomes the result's
 *   content (`text`/`error-text` as is, `json`/`error-json` as JSON text, `content` items as
 *   text and attachments; `error-*` and `execution-denied` set `isError`).
 * - Images and files (base64, data URL, URL, bytes, v7 tagged data) become attachments with
 *   their decoded size; the form they came in is remembered for the way back.
 * - `providerOptions.anthropic.signature` / `redactedData` on reasoning and
 *   `providerOptions.google.thoughtSignature` become the neutral signature fields, so the
 *   history converts natively to Anthropic and Gemini; other `providerOptions` ride along.
 * - Approval, custom, reasoning-file and provider-executed tool parts are carried verbatim
 *   (bytes and `URL` objects in them come back as bytes and `URL` objects).
 *
 * @throws ChatfoldError `E_UNKNOWN_ROLE` or `E_INVALID_MESSAGE` naming the path, e.g.
 *   `messages[2].content[0].output.type`.
 * @example
 * const messages = fromAiSdk(result.response.messages);
 */
export function fromAiSdk(messages: readonly AiSdkMessageInput[], options: NormalizeOptions = {}): Message[] {
  const parsed = parseProviderInput(aiSdkMessagesSchema, messages, AI_SDK_NAMES, binaryLimit(options));
  return normalizeConverted(parsed.map(messageFrom), options);
}

/**
 * Bytes are refused by their length before any base64 (issue 24 §3): a ~400 MiB array would
 * otherwise be converted first and kill the process. Base64 of n bytes is 4n/3 characters.
 */
function binaryLimit(options: NormalizeOptions): { maxBinaryBytes: number } {
  const maxChars = options.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
  return { maxBinaryBytes: Math.min(Math.floor((maxChars * 3) / 4), MAX_BASE64_BYTES) };
}

/**
 * {@link fromAiSdk} message by message, for `createIncrementalConverter`: a history
 * resent with new messages converts only those (issue 19 §2). No state crosses messages.
 */
export const aiSdkConversion: ConversionFormat<undefined> = {
  read: (input, options, previous) => readProviderInput(input, AI_SDK_NAMES, binaryLimit(options), previous),
  accepts: (messages) => aiSdkMessagesSchema.safeParse(messages).success,
  start: () => undefined,
  copy: () => undefined,
  convert: (message) => messageFrom(message as ParsedAiSdkMessage),
  convertAll: (read, options) => fromAiSdk(read as readonly AiSdkMessageInput[], options),
};
