/**
 * OpenAI Chat Completions request messages: the public types and the zod schema `fromOpenAI`
 * checks input against. Shapes follow the OpenAPI spec (`ChatCompletionRequestMessage` in
 * github.com/openai/openai-openapi). Keys the schema does not name are accepted when they hold
 * JSON and ride along verbatim (e.g. `annotations` and `audio` on assistant messages copied
 * from a response).
 */
import { z } from 'zod';
import { looseObject, type ProviderInputNames } from './provider-input.ts';

/** `{ type: 'text', text }`. */
export interface OpenAITextPart {
  type: 'text';
  text: string;
}
/** `{ type: 'refusal', refusal }` (assistant content only). */
export interface OpenAIRefusalPart {
  type: 'refusal';
  refusal: string;
}
/** `{ type: 'image_url', image_url: { url, detail? } }`; `url` may be a base64 `data:` URL. */
export interface OpenAIImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' | 'original' };
}
/** `{ type: 'input_audio', input_audio: { data, format } }` (base64 audio). */
export interface OpenAIAudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: 'wav' | 'mp3' };
}
/** `{ type: 'file', file: { file_data?, file_id?, filename? } }`; `file_data` is a base64 `data:` URL. */
export interface OpenAIFilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}
/** A content part of a user message (text, image, audio, file) or an assistant message (text, refusal). */
export type OpenAIContentPart =
  | OpenAITextPart
  | OpenAIRefusalPart
  | OpenAIImagePart
  | OpenAIAudioPart
  | OpenAIFilePart;

/** A function tool call; `arguments` is JSON text, kept byte for byte. */
export interface OpenAIFunctionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
/** A custom (free-form input) tool call. */
export interface OpenAICustomToolCall {
  id: string;
  type: 'custom';
  custom: { name: string; input: string };
}
/** A tool call of an assistant message. */
export type OpenAIToolCall = OpenAIFunctionToolCall | OpenAICustomToolCall;

/** A `system` or `developer` message. */
export interface OpenAISystemMessage {
  role: 'system' | 'developer';
  content: string | OpenAITextPart[];
  name?: string;
}
/** A `user` message. */
export interface OpenAIUserMessage {
  role: 'user';
  content: string | (OpenAITextPart | OpenAIImagePart | OpenAIAudioPart | OpenAIFilePart)[];
  name?: string;
}
/**
 * An `assistant` message. `reasoning_content` is not part of OpenAI's API: it is the field
 * OpenAI-compatible servers (DeepSeek, vLLM, llama.cpp, Qwen) use for reasoning text.
 */
export interface OpenAIAssistantMessage {
  role: 'assistant';
  content?: string | (OpenAITextPart | OpenAIRefusalPart)[] | null;
  name?: string;
  refusal?: string | null;
  tool_calls?: OpenAIToolCall[];
  /** Deprecated by OpenAI in favour of `tool_calls`. */
  function_call?: { name: string; arguments: string } | null;
  audio?: { id: string } | null;
  reasoning_content?: string | null;
}
/** A `tool` message answering one tool call. */
export interface OpenAIToolMessage {
  role: 'tool';
  content: string | OpenAITextPart[];
  tool_call_id: string;
}
/** A `function` message answering a legacy `function_call` (deprecated by OpenAI). */
export interface OpenAIFunctionMessage {
  role: 'function';
  content: string | null;
  name: string;
}
/** An OpenAI Chat Completions request message. */
export type OpenAIMessage =
  | OpenAISystemMessage
  | OpenAIUserMessage
  | OpenAIAssistantMessage
  | OpenAIToolMessage
  | OpenAIFunctionMessage;

/** How OpenAI input is named in error messages. */
export const OPENAI_NAMES: ProviderInputNames = {
  root: 'messages',
  partNoun: 'OpenAI content part',
  roles: ['system', 'developer', 'user', 'assistant', 'tool', 'function'],
};

const text = looseObject({ type: z.literal('text'), text: z.string() });
const refusal = looseObject({ type: z.literal('refusal'), refusal: z.string() });
const image = looseObject({
  type: z.literal('image_url'),
  image_url: looseObject({ url: z.string(), detail: z.string().optional() }),
});
const audio = looseObject({
  type: z.literal('input_audio'),
  input_audio: looseObject({ data: z.string(), format: z.string() }),
});
const file = looseObject({
  type: z.literal('file'),
  file: looseObject({
    file_data: z.string().optional(),
    file_id: z.string().optional(),
    filename: z.string().optional(),
  }),
});
const call = looseObject({ name: z.string(), arguments: z.string() });
const toolCall = z.discriminatedUnion('type', [
  looseObject({ id: z.string(), type: z.literal('function'), function: call }),
  looseObject({
    id: z.string(),
    type: z.literal('custom'),
    custom: looseObject({ name: z.string(), input: z.string() }),
  }),
]);
const name = z.string().optional();
const instructions = z.union([z.string(), z.array(text)]);

/** Schema of a Chat Completions `messages` array (documented fields checked, extra JSON keys kept). */
export const openAIMessagesSchema = z.array(
  z.discriminatedUnion('role', [
    looseObject({ role: z.literal('system'), content: instructions, name }),
    looseObject({ role: z.literal('developer'), content: instructions, name }),
    looseObject({
      role: z.literal('user'),
      content: z.union([z.string(), z.array(z.discriminatedUnion('type', [text, image, audio, file]))]),
      name,
    }),
    looseObject({
      role: z.literal('assistant'),
      content: z
        .union([z.string(), z.array(z.discriminatedUnion('type', [text, refusal])), z.null()])
        .optional(),
      name,
      refusal: z.string().nullable().optional(),
      tool_calls: z.array(toolCall).nullable().optional(),
      function_call: call.nullable().optional(),
      reasoning_content: z.string().nullable().optional(),
    }),
    looseObject({ role: z.literal('tool'), content: instructions, tool_call_id: z.string(), name }),
    looseObject({ role: z.literal('function'), content: z.string().nullable(), name: z.string() }),
  ]),
);

/** A message as the schema returns it: the documented fields plus any extra JSON keys. */
export type ParsedOpenAIMessage = z.output<typeof openAIMessagesSchema>[number];
