import { anthropicCountTokens } from './anthropic/count-tokens.ts';
import { anthropicMessages } from './anthropic/messages.ts';
import { geminiCountTokens } from './gemini/count-tokens.ts';
import { geminiGenerateContent } from './gemini/generate-content.ts';
import { llamaCppApplyTemplate } from './local-server/llama-cpp-apply-template.ts';
import { localTokenize } from './local-server/local-tokenize.ts';
import { openaiChatCompletions } from './openai/chat-completions.ts';
import { openaiModels } from './openai/models.ts';
import type { FakeRoute } from './server.ts';

/** Every endpoint the fake provider serves by default. */
export const FAKE_PROVIDER_ROUTES: readonly FakeRoute[] = [
  openaiChatCompletions,
  openaiModels,
  anthropicMessages,
  anthropicCountTokens,
  geminiGenerateContent,
  geminiCountTokens,
  localTokenize,
  llamaCppApplyTemplate,
];
