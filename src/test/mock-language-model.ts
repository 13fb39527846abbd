import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { importPeer } from '../errors/import-peer.ts';
import { anthropicContextOverflow } from '../fake-provider/anthropic/errors.ts';
import { geminiContextOverflow } from '../fake-provider/gemini/errors.ts';
import { openaiContextOverflow } from '../fake-provider/openai/errors.ts';
import { fromLanguageModelPrompt, providerOfModel } from '../integrations/ai-sdk/language-model-prompt.ts';
import type { JsonValue, Message, Provider } from '../messages/types.ts';
import { answerer, type MockAnswer } from './mock-answer.ts';

/** A context-overflow error to answer with (RT-3), worded and shaped as the provider sends it. */
export interface MockContextOverflow {
  /** The context window the error reports. */
  readonly limit: number;
  /** The prompt size the error reports. */
  readonly actual: number;
  /** Whose error: default the model's provider (`openai.chat` → `openai`), else `openai`. */
  readonly provider?: Provider;
}

/** One reply of a {@link createMockLanguageModel} model. */
export type MockModelReply =
  | string
  | {
      readonly text?: string;
      readonly reasoning?: string;
      readonly toolCalls?: readonly {
        /** Default `call_<n>`, numbered per model. */
        readonly id?: string;
        readonly name: string;
        readonly input?: { readonly [key: string]: JsonValue };
      }[];
      /** Provider-reported tokens; unknown (`undefined`) unless given. */
      readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number };
      /** Default `tool-calls` when there are tool calls, else `stop`. */
      readonly finishReason?: LanguageModelV4FinishReason['unified'];
    }
  /** Reject the call with the provider's context-overflow error, as the AI SDK surfaces it. */
  | { readonly overflow: MockContextOverflow };

/** One call a {@link MockLanguageModel} received. */
export interface MockLanguageModelCall {
  readonly method: 'generate' | 'stream';
  /** What the AI SDK passed to `doGenerate` / `doStream`. */
  readonly options: LanguageModelV4CallOptions;
  /** The prompt as neutral messages (converted when first read). */
  readonly messages: readonly Message[];
}

/** Options of {@link createMockLanguageModel}. */
export interface MockLanguageModelOptions {
  /** The AI SDK provider id; chatfold reads the provider's rules from it. Default `openai.chat`. */
  readonly provider?: string;
  /** The model id; chatfold resolves the context window from it. Default `gpt-4o`. */
  readonly modelId?: string;
}

/** An AI SDK language model (specification v4) that records its calls. */
export interface MockLanguageModel extends LanguageModelV4 {
  /** Every `doGenerate` and `doStream` call, in order. */
  readonly calls: MockLanguageModelCall[];
}

