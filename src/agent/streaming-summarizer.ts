import type { LanguageModel } from 'ai';
import type { Summarizer } from '../summarize/types.ts';

type AiSdk = typeof import('ai');

/** Options of {@link streamingSummarizer}. */
export interface StreamingSummarizerOptions {
  /** The model id recorded with each summary (`/compactions`, WEB-6). */
  readonly modelId: string;
  /** The signal of the run or `/summarize` in progress: aborting it stops the summary call. */
  readonly signal: () => AbortSignal | undefined;
}

/**
 * A chatfold summarizer (SUM-5) that streams: the summary call runs through `streamText`, each
 * delta goes to `request.onDelta` (the session turns it into `compaction-progress` events), and
 * both the compaction's own signal (timeout, abort) and the user's run signal stop it.
 */
export function streamingSummarizer(
  ai: AiSdk,
  model: LanguageModel,
  { modelId, signal }: StreamingSummarizerOptions,
): Summarizer {
  return async (request) => {
    const user = signal();
    const abortSignal = user === undefined ? request.signal : AbortSignal.any([request.signal, user]);
    const result = ai.streamText({
      model,
      instructions: request.prompt.system,
      prompt: request.prompt.user,
      abortSignal,
      maxOutputTokens: request.maxTokens,
      maxRetries: 0,
      onError: () => undefined, // errors arrive as stream parts and are thrown below
    });
    let text = '';
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        text += part.text;
        request.onDelta?.(part.text);
      } else if (part.type === 'error') {
        throw part.error;
      } else if (part.type === 'abort') {
        throw abortSignal.reason ?? new Error('the summary was aborted');
      }
    }
    return { text, model: modelId };
  };
}
