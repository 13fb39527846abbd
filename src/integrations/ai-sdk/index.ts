export type { ChatfoldMiddlewareOptions } from './middleware.ts';
export { chatfoldMiddleware } from './middleware.ts';
export type { AiSdkSummarizerOptions } from './summarizer.ts';
export { aiSdkSummarizer } from './summarizer.ts';
