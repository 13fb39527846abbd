// Converter outputs are the SDKs' own request types (MSG-2): what `toX` returns is passed to the
// official client without a cast, and what the client holds goes into `fromX` without one.
import type {
  MessageCreateParams,
  MessageParam,
  RedactedThinkingBlockParam,
  TextBlockParam,
  ThinkingBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { Content, GenerateContentConfig } from '@google/genai';
import type { ModelMessage } from 'ai';
import {
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

  // Not yet: `AnthropicMessage` is not assignable to the SDK's `MessageParam` (reported to the lead):
  // - image/document `source` is one union for both (`AnthropicSource`) with base64
  //   `media_type: string`, where the SDK has image `'image/gif' | 'image/jpeg' | 'image/png' |
  //   'image/webp'` and document `'application/pdf'` (and no `text` source for images);
  // - the `content` document source holds `JsonValue[]`, the SDK `TextBlockParam | ImageBlockParam`;
  // - server-tool blocks are carried verbatim as `{ type, [key]: JsonValue }`, which matches none
  //   of the SDK's `ServerToolUseBlockParam`, `WebSearchToolResultBlockParam`, ….
  it.todo("toAnthropic(…).messages → @anthropic-ai/sdk's MessageParam[]");
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
