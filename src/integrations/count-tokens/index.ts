export type { AnthropicCountClient, AnthropicTokenCounterOptions } from './anthropic.ts';
export { createAnthropicTokenCounter } from './anthropic.ts';
export type { GeminiCountClient, GeminiTokenCounterOptions } from './gemini.ts';
export { createGeminiTokenCounter } from './gemini.ts';
export type { LlamaCppTokenCounterOptions } from './llama-cpp.ts';
export { createLlamaCppTokenCounter } from './llama-cpp.ts';
export type { LocalServerCounterOptions } from './local-server.ts';
export type { CountFallback, ProviderCount, ProviderCounterOptions } from './provider-counter.ts';
export {
  createProviderTokenCounter,
  DEFAULT_COUNT_CACHE_SIZE,
  DEFAULT_COUNT_TIMEOUT_MS,
} from './provider-counter.ts';
export type { VllmTokenCounterOptions } from './vllm.ts';
export { createVllmTokenCounter } from './vllm.ts';
