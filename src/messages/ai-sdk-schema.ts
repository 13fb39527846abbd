/**
 * Vercel AI SDK `ModelMessage` shapes (v5, v6 and v7 of `ai`), written structurally: chatfold
 * does not import `ai` (an optional peer dependency), so any version with these shapes
 * converts. The zod schema is what `fromAiSdk` checks input against.
 */
import { z } from 'zod';
import { extraValue, looseObject, type ProviderInputNames } from './provider-input.ts';

/**
 * A JSON value as the AI SDK types it (`JSONValue` of `@ai-sdk/provider`): readonly arrays,
 * object values that may be `undefined`. Every version's JSON values are assignable to it.
 */
export type AiSdkJsonValue =
  | null
  | string
  | number
  | boolean
  | { readonly [key: string]: AiSdkJsonValue | undefined }
  | readonly AiSdkJsonValue[];

/** Per-provider options on a message, part or tool output (`{ anthropic: { … } }`). */
export type AiSdkProviderOptions = Record<string, { readonly [key: string]: AiSdkJsonValue | undefined }>;

/** Provider file ids (`{ openai: 'file-abc' }`), v7's `ProviderReference`. */
export type AiSdkProviderReference = Record<string, string> & { type?: never };

/** Inline bytes: base64 text, `Uint8Array` (a `Buffer` is one) or `ArrayBuffer`. */
export type AiSdkDataContent = string | Uint8Array | ArrayBuffer;

/** v7 tagged file data. */
export type AiSdkTaggedData =
  | { type: 'data'; data: AiSdkDataContent }
  | { type: 'url'; url: URL; originalUrl?: string }
  | { type: 'reference'; reference: AiSdkProviderReference }
  | { type: 'text'; text: string };

/** Binary, base64 or URL content, a provider reference, or (v7) tagged data. */
export type AiSdkData = AiSdkDataContent | URL | AiSdkProviderReference | AiSdkTaggedData;

/** `{ type: 'text', text }`. */
export interface AiSdkTextPart {
  type: 'text';
  text: string;
  providerOptions?: AiSdkProviderOptions;
}
/** `{ type: 'image', image, mediaType? }` (v7 deprecates it for a `file` part with an image media type). */
export interface AiSdkImagePart {
  type: 'image';
  image: AiSdkDataContent | URL | AiSdkProviderReference;
  mediaType?: string;
  providerOptions?: AiSdkProviderOptions;
}
/** `{ type: 'file', data, mediaType, filename? }`; v7 allows a top-level media type (`image`). */
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
/** v7 `{ type: 'custom', kind: 'provider.type' }`: provider-specific content, carried verbatim. */
export interface AiSdkCustomPart {
  type: 'custom';
  kind: `${string}.${string}`;
  providerOptions?: AiSdkProviderOptions;
}
/** v7 `{ type: 'reasoning-file', data, mediaType }`: a file from the model's reasoning, carried verbatim. */
export interface AiSdkReasoningFilePart {
  type: 'reasoning-file';
  data:
    | AiSdkDataContent
    | URL
    | { type: 'data'; data: AiSdkDataContent }
    | { type: 'url'; url: URL; originalUrl?: string };
  mediaType: string;
  providerOptions?: AiSdkProviderOptions;
}
/** v6+ `{ type: 'tool-approval-request', approvalId, toolCallId }` in an assistant message, carried verbatim. */
export interface AiSdkToolApprovalRequest {
  type: 'tool-approval-request';
  approvalId: string;
  toolCallId: string;
  reason?: string;
  isAutomatic?: boolean;
  signature?: string;
  inputSchemaInput?: unknown;
}
/** v6+ `{ type: 'tool-approval-response', approvalId, approved }` in a tool message, carried verbatim. */
export interface AiSdkToolApprovalResponse {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
  providerExecuted?: boolean;
  providerOptions?: AiSdkProviderOptions;
}
/** Parts with no neutral form, carried verbatim (their position is kept). */
export type AiSdkOpaquePart =
  | AiSdkCustomPart
  | AiSdkReasoningFilePart
  | AiSdkToolApprovalRequest
  | AiSdkToolApprovalResponse;

type WithOptions = { providerOptions?: AiSdkProviderOptions };
/** An item of a `content` tool output (v7; the `file-id` / `image-*` forms are deprecated there but accepted). */
export type AiSdkToolResultContent =
  | ({ type: 'text'; text: string } & WithOptions)
  | ({ type: 'file'; data: AiSdkTaggedData; mediaType: string; filename?: string } & WithOptions)
  | ({ type: 'file-data'; data: string; mediaType: string; filename?: string } & WithOptions)
  | ({ type: 'image-data'; data: string; mediaType: string } & WithOptions)
  | ({ type: 'file-url'; url: string; mediaType?: string } & WithOptions)
  | ({ type: 'image-url'; url: string } & WithOptions)
  | ({ type: 'file-id' | 'image-file-id'; fileId: string | Record<string, string> } & WithOptions)
  | ({
      type: 'file-reference' | 'image-file-reference';
      providerReference: AiSdkProviderReference;
    } & WithOptions)
  | ({ type: 'custom' } & WithOptions);
/** v5's `{ type: 'media', data, mediaType }` content item (gone in v7's types). */
export type AiSdkLegacyToolResultContent = { type: 'media'; data: string; mediaType: string };

/** What a tool returned. */
export type AiSdkToolResultOutput<Item = AiSdkToolResultContent> =
  | ({ type: 'text' | 'error-text'; value: string } & WithOptions)
  | ({ type: 'json' | 'error-json'; value: AiSdkJsonValue } & WithOptions)
  | ({ type: 'execution-denied'; reason?: string } & WithOptions)
  | { type: 'content'; value: Item[] };
/** `{ type: 'tool-result', toolCallId, toolName, output }`. */
export interface AiSdkToolResultPart<Item = AiSdkToolResultContent> {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: AiSdkToolResultOutput<Item>;
  providerOptions?: AiSdkProviderOptions;
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

type MessageOf<Item> =
  | ({ role: 'system'; content: string } & WithOptions)
  | ({ role: 'user'; content: string | (AiSdkTextPart | AiSdkImagePart | AiSdkFilePart)[] } & WithOptions)
  | ({
      role: 'assistant';
      content:
        | string
        | (
            | AiSdkTextPart
            | AiSdkCustomPart
            | AiSdkFilePart
            | AiSdkReasoningPart
            | AiSdkReasoningFilePart
            | AiSdkToolCallPart
            | AiSdkToolResultPart<Item>
            | AiSdkToolApprovalRequest
          )[];
    } & WithOptions)
  | ({ role: 'tool'; content: (AiSdkToolResultPart<Item> | AiSdkToolApprovalResponse)[] } & WithOptions);

/**
 * A Vercel AI SDK `ModelMessage`, shaped like AI SDK 7's so what `toAiSdk` returns is
 * assignable to `ModelMessage[]` of `ai` 7 without a cast.
 */
export type AiSdkMessage = MessageOf<AiSdkToolResultContent>;

/** What `fromAiSdk` accepts: a `ModelMessage` of AI SDK 5, 6 or 7. */
export type AiSdkMessageInput = MessageOf<AiSdkToolResultContent | AiSdkLegacyToolResultContent>;

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
  looseObject({ type: z.enum(['file-reference', 'image-file-reference']), providerReference: reference }),
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
