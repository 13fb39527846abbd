// Fake provider servers for tests: real wire formats over real HTTP on 127.0.0.1.
//
// One endpoint per module under a provider folder (`anthropic/count-tokens.ts`): a `FakeRoute`
// with its method, path pattern, the provider's error body and a handler that validates the
// request as the real API does. To add OpenAI chat completions or Anthropic messages, write
// `openai/errors.ts` + `openai/chat-completions.ts` (answer from a function kept in the route's
// closure or in `behaviour`), export them here and pass the route to `startFakeProvider`.
export { anthropicCountTokens } from './anthropic/count-tokens.ts';
export { anthropicError } from './anthropic/errors.ts';
export { geminiCountTokens } from './gemini/count-tokens.ts';
export { geminiError } from './gemini/errors.ts';
export type {
  FakeFailure,
  FakeProviderBehaviour,
  FakeProviderServer,
  FakeResponse,
  FakeRoute,
  RecordedRequest,
  RouteContext,
} from './server.ts';
export { startFakeProvider } from './server.ts';
