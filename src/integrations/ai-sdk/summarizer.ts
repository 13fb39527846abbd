import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import { generateText, type LanguageModel } from 'ai';
import type { Summarizer } from '../../summarize/types.ts';

/** Options of {@link aiSdkSummarizer}. */
export interface AiSdkSummarizerOptions {
  /** Upper bound of the summary's length; the compaction's own limit applies when lower. */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /** Provider options of the summary call, e.g. `{ openai: { reasoningEffort: 'low' } }`. */
  readonly providerOptions?: SharedV4ProviderOptions;
}

/**
 * A chatfold summarizer backed by any AI SDK language model (SUM-5), typically a cheaper one
 * than the chat model. It sends the prompt chatfold built (system + user) with `generateText`;
 * the compaction's timeout aborts it, and any failure falls back to the extractive summary (RT-4).
 *
 * @param model The summarizer model, e.g. `openai('gpt-4o-mini')`.
 * @param options Output limit, temperature, provider options.
 * @returns A `Summarizer` for `compact({ summarizer })`, a session or the middleware.
 * @example
 * const middleware = chatfoldMiddleware({ summarizer: aiSdkSummarizer(openai('gpt-4o-mini')) });
 */
export function aiSdkSummarizer(model: LanguageModel, options: AiSdkSummarizerOptions = {}): Summarizer {
  return async (request) => {
    const { text } = await generateText({
      model,
      instructions: request.prompt.system,
      prompt: request.prompt.user,
      abortSignal: request.signal,
      maxOutputTokens: Math.min(request.maxTokens, options.maxOutputTokens ?? request.maxTokens),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
    });
    return text;
  };
}
