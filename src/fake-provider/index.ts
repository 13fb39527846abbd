// chatfold/fake-provider: a fake LLM provider that speaks the real OpenAI, Anthropic and Gemini
// wire formats over real HTTP, for tests and offline demos (`chatfold fake-provider`).
//
// One endpoint per module under a provider folder (`anthropic/count-tokens.ts`): a `FakeRoute`
// with its method, path pattern, the provider's error body and a handler that validates the
// request as the real API does.
export { anthropicCountTokens } from './anthropic/count-tokens.ts';
export { anthropicContextOverflow, anthropicError } from './anthropic/errors.ts';
export { anthropicMessages } from './anthropic/messages.ts';
export type { FakeAnswer, FakeChatRequest, FakeProviderName, FakeToolCall } from './chat-turn.ts';
export { cannedSummary, defaultRespond, isSummaryRequest } from './default-respond.ts';
export { geminiCountTokens } from './gemini/count-tokens.ts';
export { geminiContextOverflow, geminiError } from './gemini/errors.ts';
export { geminiGenerateContent } from './gemini/generate-content.ts';
export { openaiChatCompletions } from './openai/chat-completions.ts';
export { openaiContextOverflow, openaiError } from './openai/errors.ts';
export { openaiModels } from './openai/models.ts';
export { FAKE_PROVIDER_ROUTES } from './routes.ts';
export type {
  FakeContextLimit,
  FakeFailure,
  FakeProviderBehaviour,
  FakeProviderOptions,
  FakeProviderServer,
  FakeResponse,
  FakeRoute,
  RecordedRequest,
  RouteContext,
  SseEvent,
} from './server.ts';
export { startFakeProvider } from './server.ts';
