/**
 * Anthropic Messages requests as `fromAnthropic` accepts them: the input types and the zod
 * schema input is checked against (Messages API reference: `MessageParam`, content blocks).
 * Keys the schema does not name (`cache_control`, `citations`, `context`, …) are accepted when
 * they hold JSON and ride along verbatim. What `toAnthropic` produces is `anthropic-request.ts`.
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

// What `fromAnthropic` accepts: the shapes people hold (the SDK's params, JSON from a log or
// an HTTP body), looser than what `toAnthropic` produces (`anthropic-request.ts`): any media
// type string, any `content` source, server-tool blocks as open records.

type CacheInput = {
  readonly cache_control?: { readonly type: 'ephemeral'; readonly ttl?: '5m' | '1h' } | null;
};

/** `{ type: 'text', text }` as accepted. */
export interface AnthropicTextBlockInput extends CacheInput {
  readonly type: 'text';
  readonly text: string;
}
/** Where an image or document comes from, as accepted (any media type; checked when sent). */
export type AnthropicSourceInput =
  | { readonly type: 'base64'; readonly media_type: string; readonly data: string }
  | { readonly type: 'url'; readonly url: string }
  | { readonly type: 'file'; readonly file_id: string }
  | { readonly type: 'text'; readonly media_type: string; readonly data: string }
  | { readonly type: 'content'; readonly content: string | readonly JsonValue[] };
/** `{ type: 'image', source }` as accepted. */
export interface AnthropicImageBlockInput extends CacheInput {
  readonly type: 'image';
  readonly source: AnthropicSourceInput;
}
/** `{ type: 'document', source, title? }` as accepted. */
export interface AnthropicDocumentBlockInput extends CacheInput {
  readonly type: 'document';
  readonly source: AnthropicSourceInput;
  readonly title?: string | null;
  readonly context?: string | null;
}
/** `{ type: 'tool_use', id, name, input }` as accepted. */
export interface AnthropicToolUseBlockInput extends CacheInput {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: { readonly [key: string]: unknown };
}
/** `{ type: 'tool_result', tool_use_id, content?, is_error? }` as accepted. */
export interface AnthropicToolResultBlockInput extends CacheInput {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content?:
    | string
    | readonly (
        | AnthropicTextBlockInput
        | AnthropicImageBlockInput
        | AnthropicDocumentBlockInput
        | AnthropicServerBlockInput
      )[];
  readonly is_error?: boolean;
}
/** `{ type: 'thinking', thinking, signature }` as accepted (`signature` may be missing). */
export interface AnthropicThinkingBlockInput {
  readonly type: 'thinking';
  readonly thinking: string;
  readonly signature?: string;
}
/** `{ type: 'redacted_thinking', data }` as accepted. */
export interface AnthropicRedactedThinkingBlockInput {
  readonly type: 'redacted_thinking';
  readonly data: string;
}
/**
 * A server-tool block (`server_tool_use`, `web_search_tool_result`, …) as accepted: any record
 * with one of the carried types; `toAnthropic` checks its exact shape before sending it.
 */
export interface AnthropicServerBlockInput {
  readonly type: (typeof ANTHROPIC_OPAQUE_BLOCKS)[number];
  readonly [key: string]: unknown;
}
/** A content block as `fromAnthropic` accepts it. */
export type AnthropicBlockInput =
  | AnthropicTextBlockInput
  | AnthropicImageBlockInput
  | AnthropicDocumentBlockInput
  | AnthropicToolUseBlockInput
  | AnthropicToolResultBlockInput
  | AnthropicThinkingBlockInput
  | AnthropicRedactedThinkingBlockInput
  | AnthropicServerBlockInput;

/** A request message as `fromAnthropic` accepts it. */
export interface AnthropicMessageInput {
  readonly role: 'user' | 'assistant' | 'system';
  /** Blocks are checked at run time; any `{ type }` is let through the types so newer SDK blocks fit. */
  readonly content: string | readonly (AnthropicBlockInput | { readonly type: string })[];
}

/**
 * What `fromAnthropic` accepts: a request whose messages hold any blocks (the official SDK's
 * `MessageParam[]` and `toAnthropic`'s output fit without a cast); other keys such as `model`
 * are ignored. Blocks are checked at run time.
 */
export interface AnthropicRequestInput {
  readonly system?: string | readonly AnthropicTextBlockInput[] | undefined;
  readonly messages: readonly AnthropicMessageInput[];
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
