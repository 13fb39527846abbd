export type { ConversationBuilder } from './build-conversation.ts';
export { buildConversation } from './build-conversation.ts';
export type { MockTokenCounter, MockTokenCounterOptions } from './mock-token-counter.ts';
export { createMockTokenCounter } from './mock-token-counter.ts';
