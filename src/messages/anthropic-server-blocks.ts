/**
 * Anthropic blocks chatfold has no neutral part for and carries verbatim in `providerMetadata`
 * (server-tool blocks, search results, container uploads, the MCP connector's blocks): their
 * exact request shapes, as in the API reference and the official SDK's `*BlockParam` types.
 * `anthropic-carried-blocks.ts` checks a carried block against them before it is sent.
 *
 * Values the API itself writes and reads back (`error_code`, a server tool's `name`,
 * `file_type`) are typed with the values the API documents today; the check accepts any
 * string there, so a history holding a newer value still sends.
 */
import type {
  AnthropicCacheControl,
  AnthropicDocumentBlock,
  AnthropicTextBlock,
} from './anthropic-request.ts';
import type { JsonValue } from './types.ts';

type Cache = { cache_control?: AnthropicCacheControl | null };
type Input = { [key: string]: JsonValue };

/** The server tools whose calls come back as `server_tool_use` (documented today). */
export type AnthropicServerToolName =
  | 'web_search'
  | 'web_fetch'
  | 'code_execution'
  | 'bash_code_execution'
  | 'text_editor_code_execution'
  | 'tool_search_tool_regex'
  | 'tool_search_tool_bm25';

/** `{ type: 'server_tool_use', id, name, input }`: Claude calling a server tool. */
export interface AnthropicServerToolUseBlock extends Cache {
  type: 'server_tool_use';
  id: string;
  name: AnthropicServerToolName;
  input: Input;
}

/** `error_code` of a failed web search. */
export type AnthropicWebSearchErrorCode =
  | 'invalid_tool_input'
  | 'unavailable'
  | 'max_uses_exceeded'
  | 'too_many_requests'
  | 'query_too_long'
  | 'request_too_large';
/** `error_code` of a failed web fetch. */
export type AnthropicWebFetchErrorCode =
  | 'invalid_tool_input'
  | 'url_too_long'
  | 'url_not_allowed'
  | 'url_not_in_prior_context'
  | 'url_not_accessible'
  | 'unsupported_content_type'
  | 'too_many_requests'
  | 'max_uses_exceeded'
  | 'unavailable'
  | 'content_too_large';
/** `error_code` of a failed code execution or tool search. */
export type AnthropicExecutionErrorCode =
  | 'invalid_tool_input'
  | 'unavailable'
  | 'too_many_requests'
  | 'execution_time_exceeded';

/** One web search hit. */
export interface AnthropicWebSearchResult {
  type: 'web_search_result';
  url: string;
  title: string;
  encrypted_content: string;
  page_age?: string | null;
}

/** `{ type: 'web_search_tool_result', tool_use_id, content }`: hits, or an error. */
export interface AnthropicWebSearchToolResultBlock extends Cache {
  type: 'web_search_tool_result';
  tool_use_id: string;
  content:
    | AnthropicWebSearchResult[]
    | {
        type: 'web_search_tool_result_error';
        error_code: AnthropicWebSearchErrorCode;
      };
}

/** `{ type: 'web_fetch_tool_result', tool_use_id, content }`: the page as a document, or an error. */
export interface AnthropicWebFetchToolResultBlock extends Cache {
  type: 'web_fetch_tool_result';
  tool_use_id: string;
  content:
    | { type: 'web_fetch_result'; url: string; content: AnthropicDocumentBlock; retrieved_at?: string | null }
    | {
        type: 'web_fetch_tool_result_error';
        error_code: AnthropicWebFetchErrorCode;
      };
}

/** `{ type: 'code_execution_tool_result', tool_use_id, content }` (Python code execution). */
export interface AnthropicCodeExecutionToolResultBlock extends Cache {
  type: 'code_execution_tool_result';
  tool_use_id: string;
  content:
    | { type: 'code_execution_tool_result_error'; error_code: AnthropicExecutionErrorCode }
    | {
        type: 'code_execution_result';
        content: { type: 'code_execution_output'; file_id: string }[];
        return_code: number;
        stderr: string;
        stdout: string;
      }
    | {
        type: 'encrypted_code_execution_result';
        content: { type: 'code_execution_output'; file_id: string }[];
        encrypted_stdout: string;
        return_code: number;
        stderr: string;
      };
}

