import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { aiSdkConversion } from '../../messages/ai-sdk.ts';
import { createIncrementalConverter } from '../../messages/incremental-converter.ts';
import { callWithOverflowRetry } from '../call-with-overflow-retry.ts';
import { createPromptFitter, type FitRequest, type IntegrationOptions } from '../prompt-fitter.ts';
import { providerOfModel, toLanguageModelPrompt, toolDefinitions } from './language-model-prompt.ts';

/**
 * Options of {@link chatfoldMiddleware}: the `compact()` options (stateless; `model` defaults to
 * the wrapped model's id, `provider` to its provider), or `{ session }` to keep the history in a
 * session. Both take `onEvent` for compactions, fallbacks and overflow retries.
 */
export type ChatfoldMiddlewareOptions = IntegrationOptions;

/** Tokens the provider reported, as the session records them. */
function usageOf(usage: LanguageModelV4Usage): { inputTokens?: number; outputTokens?: number } {
  return {
    ...(usage.inputTokens.total === undefined ? {} : { inputTokens: usage.inputTokens.total }),
    ...(usage.outputTokens.total === undefined ? {} : { outputTokens: usage.outputTokens.total }),
  };
}

/** `openai` for `openai.chat`: the provider a bare string file id belongs to. */
const providerName = (model: LanguageModelV4): string => model.provider.split('.')[0] ?? model.provider;

/**
 * AI SDK language-model middleware that keeps every call inside the model's context window
 * (RT-2): `transformParams` converts the prompt to neutral messages, compacts it (or appends the
 * new messages to a session and prepares the session's prompt) and converts it back. When the
 * provider still rejects the prompt as too long (RT-3), the call is compacted against the limit
 * the error reported and retried once; a second overflow throws `E_CONTEXT_OVERFLOW`. A failing
 * summarizer falls back to the extractive summary and a failing preparation sends the prompt as
 * it came (both reported through `onEvent`), so chatfold is never why a request fails.
 *
 * @param options `compact()` options, or `{ session }`.
 * @returns Middleware for `wrapLanguageModel({ model, middleware })`.
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: chatfoldMiddleware() });
 * const { text } = await generateText({ model, messages });
 */
export function chatfoldMiddleware(options: ChatfoldMiddlewareOptions = {}): LanguageModelV4Middleware {
  const fitter = createPromptFitter(options);
  // Issue 19 §2: the AI SDK resends the whole history on every call; only what is new since
  // the last call of the same conversation is converted (`fromAiSdk`'s result, exactly).
  const prompts = createIncrementalConverter(aiSdkConversion);
  // transformParams hands the same params object to wrapGenerate / wrapStream.
  const requests = new WeakMap<LanguageModelV4CallOptions, FitRequest>();
  const resend =
    (params: LanguageModelV4CallOptions, model: LanguageModelV4) => (messages: FitRequest['messages']) => ({
      ...params,
      prompt: toLanguageModelPrompt(messages, providerName(model)),
    });

  return {
    specificationVersion: 'v4',

    async transformParams({ params, model }) {
      let request: FitRequest;
      try {
        const provider = providerOfModel(model.provider);
        const tools = toolDefinitions(params.tools);
        request = {
          messages: prompts.convert(params.prompt),
          ...(tools.length === 0 ? {} : { tools }),
          model: model.modelId,
          ...(provider === undefined ? {} : { provider }),
          ...(params.abortSignal === undefined ? {} : { signal: params.abortSignal }),
        };
      } catch (error) {
        fitter.emit({ type: 'prepare-error', error });
        return params;
      }
      const messages = await fitter.fit(request);
      let next = params;
      if (messages !== request.messages) {
        try {
          next = resend(params, model)(messages);
        } catch (error) {
          fitter.emit({ type: 'prepare-error', error });
        }
      }
      if (next === params) next = { ...params };
      requests.set(next, request);
      return next;
    },

    async wrapGenerate({ doGenerate, params, model }) {
      const request = requests.get(params);
      if (request === undefined) return doGenerate();
      const toParams = resend(params, model);
      const result = await callWithOverflowRetry(
        fitter,
        request,
        (messages) => model.doGenerate(toParams(messages)),
        () => doGenerate(),
      );
      await fitter.record(request, usageOf(result.usage));
      return result;
    },

    async wrapStream({ doStream, params, model }) {
      const request = requests.get(params);
      if (request === undefined) return doStream();
      const toParams = resend(params, model);
      const result = await callWithOverflowRetry(
        fitter,
        request,
        (messages) => model.doStream(toParams(messages)),
        () => doStream(),
      );
      // Usage arrives in the finish part; the parts pass through unchanged.
      const recordUsage = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        async transform(part, controller) {
          controller.enqueue(part);
          if (part.type === 'finish') await fitter.record(request, usageOf(part.usage));
        },
      });
      return { ...result, stream: result.stream.pipeThrough(recordUsage) };
    },
  };
}
