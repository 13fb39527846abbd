import type { Summarizer } from '../../summarize/types.ts';
import type { OpenAIChatClient } from './with-chatfold.ts';

/** Options of {@link openaiSummarizer}. */
export interface OpenAISummarizerOptions {
  /** The summarizer model, typically cheaper than the chat model (`gpt-4o-mini`). */
  readonly model: string;
  /** Upper bound of the summary's length; the compaction's own limit applies when lower. */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /**
   * How the length limit is sent: `max_completion_tokens` (default; what OpenAI's reasoning
   * models require) or `max_tokens` (older OpenAI-compatible servers).
   */
  readonly maxTokensParameter?: 'max_completion_tokens' | 'max_tokens';
}

/**
 * A chatfold summarizer that calls Chat Completions through an OpenAI client (SUM-5): the
 * prompt chatfold built as a system and a user message, the compaction's timeout as the abort
 * signal. Any failure falls back to the extractive summary inside `compact()` (RT-4).
 *
 * @param client An `OpenAI` client (the plain one; the summary prompt needs no compaction).
 * @param options The model and output settings.
 * @returns A `Summarizer` for `compact({ summarizer })`, a session or `withChatfold`.
 * @example
 * const summarizer = openaiSummarizer(new OpenAI(), { model: 'gpt-4o-mini' });
 */
export function openaiSummarizer(client: OpenAIChatClient, options: OpenAISummarizerOptions): Summarizer {
  return async (request) => {
    const limit = Math.min(request.maxTokens, options.maxOutputTokens ?? request.maxTokens);
    const completion = await client.chat.completions.create(
      {
        model: options.model,
        messages: [
          { role: 'system', content: request.prompt.system },
          { role: 'user', content: request.prompt.user },
        ],
        [options.maxTokensParameter ?? 'max_completion_tokens']: limit,
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      },
      { signal: request.signal },
    );
    return completion.choices[0]?.message.content ?? '';
  };
}
