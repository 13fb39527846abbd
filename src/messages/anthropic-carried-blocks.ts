/**
 * The check `toAnthropic` runs on a block carried verbatim in `providerMetadata` before it
 * sends it (server-tool blocks, search results, container uploads, MCP connector blocks,
 * the blocks of a `content` document source). `fromAnthropic` accepts those loosely (anything
 * with the right `type`), so a malformed one fails here, naming where it is, instead of at
 * the API. Every field of the shapes in `anthropic-server-blocks.ts` is checked; other keys
 * ride along as they came.
 */
import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import {
  ANTHROPIC_IMAGE_TYPES,
  type AnthropicDocumentBlock,
  type AnthropicImageBlock,
  type AnthropicTextBlock,
} from './anthropic-request.ts';
import type {
  AnthropicBashCodeExecutionToolResultBlock,
  AnthropicCodeExecutionToolResultBlock,
  AnthropicContainerUploadBlock,
  AnthropicExecutionErrorCode,
  AnthropicMcpToolResultBlock,
  AnthropicMcpToolUseBlock,
  AnthropicSearchResultBlock,
  AnthropicServerBlock,
  AnthropicServerToolName,
  AnthropicServerToolUseBlock,
  AnthropicTextEditorCodeExecutionToolResultBlock,
  AnthropicToolSearchToolResultBlock,
  AnthropicWebFetchErrorCode,
  AnthropicWebFetchToolResultBlock,
  AnthropicWebSearchErrorCode,
  AnthropicWebSearchToolResultBlock,
} from './anthropic-server-blocks.ts';
import { parseProviderInput } from './provider-input.ts';
import type { JsonValue } from './types.ts';

type Input = { [key: string]: JsonValue };

// Each schema `satisfies` the type it checks, so the two cannot drift apart.

/** A string the API writes and reads back, typed with its documented values (see the file doc). */
const apiString = <T extends string>() => z.string() as unknown as z.ZodType<T>;
const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().exactOptional();
const cache = {
  cache_control: nullable(
    z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).exactOptional() }),
  ),
};
const input = z.record(z.string(), z.json()) as z.ZodType<Input>;

const text = z.object({
  type: z.literal('text'),
  text: z.string(),
  ...cache,
}) satisfies z.ZodType<AnthropicTextBlock>;
const image = z.object({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.object({
      type: z.literal('base64'),
      media_type: z.enum(ANTHROPIC_IMAGE_TYPES),
      data: z.string(),
    }),
    z.object({ type: z.literal('url'), url: z.string() }),
    z.object({ type: z.literal('file'), file_id: z.string() }),
  ]),
  ...cache,
}) satisfies z.ZodType<AnthropicImageBlock>;
/** What a `content` document source holds. */
const sourceContent = z.union([z.string(), z.array(z.discriminatedUnion('type', [text, image]))]);
const document = z.object({
  type: z.literal('document'),
  source: z.discriminatedUnion('type', [
    z.object({ type: z.literal('base64'), media_type: z.literal('application/pdf'), data: z.string() }),
    z.object({ type: z.literal('text'), media_type: z.literal('text/plain'), data: z.string() }),
    z.object({ type: z.literal('content'), content: sourceContent }),
    z.object({ type: z.literal('url'), url: z.string() }),
    z.object({ type: z.literal('file'), file_id: z.string() }),
  ]),
  title: nullable(z.string()),
  context: nullable(z.string()),
  ...cache,
}) satisfies z.ZodType<AnthropicDocumentBlock>;

const toolUseId = { tool_use_id: z.string() };
const error = <T extends string, Code extends string>(type: T, code: z.ZodType<Code>) =>
  z.object({ type: z.literal(type), error_code: code });
const files = <T extends string>(type: T) =>
  z.array(z.object({ type: z.literal(type), file_id: z.string() }));
const count = nullable(z.number());

