import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { Stream } from 'openai/streaming';
import { createIncrementalConverter } from '../../messages/incremental-converter.ts';
import { fromOpenAI, openAIConversion, toOpenAI } from '../../messages/openai.ts';
import type { JsonValue, Message, ToolDefinition } from '../../messages/types.ts';
import { callWithOverflowRetry } from '../call-with-overflow-retry.ts';
import {
  createPromptFitter,
  type FitRequest,
  type IntegrationOptions,
  type PromptFitter,
} from '../prompt-fitter.ts';
import { createStreamReply } from './stream-reply.ts';

/** Options of {@link withChatfold}: the `compact()` options (stateless), or `{ session }`. */
export type WithChatfoldOptions = IntegrationOptions;

type RequestOptions = Parameters<OpenAI['chat']['completions']['create']>[1];

/** What `withChatfold` needs of a client: `chat.completions.create` (an `OpenAI` or `AzureOpenAI`). */
export interface OpenAIChatClient {
  readonly chat: { readonly completions: { readonly create: OpenAI['chat']['completions']['create'] } };
}

/** `chat.completions.create` with chatfold in front: the SDK's parameter and result types. */
export interface ChatfoldCreate {
  (body: ChatCompletionCreateParamsNonStreaming, options?: RequestOptions): Promise<ChatCompletion>;
  (body: ChatCompletionCreateParamsStreaming, options?: RequestOptions): Promise<Stream<ChatCompletionChunk>>;
  (
    body: ChatCompletionCreateParamsBase,
    options?: RequestOptions,
  ): Promise<Stream<ChatCompletionChunk> | ChatCompletion>;
}

/** The client `withChatfold` returns: the same client, `chat.completions.create` wrapped. */
export type ChatfoldOpenAI<Client extends OpenAIChatClient> = Omit<Client, 'chat'> & {
  readonly chat: Omit<Client['chat'], 'completions'> & {
    readonly completions: Omit<Client['chat']['completions'], 'create'> & { readonly create: ChatfoldCreate };
  };
};

/** Neutral tool definitions of a request, for the budget (TRG-1). */
function toolsOf(tools: readonly ChatCompletionTool[] | undefined): ToolDefinition[] {
  return (tools ?? []).map((tool) =>
    tool.type === 'function'
      ? {
          name: tool.function.name,
          ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
          parameters: (tool.function.parameters ?? {}) as { [key: string]: JsonValue },
        }
      : {
          name: tool.custom.name,
          ...(tool.custom.description === undefined ? {} : { description: tool.custom.description }),
          parameters: {},
        },
  );
}

const usageOf = (usage: CompletionUsage | null | undefined) =>
  usage == null ? {} : { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens };

/** A proxy of `target` whose `key` is `value`; other members are the target's, methods bound to it. */
function overriding<T extends object>(target: T, key: PropertyKey, value: unknown): T {
  return new Proxy(target, {
    get(object, property) {
      if (property === key) return value;
      const member = Reflect.get(object, property, object);
      return typeof member === 'function' ? member.bind(object) : member;
    },
  });
}

/**
 * Wraps an OpenAI client so every `chat.completions.create` call is kept inside the model's
 * context window (RT-2): `messages` are converted with `fromOpenAI`, compacted (or appended to a
 * session, whose prompt is sent) and converted back with `toOpenAI`; the rest of the client is
 * untouched. Streaming asks for `stream_options.include_usage` to record usage and passes every
 * chunk through unchanged (the usage-only last chunk only when you asked for it). With a session,
 * the assistant reply is appended after the call. A context-overflow error (RT-3) compacts
 * against the reported limit and retries once; a second one throws `E_CONTEXT_OVERFLOW`.
 * `create` returns a plain `Promise` (no `withResponse()`).
 *
 * @param client An `OpenAI` (or `AzureOpenAI`, or any OpenAI-compatible base URL) client.
 * @param options `compact()` options (`model` defaults to the request's), or `{ session }`.
 * @returns The client with `chat.completions.create` wrapped.
 * @example
 * const openai = withChatfold(new OpenAI(), { summarizer: openaiSummarizer(new OpenAI(), { model: 'gpt-4o-mini' }) });
 * const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages });
 */
