/**
 * Vercel AI SDK `ModelMessage` shapes (v5, v6 and v7 of `ai`), written structurally: chatfold
 * does not import `ai` (an optional peer dependency), so any version with these shapes
 * converts. The zod schema is what `fromAiSdk` checks input against.
 */
import { z } from 'zod';
import { extraValue, looseObject, type ProviderInputNames } from './provider-input.ts';
import type { JsonValue } from './types.ts';

/** Per-provider options on a message, part or tool output (`{ anthropic: { … } }`). */
export type AiSdkProviderOptions = { [provider: string]: { [key: string]: JsonValue } };

/** Binary, base64 or URL content, or (v7) a tagged `{ type: 'data' | 'url' | 'reference' | 'text', … }`. */
export type AiSdkData =
  | string
  | Uint8Array
  | ArrayBuffer
  | URL
  | { readonly type: string }
  | { [provider: string]: string };

/** `{ type: 'text', text }`. */
export interface AiSdkTextPart {
  type: 'text';
  text: string;
  providerOptions?: AiSdkProviderOptions;
}
/** `{ type: 'image', image, mediaType? }` (v7 prefers a `file` part with an image media type). */
export interface AiSdkImagePart {
  type: 'image';
  image: AiSdkData;
  mediaType?: string;
  providerOptions?: AiSdkProviderOptions;
}
/** `{ type: 'file', data, mediaType, filename? }`. */
export interface AiSdkFilePart {
  type: 'file';
  data: AiSdkData;
  mediaType: string;
  filename?: string;
  providerOptions?: AiSdkProviderOptions;
}
/** `{ type: 'reasoning', text }`; Anthropic's signature rides in `providerOptions.anthropic`. */
export interface AiSdkReasoningPart {
  type: 'reasoning';
  text: string;
  providerOptions?: AiSdkProviderOptions;
}
/** `{ type: 'tool-call', toolCallId, toolName, input }`. */
export interface AiSdkToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerOptions?: AiSdkProviderOptions;
  providerExecuted?: boolean;
}
/** An item of a `content` tool output. */
export type AiSdkToolResultContent =
  | { type: 'text'; text: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'media' | 'file-data' | 'image-data'; data: string; mediaType: string; filename?: string }
  | { type: 'file-url' | 'image-url'; url: string; mediaType?: string }
  | { type: 'file-id' | 'image-file-id'; fileId: string | { [provider: string]: string } }
  | { type: 'file'; data: AiSdkData; mediaType: string; filename?: string }
  | { type: 'custom'; providerOptions?: AiSdkProviderOptions };
/** What a tool returned. */
export type AiSdkToolResultOutput =
  | { type: 'text' | 'error-text'; value: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'json' | 'error-json'; value: JsonValue; providerOptions?: AiSdkProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'content'; value: AiSdkToolResultContent[] };
/** `{ type: 'tool-result', toolCallId, toolName, output }`. */
export interface AiSdkToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: AiSdkToolResultOutput;
  providerOptions?: AiSdkProviderOptions;
}
/** Parts with no neutral form (tool approvals, custom parts, reasoning files), carried verbatim. */
export interface AiSdkOpaquePart {
  type: 'tool-approval-request' | 'tool-approval-response' | 'custom' | 'reasoning-file';
  [key: string]: unknown;
}
/** A content part of a `ModelMessage`. */
export type AiSdkPart =
  | AiSdkTextPart
  | AiSdkImagePart
  | AiSdkFilePart
  | AiSdkReasoningPart
  | AiSdkToolCallPart
  | AiSdkToolResultPart
  | AiSdkOpaquePart;

/** A Vercel AI SDK `ModelMessage`. */
export type AiSdkMessage =
  | { role: 'system'; content: string; providerOptions?: AiSdkProviderOptions }
  | {
      role: 'user';
      content: string | (AiSdkTextPart | AiSdkImagePart | AiSdkFilePart)[];
      providerOptions?: AiSdkProviderOptions;
    }
  | {
      role: 'assistant';
      content:
        | string
        | (
            | AiSdkTextPart
            | AiSdkFilePart
            | AiSdkReasoningPart
            | AiSdkToolCallPart
            | AiSdkToolResultPart
            | AiSdkOpaquePart
          )[];
      providerOptions?: AiSdkProviderOptions;
    }
  | {
      role: 'tool';
      content: (AiSdkToolResultPart | AiSdkOpaquePart)[];
      providerOptions?: AiSdkProviderOptions;
    };

