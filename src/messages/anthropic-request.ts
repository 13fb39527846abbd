/**
 * What `toAnthropic` produces: Anthropic Messages request shapes as precise as the API's own
 * (the official SDK's `MessageParam`, `ContentBlockParam`, … accept them without a cast). What
 * `fromAnthropic` accepts is looser and lives in `anthropic-schema.ts`.
 *
 * Keys chatfold carries for a block without interpreting them (`citations`, `context`, a
 * `caller`) ride along as they came and are not named here.
 */
import type {
  AnthropicMcpToolResultBlock,
  AnthropicMcpToolUseBlock,
  AnthropicSearchResultBlock,
  AnthropicServerBlock,
} from './anthropic-server-blocks.ts';
import type { JsonValue } from './types.ts';

/** `cache_control` (prompt caching). */
export interface AnthropicCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/** `{ type: 'text', text }`. */
export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl | null;
}

/** The image types Anthropic reads (vision). */
export const ANTHROPIC_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
/** An image type Anthropic reads. */
export type AnthropicImageMediaType = (typeof ANTHROPIC_IMAGE_TYPES)[number];

/** Where an image comes from: inline base64 in a type Anthropic reads, an https URL, a Files API id. */
export type AnthropicImageSource =
  | { type: 'base64'; media_type: AnthropicImageMediaType; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

/** `{ type: 'image', source }`. */
export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicImageSource;
  cache_control?: AnthropicCacheControl | null;
}

/**
 * Where a document comes from: a base64 PDF, plain text, a list of text and image blocks
 * (`content`), a PDF URL, a Files API id.
 */
export type AnthropicDocumentSource =
  | { type: 'base64'; media_type: 'application/pdf'; data: string }
  | { type: 'text'; media_type: 'text/plain'; data: string }
  | { type: 'content'; content: string | (AnthropicTextBlock | AnthropicImageBlock)[] }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

/** `{ type: 'document', source, title? }`. */
export interface AnthropicDocumentBlock {
  type: 'document';
  source: AnthropicDocumentSource;
  title?: string | null;
  context?: string | null;
  cache_control?: AnthropicCacheControl | null;
}

/** `{ type: 'tool_use', id, name, input }`. */
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: { [key: string]: JsonValue };
  cache_control?: AnthropicCacheControl | null;
}

/** `{ type: 'tool_result', tool_use_id, content?, is_error? }`. */
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?:
    | string
    | (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | AnthropicSearchResultBlock)[];
  is_error?: boolean;
  cache_control?: AnthropicCacheControl | null;
}

/** `{ type: 'thinking', thinking, signature }` (extended thinking). */
export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** `{ type: 'redacted_thinking', data }`. */
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** A content block of a Messages request (`ContentBlockParam`). */
export type AnthropicBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicServerBlock;

/** A content block of a beta Messages request: also the MCP connector's blocks. */
export type AnthropicBetaBlock = AnthropicBlock | AnthropicMcpToolUseBlock | AnthropicMcpToolResultBlock;

/** A user or assistant turn. */
export interface AnthropicTurn<Block = AnthropicBlock> {
  role: 'user' | 'assistant';
  content: string | Block[];
}

/**
 * A `system` message inside `messages` (SDK 1.x `SystemMessageParam`); the classic place for
 * instructions is the request's `system`.
 */
export interface AnthropicSystemTurn {
  role: 'system';
  content: string | AnthropicTextBlock[];
}

/** A message of a Messages request (`MessageParam`). */
export type AnthropicMessage<Block = AnthropicBlock> = AnthropicTurn<Block> | AnthropicSystemTurn;

/** The parts of a Messages request chatfold converts: `system` and `messages`. */
export interface AnthropicRequest<Block = AnthropicBlock> {
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessage<Block>[];
}

/** `system` and `messages` for `client.beta.messages.create` (MCP connector blocks allowed). */
export type AnthropicBetaRequest = AnthropicRequest<AnthropicBetaBlock>;
