/**
 * The provider-level prompt a language model receives (`LanguageModelV4Prompt`, what middleware
 * sees) ↔ neutral messages. It is the `ModelMessage` shape with fewer forms — user content is
 * always an array, files are `file` parts with tagged data, tool output items are `text`, `file`
 * or `custom` — so it goes through `fromAiSdk` / `toAiSdk`, and what chatfold wrote itself
 * (summaries, stubs, attachments without AI SDK markers) is brought into those forms.
 */
import type {
  LanguageModelV4FilePart,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ProviderTool,
  LanguageModelV4ToolResultOutput,
  SharedV4FileData,
} from '@ai-sdk/provider';
import type {
  AiSdkData,
  AiSdkMessage,
  AiSdkPart,
  AiSdkToolResultContent,
  AiSdkToolResultOutput,
} from '../../messages/ai-sdk.ts';
import { fromAiSdk, toAiSdk } from '../../messages/ai-sdk.ts';
import { parseDataUrl } from '../../messages/attachment-data.ts';
import type { JsonValue, Message, Provider, ToolDefinition } from '../../messages/types.ts';

/** Neutral messages of a language model prompt (MSG-2). */
export function fromLanguageModelPrompt(prompt: LanguageModelV4Prompt): Message[] {
  return fromAiSdk(prompt);
}

/**
 * A language model prompt from neutral messages; `providerName` (`openai` for `openai.chat`)
 * names the provider of a bare string file id.
 */
export function toLanguageModelPrompt(
  messages: readonly Message[],
  providerName: string,
): LanguageModelV4Prompt {
  return toAiSdk(messages).map((message) => toPromptMessage(message, providerName));
}

function toPromptMessage(message: AiSdkMessage, providerName: string): LanguageModelV4Message {
  const toPromptPart = (part: AiSdkPart) => promptPart(part, providerName);
  const options = message.providerOptions === undefined ? {} : { providerOptions: message.providerOptions };
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content, ...options };
    case 'user':
    case 'assistant': {
      const content =
        typeof message.content === 'string'
          ? [{ type: 'text' as const, text: message.content }]
          : message.content;
      return { role: message.role, content: content.map(toPromptPart), ...options } as LanguageModelV4Message;
    }
    case 'tool':
      return {
        role: 'tool',
        content: message.content.map(toPromptPart),
        ...options,
      } as LanguageModelV4Message;
  }
}

function promptPart(part: AiSdkPart, providerName: string): unknown {
  switch (part.type) {
    case 'image': {
      const { image, mediaType, ...rest } = part;
      return { ...rest, type: 'file', mediaType: mediaType ?? 'image', data: taggedData(image) };
    }
    case 'file':
      return { ...part, data: taggedData(part.data) };
    case 'tool-result':
      return { ...part, output: toPromptOutput(part.output, providerName) };
    default:
      return part;
  }
}

/** Bare data (bytes, base64, URL, data URL, provider reference) as v4 tagged file data. */
function taggedData(data: AiSdkData): SharedV4FileData {
  if (data instanceof Uint8Array) return { type: 'data', data };
  if (data instanceof ArrayBuffer) return { type: 'data', data: new Uint8Array(data) };
  if (data instanceof URL) return { type: 'url', url: data };
  if (typeof data === 'string') {
    const inline = parseDataUrl(data);
    if (inline !== undefined) return { type: 'data', data: inline.data };
    return URL.canParse(data) ? { type: 'url', url: new URL(data) } : { type: 'data', data };
  }
  if ('type' in data && typeof data.type === 'string') {
    if (data.type === 'data' && data.data instanceof ArrayBuffer)
      return { type: 'data', data: new Uint8Array(data.data) };
    return data as SharedV4FileData;
  }
  return { type: 'reference', reference: data };
}

function toPromptOutput(
  output: AiSdkToolResultOutput,
  providerName: string,
): LanguageModelV4ToolResultOutput {
  if (output.type !== 'content') return output as LanguageModelV4ToolResultOutput;
  return { type: 'content', value: output.value.map((item) => toPromptItem(item, providerName)) };
}

type PromptItem = Extract<LanguageModelV4ToolResultOutput, { type: 'content' }>['value'][number];

/**
 * `ModelMessage` tool output items (`file-data`, `image-url`, …) as the v4 `file` item, the way
 * the AI SDK itself maps them; a string `fileId` becomes a reference for `providerName`.
 */
function toPromptItem(item: AiSdkToolResultContent, providerName: string): PromptItem {
  const options = item.providerOptions === undefined ? {} : { providerOptions: item.providerOptions };
  const file = (mediaType: string, data: SharedV4FileData): PromptItem => ({
    type: 'file',
    mediaType,
    data,
    ...options,
  });
  switch (item.type) {
    case 'text':
    case 'custom':
      return item;
    case 'file':
      return { ...item, data: taggedData(item.data) } as LanguageModelV4FilePart;
    case 'file-data':
      return {
        ...file(item.mediaType, { type: 'data', data: item.data }),
        ...(item.filename === undefined ? {} : { filename: item.filename }),
      };
    case 'image-data':
      return file(item.mediaType, { type: 'data', data: item.data });
    case 'file-url':
      return file(item.mediaType ?? 'application/octet-stream', taggedData(item.url));
    case 'image-url':
      return file('image', taggedData(item.url));
    case 'file-id':
    case 'image-file-id':
      return file(item.type === 'file-id' ? 'application' : 'image', {
        type: 'reference',
        reference: typeof item.fileId === 'string' ? { [providerName]: item.fileId } : item.fileId,
      });
    case 'file-reference':
    case 'image-file-reference':
      return file(item.type === 'file-reference' ? 'application' : 'image', {
        type: 'reference',
        reference: item.providerReference,
      });
  }
}

/** Tool definitions of a call, for the budget (TRG-1); provider tools count by name only. */
export function toolDefinitions(
  tools: readonly (LanguageModelV4FunctionTool | LanguageModelV4ProviderTool)[] | undefined,
): ToolDefinition[] {
  return (tools ?? []).map((tool) =>
    tool.type === 'function'
      ? {
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          parameters: tool.inputSchema as { [key: string]: JsonValue },
        }
      : { name: tool.name, parameters: {} },
  );
}

/**
 * The chatfold provider rules for an AI SDK provider id (`openai.chat`, `anthropic.messages`,
 * `google.generative-ai`, `vertex.anthropic.messages`); undefined (neutral rules) for others.
 */
export function providerOfModel(providerId: string): Provider | undefined {
  const id = providerId.toLowerCase();
  if (id.includes('anthropic')) return 'anthropic';
  if (id.startsWith('google') || id.startsWith('vertex')) return 'gemini';
  if (id.startsWith('openai') || id.startsWith('azure')) return 'openai';
  return undefined;
}