/** How AI SDK input is named in error messages. */
export const AI_SDK_NAMES: ProviderInputNames = {
  root: 'messages',
  partNoun: 'AI SDK part',
  roles: ['system', 'user', 'assistant', 'tool'],
};

/** Part types with no neutral form, carried verbatim. */
export const AI_SDK_OPAQUE_PARTS = [
  'tool-approval-request',
  'tool-approval-response',
  'custom',
  'reasoning-file',
] as const;

const providerOptions = z.record(z.string(), z.record(z.string(), extraValue)).optional();
const binary = z.union([z.instanceof(Uint8Array), z.instanceof(ArrayBuffer)]);
const reference = z.record(z.string(), z.string());
const tagged = z.discriminatedUnion('type', [
  looseObject({ type: z.literal('data'), data: z.union([z.string(), binary]) }),
  looseObject({ type: z.literal('url'), url: z.union([z.instanceof(URL), z.string()]) }),
  looseObject({ type: z.literal('reference'), reference }),
  looseObject({ type: z.literal('text'), text: z.string() }),
]);
const data = z.union([z.string(), binary, z.instanceof(URL), tagged, reference]);

const text = looseObject({ type: z.literal('text'), text: z.string(), providerOptions });
const image = looseObject({
  type: z.literal('image'),
  image: data,
  mediaType: z.string().optional(),
  providerOptions,
});
const file = looseObject({
  type: z.literal('file'),
  data,
  mediaType: z.string(),
  filename: z.string().optional(),
  providerOptions,
});
const reasoning = looseObject({ type: z.literal('reasoning'), text: z.string(), providerOptions });
const opaque = z.looseObject({ type: z.enum(AI_SDK_OPAQUE_PARTS) });
const toolCall = looseObject({
  type: z.literal('tool-call'),
  toolCallId: z.string(),
  toolName: z.string(),
  input: extraValue,
  providerOptions,
  providerExecuted: z.boolean().optional(),
});
const contentItem = z.discriminatedUnion('type', [
  looseObject({ type: z.literal('text'), text: z.string(), providerOptions }),
  looseObject({
    type: z.enum(['media', 'file-data', 'image-data']),
    data: z.string(),
    mediaType: z.string(),
    filename: z.string().optional(),
  }),
  looseObject({ type: z.enum(['file-url', 'image-url']), url: z.string(), mediaType: z.string().optional() }),
  looseObject({ type: z.enum(['file-id', 'image-file-id']), fileId: z.union([z.string(), reference]) }),
  looseObject({ type: z.literal('file'), data, mediaType: z.string(), filename: z.string().optional() }),
  z.looseObject({ type: z.literal('custom') }),
]);
const output = z.discriminatedUnion('type', [
  looseObject({ type: z.enum(['text', 'error-text']), value: z.string(), providerOptions }),
  looseObject({ type: z.enum(['json', 'error-json']), value: z.json(), providerOptions }),
  looseObject({ type: z.literal('execution-denied'), reason: z.string().optional(), providerOptions }),
  looseObject({ type: z.literal('content'), value: z.array(contentItem) }),
]);
const toolResult = looseObject({
  type: z.literal('tool-result'),
  toolCallId: z.string(),
  toolName: z.string(),
  output,
  providerOptions,
});

/** Schema of a `ModelMessage[]` (v5–v7 shapes). */
export const aiSdkMessagesSchema = z.array(
  z.discriminatedUnion('role', [
    looseObject({ role: z.literal('system'), content: z.string(), providerOptions }),
    looseObject({
      role: z.literal('user'),
      content: z.union([z.string(), z.array(z.discriminatedUnion('type', [text, image, file]))]),
      providerOptions,
    }),
    looseObject({
      role: z.literal('assistant'),
      content: z.union([
        z.string(),
        z.array(z.discriminatedUnion('type', [text, file, reasoning, toolCall, toolResult, opaque])),
      ]),
      providerOptions,
    }),
    looseObject({
      role: z.literal('tool'),
      content: z.array(z.discriminatedUnion('type', [toolResult, opaque])),
      providerOptions,
    }),
  ]),
);

/** A message as the schema returns it. */
export type ParsedAiSdkMessage = z.output<typeof aiSdkMessagesSchema>[number];