/** Where each provider's API answers, for the error's `url`. */
const ENDPOINTS: Readonly<Record<Provider, (modelId: string, stream: boolean) => string>> = {
  openai: () => 'https://api.openai.com/v1/chat/completions',
  anthropic: () => 'https://api.anthropic.com/v1/messages',
  gemini: (modelId, stream) =>
    `https://generativelanguage.googleapis.com/v1beta/models/${modelId}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
};

const OVERFLOW_BODIES = {
  openai: openaiContextOverflow,
  anthropic: anthropicContextOverflow,
  gemini: geminiContextOverflow,
} as const;

/**
 * The `APICallError` the AI SDK's provider packages throw for a provider's 400 overflow answer:
 * the provider's message, status, headers and raw body (`@ai-sdk/openai`, `/anthropic` and
 * `/google` all read `error.message` from the body).
 */
async function overflowError(
  overflow: MockContextOverflow,
  model: LanguageModelV4,
  stream: boolean,
): Promise<Error> {
  const { APICallError } = await importPeer(
    '@ai-sdk/provider',
    () => import('@ai-sdk/provider'),
    'createMockLanguageModel overflow replies',
  );
  const provider = overflow.provider ?? providerOfModel(model.provider) ?? 'openai';
  const response = OVERFLOW_BODIES[provider](overflow.limit, overflow.actual);
  // The three builders answer with a JSON body, never an event stream.
  const body = ('body' in response ? response.body : {}) as { readonly error: { readonly message: string } };
  return new APICallError({
    message: body.error.message,
    url: ENDPOINTS[provider](model.modelId, stream),
    requestBodyValues: { model: model.modelId },
    statusCode: response.status,
    responseHeaders: { 'content-type': 'application/json', ...response.headers },
    responseBody: JSON.stringify(body),
    isRetryable: false,
    data: body,
  });
}

/** The AI SDK's usage shape; a count nobody reported stays `undefined`. */
function usageOf(
  usage: { readonly inputTokens?: number; readonly outputTokens?: number } = {},
): LanguageModelV4Usage {
  return {
    inputTokens: {
      total: usage.inputTokens,
      noCache: usage.inputTokens,
      cacheRead: undefined,
      cacheWrite: undefined,
    },
    outputTokens: { total: usage.outputTokens, text: usage.outputTokens, reasoning: undefined },
  };
}

/** Word-sized deltas, as a streaming model sends them. */
const deltas = (text: string): string[] => text.match(/\S+\s*|\s+/g) ?? [];

/**
 * An AI SDK language model test double for chatfold's integrations (RT-2, RT-3): scripted
 * replies — text, reasoning, tool calls and usage — answered the same way by `doGenerate` and
 * `doStream` (the stream in word-sized deltas), and provider context-overflow errors in the
 * shape the AI SDK surfaces them (`APICallError` with the provider's status and body), so the
 * middleware's overflow retry can be tested without a server. Records each call with its
 * prompt as neutral messages.
 *
 * `ai/test`'s `MockLanguageModelV4` remains the tool for anything else (raw stream parts,
 * provider metadata); this one needs `@ai-sdk/provider` only when it builds an overflow error.
 *
 * @param answer The reply for every call, a function of the call, or one reply per call; an
 *   `Error` rejects that call as is. A call past the end of the array fails with `E_INVALID_OPTIONS`.
 * @param options The provider and model ids.
 * @returns The model, with `calls`.
 * @example
 * const model = createMockLanguageModel([
 *   { overflow: { limit: 8192, actual: 9500 } }, // OpenAI's 400 context_length_exceeded
 *   { text: 'Done.', usage: { inputTokens: 7900, outputTokens: 3 } },
 * ]);
 * const wrapped = wrapLanguageModel({ model, middleware: chatfoldMiddleware() });
 * await generateText({ model: wrapped, messages });
 * expect(countTokens(model.calls[1].messages, { model: 'gpt-4o' }).total).toBeLessThan(8192);
 */
export function createMockLanguageModel(
  answer: MockAnswer<[call: MockLanguageModelCall], MockModelReply>,
  { provider = 'openai.chat', modelId = 'gpt-4o' }: MockLanguageModelOptions = {},
): MockLanguageModel {
  const calls: MockLanguageModelCall[] = [];
  const replies = answerer(answer, 'createMockLanguageModel');
  let toolCallIds = 0;

  const reply = async (method: MockLanguageModelCall['method'], options: LanguageModelV4CallOptions) => {
    let messages: readonly Message[] | undefined;
    const call: MockLanguageModelCall = {
      method,
      options,
      get messages() {
        messages ??= fromLanguageModelPrompt(options.prompt);
        return messages;
      },
    };
    calls.push(call);
    options.abortSignal?.throwIfAborted();
    const next = await replies.next([call]);
    if (typeof next === 'object' && 'overflow' in next)
      throw await overflowError(next.overflow, model, method === 'stream');
    const script = typeof next === 'string' ? { text: next } : next;
    const toolCalls = (script.toolCalls ?? []).map((toolCall) => ({
      type: 'tool-call' as const,
      toolCallId: toolCall.id ?? `call_${toolCallIds++}`,
      toolName: toolCall.name,
      input: JSON.stringify(toolCall.input ?? {}),
    }));
    const unified = script.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop');
    return {
      ...script,
      toolCalls,
      finishReason: { unified, raw: unified } satisfies LanguageModelV4FinishReason,
      usage: usageOf(script.usage),
    };
  };

  const model: MockLanguageModel = {
    specificationVersion: 'v4',
    provider,
    modelId,
    supportedUrls: {},
    calls,
    async doGenerate(options): Promise<LanguageModelV4GenerateResult> {
      const { reasoning, text, toolCalls, finishReason, usage } = await reply('generate', options);
      const content: LanguageModelV4Content[] = [
        ...(reasoning === undefined ? [] : [{ type: 'reasoning' as const, text: reasoning }]),
        ...(text === undefined ? [] : [{ type: 'text' as const, text }]),
        ...toolCalls,
      ];
      return { content, finishReason, usage, warnings: [] };
    },
    async doStream(options) {
      const { reasoning, text, toolCalls, finishReason, usage } = await reply('stream', options);
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      if (reasoning !== undefined) {
        parts.push({ type: 'reasoning-start', id: 'reasoning-0' });
        for (const delta of deltas(reasoning))
          parts.push({ type: 'reasoning-delta', id: 'reasoning-0', delta });
        parts.push({ type: 'reasoning-end', id: 'reasoning-0' });
      }
      if (text !== undefined) {
        parts.push({ type: 'text-start', id: 'text-0' });
        for (const delta of deltas(text)) parts.push({ type: 'text-delta', id: 'text-0', delta });
        parts.push({ type: 'text-end', id: 'text-0' });
      }
      for (const toolCall of toolCalls) {
        parts.push(
          { type: 'tool-input-start', id: toolCall.toolCallId, toolName: toolCall.toolName },
          { type: 'tool-input-delta', id: toolCall.toolCallId, delta: toolCall.input },
          { type: 'tool-input-end', id: toolCall.toolCallId },
          toolCall,
        );
      }
      parts.push({ type: 'finish', finishReason, usage });
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      return { stream };
    },
  };
  return model;
}
