// Converter outputs are the SDKs' own request types (MSG-2): what `toX` returns is passed to the
// official client without a cast, and what the client holds goes into `fromX` without one.
import type {
  BetaMCPToolUseBlockParam,
  MessageCreateParams as BetaMessageCreateParams,
  BetaMessageParam,
  BetaRequestMCPToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/beta/messages';
import type {
  BashCodeExecutionToolResultBlockParam,
  CodeExecutionToolResultBlockParam,
  ContainerUploadBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  MessageCreateParams,
  MessageCreateParamsNonStreaming,
  MessageParam,
  RedactedThinkingBlockParam,
  SearchResultBlockParam,
  ServerToolUseBlockParam,
  TextBlockParam,
  TextEditorCodeExecutionToolResultBlockParam,
  ThinkingBlockParam,
  ToolResultBlockParam,
  ToolSearchToolResultBlockParam,
  ToolUseBlockParam,
  WebFetchToolResultBlockParam,
  WebSearchToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { Content, GenerateContentConfig } from '@google/genai';
import type { ModelMessage } from 'ai';
import {
  type AnthropicBetaRequest,
  type AnthropicMessage,
  fromAiSdk,
  fromAnthropic,
  fromGemini,
  fromOpenAI,
  type Message,
  toAiSdk,
  toAnthropic,
  toGemini,
  toOpenAI,
} from 'chatfold';
import type { ChatCompletionMessage, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expectTypeOf, it } from 'vitest';

declare const messages: Message[];

/** A content block of a converted Anthropic message. */
type AnthropicBlockOut = Exclude<AnthropicMessage['content'], string>[number];
/** A content block of a converted Anthropic beta message. */
type AnthropicBetaBlockOut = Exclude<AnthropicBetaRequest['messages'][number]['content'], string>[number];

describe('toX outputs are assignable to the SDK request types', () => {
  it("toOpenAI → openai's ChatCompletionMessageParam[]", () => {
    expectTypeOf(toOpenAI(messages)).toExtend<ChatCompletionMessageParam[]>();
  });

  it("toAiSdk → ai's ModelMessage[]", () => {
    expectTypeOf(toAiSdk(messages)).toExtend<ModelMessage[]>();
  });

  it("toGemini → @google/genai's Content[] and systemInstruction", () => {
    const request = toGemini(messages);
    expectTypeOf(request.contents).toExtend<Content[]>();
    expectTypeOf(request.systemInstruction).toExtend<GenerateContentConfig['systemInstruction']>();
  });

  it("toAnthropic → @anthropic-ai/sdk's system, and the blocks chatfold writes for text, tool calls and thinking", () => {
    const request = toAnthropic(messages);
    expectTypeOf(request.system).toExtend<MessageCreateParams['system']>();
    expectTypeOf<Extract<AnthropicBlockOut, { type: 'text' }>>().toExtend<TextBlockParam>();
    expectTypeOf<Extract<AnthropicBlockOut, { type: 'tool_use' }>>().toExtend<ToolUseBlockParam>();
    expectTypeOf<Extract<AnthropicBlockOut, { type: 'thinking' }>>().toExtend<ThinkingBlockParam>();
    expectTypeOf<
      Extract<AnthropicBlockOut, { type: 'redacted_thinking' }>
    >().toExtend<RedactedThinkingBlockParam>();
  });

  it("toAnthropic(…).messages → @anthropic-ai/sdk's MessageParam[], and the whole request spreads into create()", () => {
    const request = toAnthropic(messages);
    expectTypeOf(request.messages).toExtend<MessageParam[]>();
    expectTypeOf(request.system).toExtend<MessageCreateParams['system']>();
    expectTypeOf({
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      ...request,
    }).toExtend<MessageCreateParamsNonStreaming>();
    // Each block kind on its own, so a failure names the one that drifted.
    expectTypeOf<Extract<AnthropicBlockOut, { type: 'image' }>>().toExtend<ImageBlockParam>();
    expectTypeOf<Extract<AnthropicBlockOut, { type: 'document' }>>().toExtend<DocumentBlockParam>();
    expectTypeOf<Extract<AnthropicBlockOut, { type: 'tool_result' }>>().toExtend<ToolResultBlockParam>();
    expectTypeOf<
      Extract<AnthropicBlockOut, { type: 'server_tool_use' }>
    >().toExtend<ServerToolUseBlockParam>();
    expectTypeOf<
      Extract<AnthropicBlockOut, { type: 'web_search_tool_result' }>
    >().toExtend<WebSearchToolResultBlockParam>();
    expectTypeOf<
      Extract<AnthropicBlockOut, { type: 'web_fetch_tool_result' }>
    >().toExtend<WebFetchToolResultBlockParam>();
    expectTypeOf<
      Extract<AnthropicBlockOut, { type: 'code_execution_tool_result' }>
    >().toExtend<CodeExecutionToolResultBlockParam>();
    expectTypeOf<
      Extract<AnthropicBlockOut, { type: 'bash_code_execution_tool_result' }>
    >().toExtend<BashCodeExecutionToolResultBlockParam>();
    expectTypeOf<
      Extract<AnthropicBlockOut, { type: 'text_editor_code_execution_tool_result' }>
    >().toExtend<TextEditorCodeExecutionToolResultBlockParam>();
    expectTypeOf<
      Extract<AnthropicBlockOut, { type: 'tool_search_tool_result' }>
    >().toExtend<ToolSearchToolResultBlockParam>();
    expectTypeOf<
      Extract<AnthropicBlockOut, { type: 'container_upload' }>
    >().toExtend<ContainerUploadBlockParam>();
    expectTypeOf<Extract<AnthropicBlockOut, { type: 'search_result' }>>().toExtend<SearchResultBlockParam>();
  });

  it("toAnthropic(…, { api: 'beta' }) → @anthropic-ai/sdk's BetaMessageParam[] (MCP connector blocks too)", () => {
    const request = toAnthropic(messages, { api: 'beta' });
    expectTypeOf(request.messages).toExtend<BetaMessageParam[]>();
    expectTypeOf(request.system).toExtend<BetaMessageCreateParams['system']>();
    // The MCP blocks are beta-only: the beta request is not a plain MessageParam[] (without
    // `api: 'beta'`, toAnthropic refuses them).
    expectTypeOf(request.messages).not.toExtend<MessageParam[]>();
    expectTypeOf<
      Extract<AnthropicBetaBlockOut, { type: 'mcp_tool_use' }>
    >().toExtend<BetaMCPToolUseBlockParam>();
    expectTypeOf<
      Extract<AnthropicBetaBlockOut, { type: 'mcp_tool_result' }>
    >().toExtend<BetaRequestMCPToolResultBlockParam>();
  });
});

describe('fromX inputs take what the SDK clients hold', () => {
  it("fromOpenAI takes request messages and a response's message", () => {
    expectTypeOf(fromOpenAI).toBeCallableWith([] as ChatCompletionMessageParam[]);
    expectTypeOf(fromOpenAI).toBeCallableWith([{} as ChatCompletionMessage]);
  });

  it('fromAnthropic takes MessageParam[] and the system prompt', () => {
    expectTypeOf(fromAnthropic).toBeCallableWith({
      system: {} as MessageCreateParams['system'],
      messages: [] as MessageParam[],
    });
  });

  it('fromAiSdk takes ModelMessage[]', () => {
    expectTypeOf(fromAiSdk).toBeCallableWith([] as ModelMessage[]);
  });

  it('fromGemini takes Content[] and a Content system instruction', () => {
    expectTypeOf(fromGemini).toBeCallableWith({
      contents: [] as Content[],
      systemInstruction: {} as Content,
    });
  });

  it('every fromX returns neutral messages', () => {
    expectTypeOf(fromOpenAI).returns.toEqualTypeOf<Message[]>();
    expectTypeOf(fromAnthropic).returns.toEqualTypeOf<Message[]>();
    expectTypeOf(fromAiSdk).returns.toEqualTypeOf<Message[]>();
    expectTypeOf(fromGemini).returns.toEqualTypeOf<Message[]>();
  });
});
