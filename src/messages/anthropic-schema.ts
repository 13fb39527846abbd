/**
 * Anthropic Messages API request shapes: the public types and the zod schema `fromAnthropic`
 * checks input against (Messages API reference: `MessageParam`, content blocks). Keys the schema
 * does not name (`cache_control`, `citations`, `context`, …) are accepted when they hold JSON
 * and ride along verbatim.
 */
import { z } from 'zod';
import { extraValue, looseObject, type ProviderInputNames } from './provider-input.ts';
import type { JsonValue } from './types.ts';

/** Server-side blocks chatfold has no neutral part for; kept verbatim at their position. */
export const ANTHROPIC_OPAQUE_BLOCKS = [
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
  'search_result',
] as const;

/** `{ type: 'text', text }` (optionally `cache_control`, `citations`). */
export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } | null;
}
/** Where an image or document comes from. */
export type AnthropicSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string }
  | { type: 'text'; media_type: 'text/plain'; data: string }
  | { type: 'content'; content: string | JsonValue[] };
/** `{ type: 'image', source }`. */
export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicSource;
  cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } | null;
}
/** `{ type: 'document', source, title?, context? }`. */
export interface AnthropicDocumentBlock {
  type: 'document';
  source: AnthropicSource;
  title?: string | null;
  context?: string | null;
  cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } | null;
}
/** `{ type: 'tool_use', id, name, input }`. */
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: { [key: string]: JsonValue };
  cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } | null;
}
/** `{ type: 'tool_result', tool_use_id, content?, is_error? }`. */
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[];
  is_error?: boolean;
  cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } | null;
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
/** A server-tool block (`server_tool_use`, `web_search_tool_result`, …), carried verbatim. */
export interface AnthropicServerBlock {
  type: (typeof ANTHROPIC_OPAQUE_BLOCKS)[number];
  [key: string]: JsonValue;
}
/** A content block of a request message. */
export type AnthropicBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicServerBlock;

/**
 * An Anthropic Messages request message. `system` messages inside `messages` are newer API
 * surface (SDK 1.x `SystemMessageParam`); the classic place for instructions is `system`.
 */
export interface AnthropicMessage {
  role: 'user' | 'assistant' | 'system';
  content: string | AnthropicBlock[];
}

/** The parts of a Messages request chatfold converts: `system` and `messages`. */
export interface AnthropicRequest {
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessage[];
}

/**
 * What `fromAnthropic` accepts: a request whose messages hold any blocks (the official SDK's
 * `MessageParam[]` fits without a cast); other keys such as `model` are ignored. Blocks are
 * checked at run time.
 */
export interface AnthropicRequestInput {
  readonly system?: string | readonly AnthropicTextBlock[] | undefined;
  readonly messages: readonly {
    readonly role: 'user' | 'assistant' | 'system';
    readonly content: string | readonly (AnthropicBlock | { readonly type: string })[];
  }[];
}

/** How Anthropic input is named in error messages. */
export const ANTHROPIC_NAMES: ProviderInputNames = {
  root: '',
  partNoun: 'Anthropic block',
  roles: ['user', 'assistant', 'system'],
};

const text = looseObject({ type: z.literal('text'), text: z.string() });
const base64 = looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() });
const url = looseObject({ type: z.literal('url'), url: z.string() });
const file = looseObject({ type: z.literal('file'), file_id: z.string() });
const image = looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [base64, url, file]),
});
const document = looseObject({
  type: z.literal('document'),
  source: z.discriminatedUnion('type', [
    base64,
    url,
    file,
    looseObject({ type: z.literal('text'), media_type: z.string(), data: z.string() }),
    looseObject({ type: z.literal('content'), content: z.union([z.string(), z.array(z.json())]) }),
  ]),
  title: z.string().nullable().optional(),
});
const opaque = looseObject({ type: z.enum(ANTHROPIC_OPAQUE_BLOCKS) });

/** Schema of one content block (the documented request blocks plus server-tool blocks). */
export const anthropicBlockSchema = z.discriminatedUnion('type', [
  text,
  image,
  document,
  looseObject({
    type: z.literal('tool_use'),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), extraValue),
  }),
  looseObject({
    type: z.literal('tool_result'),
    tool_use_id: z.string(),
    content: z
      .union([z.string(), z.array(z.discriminatedUnion('type', [text, image, document, opaque]))])
      .optional(),
    is_error: z.boolean().optional(),
  }),
  looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() }),
  looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
  opaque,
]);

/** A message's `content`: a string or blocks. */
export const anthropicContentSchema = z.union([z.string(), z.array(anthropicBlockSchema)]);
const content = anthropicContentSchema;

/** Schema of the `system` and `messages` of a Messages request. */
export const anthropicRequestSchema = z.looseObject({
  system: z.union([z.string(), z.array(text)]).optional(),
  messages: z.array(
    z.discriminatedUnion('role', [
      looseObject({ role: z.literal('user'), content }),
      looseObject({ role: z.literal('assistant'), content }),
      looseObject({ role: z.literal('system'), content: z.union([z.string(), z.array(text)]) }),
    ]),
  ),
});

/** A block as the schema returns it. */
export type ParsedAnthropicBlock = z.output<typeof anthropicBlockSchema>;