/** `{ type: 'bash_code_execution_tool_result', tool_use_id, content }`. */
export interface AnthropicBashCodeExecutionToolResultBlock extends Cache {
  type: 'bash_code_execution_tool_result';
  tool_use_id: string;
  content:
    | {
        type: 'bash_code_execution_tool_result_error';
        error_code: AnthropicExecutionErrorCode | 'output_file_too_large';
      }
    | {
        type: 'bash_code_execution_result';
        content: { type: 'bash_code_execution_output'; file_id: string }[];
        return_code: number;
        stderr: string;
        stdout: string;
      };
}

/** `{ type: 'text_editor_code_execution_tool_result', tool_use_id, content }`. */
export interface AnthropicTextEditorCodeExecutionToolResultBlock extends Cache {
  type: 'text_editor_code_execution_tool_result';
  tool_use_id: string;
  content:
    | {
        type: 'text_editor_code_execution_tool_result_error';
        error_code: AnthropicExecutionErrorCode | 'file_not_found';
        error_message?: string | null;
      }
    | {
        type: 'text_editor_code_execution_view_result';
        content: string;
        file_type: 'text' | 'image' | 'pdf';
        num_lines?: number | null;
        start_line?: number | null;
        total_lines?: number | null;
      }
    | { type: 'text_editor_code_execution_create_result'; is_file_update: boolean }
    | {
        type: 'text_editor_code_execution_str_replace_result';
        lines?: string[] | null;
        new_lines?: number | null;
        new_start?: number | null;
        old_lines?: number | null;
        old_start?: number | null;
      };
}

/** `{ type: 'tool_reference', tool_name }`: a tool the tool search found. */
export interface AnthropicToolReference extends Cache {
  type: 'tool_reference';
  tool_name: string;
}

/** `{ type: 'tool_search_tool_result', tool_use_id, content }`. */
export interface AnthropicToolSearchToolResultBlock extends Cache {
  type: 'tool_search_tool_result';
  tool_use_id: string;
  content:
    | {
        type: 'tool_search_tool_result_error';
        error_code: AnthropicExecutionErrorCode;
        error_message?: string | null;
      }
    | { type: 'tool_search_tool_search_result'; tool_references: AnthropicToolReference[] };
}

/** `{ type: 'container_upload', file_id }`: a file for the code execution container. */
export interface AnthropicContainerUploadBlock extends Cache {
  type: 'container_upload';
  file_id: string;
}

/** `{ type: 'search_result', source, title, content }`: a search hit to cite (RAG). */
export interface AnthropicSearchResultBlock extends Cache {
  type: 'search_result';
  source: string;
  title: string;
  content: AnthropicTextBlock[];
}

/** A carried block the Messages API takes in a turn (`ContentBlockParam`). */
export type AnthropicServerBlock =
  | AnthropicServerToolUseBlock
  | AnthropicWebSearchToolResultBlock
  | AnthropicWebFetchToolResultBlock
  | AnthropicCodeExecutionToolResultBlock
  | AnthropicBashCodeExecutionToolResultBlock
  | AnthropicTextEditorCodeExecutionToolResultBlock
  | AnthropicToolSearchToolResultBlock
  | AnthropicContainerUploadBlock
  | AnthropicSearchResultBlock;

/** `{ type: 'mcp_tool_use', id, name, server_name, input }` (beta MCP connector). */
export interface AnthropicMcpToolUseBlock extends Cache {
  type: 'mcp_tool_use';
  id: string;
  name: string;
  server_name: string;
  input: Input;
}

/** `{ type: 'mcp_tool_result', tool_use_id, content?, is_error? }` (beta MCP connector). */
export interface AnthropicMcpToolResultBlock extends Cache {
  type: 'mcp_tool_result';
  tool_use_id: string;
  content?: string | AnthropicTextBlock[];
  is_error?: boolean;
}
