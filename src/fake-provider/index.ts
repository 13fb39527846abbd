// chatfold/fake-provider: a fake LLM provider that speaks the real OpenAI, Anthropic and Gemini
// wire formats, and the tokenize endpoints of llama.cpp's server and vLLM, over real HTTP, for
// tests and offline demos (`chatfold fake-provider`).
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
export { loadFakeScript } from './load-script.ts';
export { llamaCppApplyTemplate } from './local-server/llama-cpp-apply-template.ts';
export { llamaCppError } from './local-server/llama-cpp-errors.ts';
export { llamaCppTokenize } from './local-server/llama-cpp-tokenize.ts';
export { localTokenize } from './local-server/local-tokenize.ts';
export { vllmError } from './local-server/vllm-errors.ts';
export { FAKE_VLLM_MAX_MODEL_LEN, vllmTokenize } from './local-server/vllm-tokenize.ts';
export { openaiChatCompletions } from './openai/chat-completions.ts';
export { openaiContextOverflow, openaiError } from './openai/errors.ts';
export { openaiModels } from './openai/models.ts';
export { REQUEST_LOG_DEFAULTS, type RequestLogLimits } from './request-log.ts';
export { FAKE_PROVIDER_ROUTES } from './routes.ts';
export {
  type FakeMatch,
  type FakeScript,
  type FakeScriptRule,
  fakeScriptSchema,
  parseFakeScript,
} from './script.ts';
export type {
  FakeContextLimit,
  FakeFailure,
  FakeProviderBehaviour,
  FakeProviderOptions,
  FakeProviderServer,
  FakeResponse,
  FakeRoute,
  FakeServerTimeouts,
  FakeTiming,
  RecordedRequest,
  RouteContext,
  SseEvent,
} from './server.ts';
export { FAKE_SERVER_DEFAULTS, startFakeProvider } from './server.ts';