const serverToolUse = z.object({
  type: z.literal('server_tool_use'),
  id: z.string(),
  name: apiString<AnthropicServerToolName>(),
  input,
  ...cache,
}) satisfies z.ZodType<AnthropicServerToolUseBlock>;
const webSearch = z.object({
  type: z.literal('web_search_tool_result'),
  ...toolUseId,
  content: z.union([
    z.array(
      z.object({
        type: z.literal('web_search_result'),
        url: z.string(),
        title: z.string(),
        encrypted_content: z.string(),
        page_age: nullable(z.string()),
      }),
    ),
    error('web_search_tool_result_error', apiString<AnthropicWebSearchErrorCode>()),
  ]),
  ...cache,
}) satisfies z.ZodType<AnthropicWebSearchToolResultBlock>;
const webFetch = z.object({
  type: z.literal('web_fetch_tool_result'),
  ...toolUseId,
  content: z.discriminatedUnion('type', [
    z.object({
      type: z.literal('web_fetch_result'),
      url: z.string(),
      content: document,
      retrieved_at: nullable(z.string()),
    }),
    error('web_fetch_tool_result_error', apiString<AnthropicWebFetchErrorCode>()),
  ]),
  ...cache,
}) satisfies z.ZodType<AnthropicWebFetchToolResultBlock>;
const codeExecution = z.object({
  type: z.literal('code_execution_tool_result'),
  ...toolUseId,
  content: z.discriminatedUnion('type', [
    error('code_execution_tool_result_error', apiString<AnthropicExecutionErrorCode>()),
    z.object({
      type: z.literal('code_execution_result'),
      content: files('code_execution_output'),
      return_code: z.number(),
      stderr: z.string(),
      stdout: z.string(),
    }),
    z.object({
      type: z.literal('encrypted_code_execution_result'),
      content: files('code_execution_output'),
      encrypted_stdout: z.string(),
      return_code: z.number(),
      stderr: z.string(),
    }),
  ]),
  ...cache,
}) satisfies z.ZodType<AnthropicCodeExecutionToolResultBlock>;
const bashCodeExecution = z.object({
  type: z.literal('bash_code_execution_tool_result'),
  ...toolUseId,
  content: z.discriminatedUnion('type', [
    error(
      'bash_code_execution_tool_result_error',
      apiString<AnthropicExecutionErrorCode | 'output_file_too_large'>(),
    ),
    z.object({
      type: z.literal('bash_code_execution_result'),
      content: files('bash_code_execution_output'),
      return_code: z.number(),
      stderr: z.string(),
      stdout: z.string(),
    }),
  ]),
  ...cache,
}) satisfies z.ZodType<AnthropicBashCodeExecutionToolResultBlock>;
const textEditorCodeExecution = z.object({
  type: z.literal('text_editor_code_execution_tool_result'),
  ...toolUseId,
  content: z.discriminatedUnion('type', [
    error(
      'text_editor_code_execution_tool_result_error',
      apiString<AnthropicExecutionErrorCode | 'file_not_found'>(),
    ).extend({ error_message: nullable(z.string()) }),
    z.object({
      type: z.literal('text_editor_code_execution_view_result'),
      content: z.string(),
      file_type: apiString<'text' | 'image' | 'pdf'>(),
      num_lines: count,
      start_line: count,
      total_lines: count,
    }),
    z.object({ type: z.literal('text_editor_code_execution_create_result'), is_file_update: z.boolean() }),
    z.object({
      type: z.literal('text_editor_code_execution_str_replace_result'),
      lines: nullable(z.array(z.string())),
      new_lines: count,
      new_start: count,
      old_lines: count,
      old_start: count,
    }),
  ]),
  ...cache,
}) satisfies z.ZodType<AnthropicTextEditorCodeExecutionToolResultBlock>;
const toolSearch = z.object({
  type: z.literal('tool_search_tool_result'),
  ...toolUseId,
  content: z.discriminatedUnion('type', [
    error('tool_search_tool_result_error', apiString<AnthropicExecutionErrorCode>()).extend({
      error_message: nullable(z.string()),
    }),
    z.object({
      type: z.literal('tool_search_tool_search_result'),
      tool_references: z.array(
        z.object({ type: z.literal('tool_reference'), tool_name: z.string(), ...cache }),
      ),
    }),
  ]),
  ...cache,
}) satisfies z.ZodType<AnthropicToolSearchToolResultBlock>;
const containerUpload = z.object({
  type: z.literal('container_upload'),
  file_id: z.string(),
  ...cache,
}) satisfies z.ZodType<AnthropicContainerUploadBlock>;
const searchResult = z.object({
  type: z.literal('search_result'),
  source: z.string(),
  title: z.string(),
  content: z.array(text),
  ...cache,
}) satisfies z.ZodType<AnthropicSearchResultBlock>;
const mcpToolUse = z.object({
  type: z.literal('mcp_tool_use'),
  id: z.string(),
  name: z.string(),
  server_name: z.string(),
  input,
  ...cache,
}) satisfies z.ZodType<AnthropicMcpToolUseBlock>;
const mcpToolResult = z.object({
  type: z.literal('mcp_tool_result'),
  ...toolUseId,
  content: z.union([z.string(), z.array(text)]).exactOptional(),
  is_error: z.boolean().exactOptional(),
  ...cache,
}) satisfies z.ZodType<AnthropicMcpToolResultBlock>;

