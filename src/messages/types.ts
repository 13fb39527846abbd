/**
 * The neutral message model (MSG-1). Every provider format converts to and from these types;
 * everything else in chatfold (counting, strategies, stores) works on them only.
 */

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Provider-specific data kept for lossless round trips, keyed by provider (`openai`, `anthropic`, …). */
export type ProviderMetadata = Readonly<Record<string, Readonly<Record<string, JsonValue>>>>;

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];

export interface TextPart {
  readonly type: 'text';
  readonly text: string;
  readonly providerMetadata?: ProviderMetadata;
}

/**
 * An image or file. chatfold only needs its metadata (it counts and compacts attachments as
 * metadata, seed 001 §3); `data` (base64) or `url` are kept when the source had them.
 */
export interface AttachmentPart {
  readonly type: 'attachment';
  readonly kind: 'image' | 'file';
  /** MIME type, e.g. `image/png`; `application/octet-stream` when unknown. */
  readonly mediaType: string;
  readonly filename?: string;
  /** Size in bytes of the decoded content, when known. */
  readonly size?: number;
  /** Base64 content, when the source carried it inline. */
  readonly data?: string;
  /** A URL (https:, gs:, file id URI…) when the source referenced the content. */
  readonly url?: string;
  readonly providerMetadata?: ProviderMetadata;
}

/** A call the assistant makes to a tool. */
export interface ToolCallPart {
  readonly type: 'tool-call';
  /** Provider call id (`call_…`, `toolu_…`); generated when the provider has none (Gemini). */
  readonly id: string;
  readonly name: string;
  /**
   * Arguments as JSON text, exactly as received when the provider sends text (OpenAI) so
   * token counts and round trips are byte-exact; `JSON.stringify` of the object otherwise.
   * Always parses as JSON (converters reject non-JSON with `E_INVALID_TOOL_ARGUMENTS`).
   */
  readonly arguments: string;
  readonly providerMetadata?: ProviderMetadata;
}

/** The result of a tool call, matched to it by `callId`. */
export interface ToolResultPart {
  readonly type: 'tool-result';
  readonly callId: string;
  /** Name of the tool that was called, when known. */
  readonly toolName?: string;
  readonly content: readonly (TextPart | AttachmentPart)[];
  readonly isError?: boolean;
  readonly providerMetadata?: ProviderMetadata;
}

/**
 * Model reasoning ("thinking"). Kept intact because some providers require it to be sent
 * back unchanged (Anthropic thinking blocks with `signature`, redacted thinking `data`).
 */
export interface ReasoningPart {
  readonly type: 'reasoning';
  readonly text: string;
  /** Anthropic's signature over the thinking text. */
  readonly signature?: string;
  /** Opaque redacted reasoning (Anthropic `redacted_thinking.data`). */
  readonly redactedData?: string;
  readonly providerMetadata?: ProviderMetadata;
}

export type Part = TextPart | AttachmentPart | ToolCallPart | ToolResultPart | ReasoningPart;

/** Provider-reported token usage for the model call that produced a message. */
export interface Usage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
}

/**
 * One message. Which parts are legal depends on the role:
 * - `system`: text
 * - `user`: text, attachment
 * - `assistant`: text, reasoning, tool-call (and attachment for generated images/files)
 * - `tool`: tool-result (one or more; parallel results may share a message)
 */
export interface Message {
  /** Stable id: kept from the source when it has one, otherwise derived deterministically. */
  readonly id: string;
  readonly role: Role;
  readonly parts: readonly Part[];
  /** ISO 8601 timestamp. */
  readonly createdAt: string;
  /** Participant name (OpenAI `name`). */
  readonly name?: string;
  readonly usage?: Usage;
  /** Pinned messages are protected from compaction (STR-8). */
  readonly pinned?: boolean;
  /** Free-form metadata chatfold carries but never interprets. */
  readonly metadata?: Readonly<Record<string, JsonValue>>;
  readonly providerMetadata?: ProviderMetadata;
}

/** A message as callers may hand it in: id and timestamp are filled in when missing. */
export type MessageInput = Omit<Message, 'id' | 'createdAt'> & {
  readonly id?: string;
  readonly createdAt?: string;
};

/** A tool the model may call, in neutral form (counted against the budget, TRG-1). */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: { readonly [key: string]: JsonValue };
}

/** Target providers whose structural rules `validate` knows (MSG-3, SUM-7). */
export type Provider = 'openai' | 'anthropic' | 'gemini';
