// chatfold/test: test doubles for every interface a user implements or mocks (in the style of
// the AI SDK's `ai/test`): each takes a value, a function or a per-call array and records calls.
export type { ConversationBuilder } from './build-conversation.ts';
export { buildConversation } from './build-conversation.ts';
export { caughtError } from './caught-error.ts';
export type { MockAnswer } from './mock-answer.ts';
export type {
  MockContextOverflow,
  MockLanguageModel,
  MockLanguageModelCall,
  MockLanguageModelOptions,
  MockModelReply,
} from './mock-language-model.ts';
export { createMockLanguageModel } from './mock-language-model.ts';
export type {
  MockStore,
  MockStoreCalls,
  MockStoreFailures,
  MockStoreOptions,
  StoreMethod,
  StoreMethodArgs,
} from './mock-store.ts';
export { createMockStore } from './mock-store.ts';
export type { MockSummarizer, MockSummarizerOptions } from './mock-summarizer.ts';
export { createMockSummarizer } from './mock-summarizer.ts';
export type {
  MockTokenCounter,
  MockTokenCounterCalls,
  MockTokenCounterOptions,
} from './mock-token-counter.ts';
export { createMockTokenCounter } from './mock-token-counter.ts';