/** Which Messages API a request is for: `messages`, or `beta` (`client.beta.messages`). */
export type AnthropicApi = 'messages' | 'beta';

const inTurn = z.discriminatedUnion('type', [
  serverToolUse,
  webSearch,
  webFetch,
  codeExecution,
  bashCodeExecution,
  textEditorCodeExecution,
  toolSearch,
  containerUpload,
  searchResult,
]);
const inBetaTurn = z.discriminatedUnion('type', [inTurn, mcpToolUse, mcpToolResult]);
const inToolResult = z.discriminatedUnion('type', [searchResult]);
const BETA_ONLY = new Set(['mcp_tool_use', 'mcp_tool_result']);

/** `value` checked against `schema`; a mismatch is `E_INVALID_MESSAGE` naming `where` and the field. */
function checked<T>(schema: z.ZodType<T>, value: JsonValue, where: string): T {
  try {
    return parseProviderInput(schema, value, { root: where, partNoun: 'carried Anthropic block', roles: [] });
  } catch (error) {
    if (!ChatfoldError.isInstance(error)) throw error;
    throw new ChatfoldError(
      error.code,
      `toAnthropic: ${error.message} (a block carried in providerMetadata.anthropic; the API would refuse it)`,
      { ...error.details, function: 'toAnthropic' },
      { cause: error },
    );
  }
}

/**
 * A block carried in a turn, checked against its request shape.
 *
 * @param where Its path, e.g. `messages[3].providerMetadata.anthropic.opaque[0].value`.
 * @throws ChatfoldError `E_INVALID_MESSAGE` naming the bad field; for an MCP connector block
 *   when `api` is not `'beta'`, saying how to send it.
 */
export function carriedTurnBlock(
  value: JsonValue,
  where: string,
  api: AnthropicApi,
): AnthropicServerBlock | AnthropicMcpToolUseBlock | AnthropicMcpToolResultBlock {
  const type = typeof value === 'object' && value !== null && !Array.isArray(value) ? value.type : undefined;
  if (api !== 'beta' && typeof type === 'string' && BETA_ONLY.has(type)) {
    throw new ChatfoldError(
      'E_INVALID_MESSAGE',
      `toAnthropic: ${where}: ${type} blocks are taken only by the beta Messages API (MCP connector); convert with toAnthropic(messages, { api: 'beta' }) and send with client.beta.messages.create`,
      { where, blockType: type, function: 'toAnthropic' },
    );
  }
  return checked(api === 'beta' ? inBetaTurn : inTurn, value, where);
}

/**
 * A block carried in a `tool_result`: only `search_result` is allowed there.
 *
 * @throws ChatfoldError `E_INVALID_MESSAGE` naming `where` and the bad field.
 */
export function carriedToolResultBlock(value: JsonValue, where: string): AnthropicSearchResultBlock {
  return checked(inToolResult, value, where);
}

/**
 * The `content` of a `content` document source: a string, or text and image blocks.
 *
 * @throws ChatfoldError `E_INVALID_MESSAGE` naming `where` and the bad field.
 */
export function documentSourceContent(
  value: JsonValue,
  where: string,
): string | (AnthropicTextBlock | AnthropicImageBlock)[] {
  return checked(sourceContent, value, where);
}