export function withChatfold<Client extends OpenAIChatClient>(
  client: Client,
  options: WithChatfoldOptions = {},
): ChatfoldOpenAI<Client> {
  const fitter = createPromptFitter(options);
  // Issue 19 §2: apps resend the whole history on every call; only what is new since the last
  // call of the same conversation is converted (`fromOpenAI`'s result, exactly).
  const histories = createIncrementalConverter(openAIConversion);
  const original = client.chat.completions;
  const create = (async (body: ChatCompletionCreateParamsBase, requestOptions?: RequestOptions) => {
    let request: FitRequest;
    try {
      const tools = toolsOf(body.tools);
      request = {
        messages: histories.convert(body.messages),
        model: body.model,
        provider: 'openai',
        ...(tools.length === 0 ? {} : { tools }),
        ...(requestOptions?.signal == null ? {} : { signal: requestOptions.signal }),
      };
    } catch (error) {
      fitter.emit({ type: 'prepare-error', error });
      return original.create(body, requestOptions);
    }
    const messagesFor = (messages: readonly Message[]): ChatCompletionMessageParam[] =>
      messages === request.messages ? body.messages : toOpenAI(messages);
    if (body.stream !== true) {
      const completion = (await callWithOverflowRetry(fitter, request, (messages) =>
        original.create({ ...body, messages: messagesFor(messages) }, requestOptions),
      )) as ChatCompletion;
      const choice = completion.choices[0]?.message;
      const reply =
        choice === undefined ? undefined : replyOf(body.messages, choice as ChatCompletionMessageParam);
      await fitter.record(request, {
        ...usageOf(completion.usage),
        ...(reply === undefined ? {} : { reply }),
      });
      return completion;
    }
    const askedForUsage = body.stream_options?.include_usage === true;
    const stream = (await callWithOverflowRetry(fitter, request, (messages) =>
      original.create(
        {
          ...body,
          stream: true,
          stream_options: { ...body.stream_options, include_usage: true },
          messages: messagesFor(messages),
        },
        requestOptions,
      ),
    )) as Stream<ChatCompletionChunk>;
    return passThrough(stream, { fitter, request, body, askedForUsage });
  }) as ChatfoldCreate;
  const completions = overriding(original, 'create', create);
  const chat = overriding(client.chat, 'completions', completions);
  return overriding(client, 'chat', chat) as unknown as ChatfoldOpenAI<Client>;
}

/** The reply as the neutral message that follows the request's messages. */
function replyOf(
  history: readonly ChatCompletionMessageParam[],
  reply: ChatCompletionMessageParam,
): Message | undefined {
  try {
    // Issue 19 §2: the reply alone, not the whole history again. A legacy `function_call` gets
    // an id from its position, so it is converted after the history it follows.
    const legacy = (reply as { function_call?: unknown }).function_call != null;
    return fromOpenAI(legacy ? [...history, reply] : [reply]).at(-1);
  } catch {
    return undefined;
  }
}

/** A stream of the same class that yields every chunk, then records usage and the reply. */
function passThrough(
  stream: Stream<ChatCompletionChunk>,
  context: {
    fitter: PromptFitter;
    request: FitRequest;
    body: ChatCompletionCreateParamsBase;
    askedForUsage: boolean;
  },
): Stream<ChatCompletionChunk> {
  const { fitter, request, body, askedForUsage } = context;
  const StreamClass = stream.constructor as new (
    iterator: () => AsyncIterator<ChatCompletionChunk>,
    controller: AbortController,
  ) => Stream<ChatCompletionChunk>;
  async function* chunks(): AsyncGenerator<ChatCompletionChunk> {
    const reply = createStreamReply();
    let usage: CompletionUsage | undefined;
    for await (const chunk of stream) {
      reply.add(chunk);
      if (chunk.usage != null) usage = chunk.usage;
      // The usage-only last chunk was added by chatfold: the caller never asked for it.
      if (!askedForUsage && chunk.choices.length === 0 && chunk.usage != null) continue;
      yield chunk;
    }
    const message = replyOf(body.messages, reply.message());
    await fitter.record(request, { ...usageOf(usage), ...(message === undefined ? {} : { reply: message }) });
  }
  return new StreamClass(() => chunks(), stream.controller);
}
