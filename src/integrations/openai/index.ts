export type { OpenAISummarizerOptions } from './summarizer.ts';
export { openaiSummarizer } from './summarizer.ts';
export type {
  ChatfoldCreate,
  ChatfoldOpenAI,
  OpenAIChatClient,
  WithChatfoldOptions,
} from './with-chatfold.ts';
export { withChatfold } from './with-chatfold.ts';
