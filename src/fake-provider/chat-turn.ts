import type { Message, ToolDefinition } from '../messages/types.ts';
import { countTokens } from '../tokens/count-tokens.ts';
import { answerFromScript } from './script-respond.ts';
import type {
  FakeContextLimit,
  FakeFailure,
  FakeProviderBehaviour,
  FakeResponse,
  FakeRoute,
  FakeTiming,
  RecordedRequest,
} from './server.ts';

/** The provider wire formats the fake server speaks. */
export type FakeProviderName = 'openai' | 'anthropic' | 'gemini';

/** A tool call the fake model makes. */
export interface FakeToolCall {
  /** Default: generated in the provider's style (`call_…`, `toolu_…`). */
  readonly id?: string;
  readonly name: string;
  /** Default `{}`. */
  readonly arguments?: Readonly<Record<string, unknown>>;
}

/**
 * What the fake model answers to one call; every field is optional. A script's `reply` and
 * `steps` entries have this shape too: without `text`, `toolCalls` and `error` a script rule
 * gives the default answer (a structured summary for chatfold's summarization prompt, else an
 * echo), so `{ delayMs: 2000 }` alone is a slow summarizer.
 */
export interface FakeAnswer {
  readonly text?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  /** Reported usage; default: the counted prompt, and output characters / 4. */
  readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number };
  /** Milliseconds before the response's first byte (status line and headers). */
  readonly delayMs?: number;
  /** Milliseconds between the events of a streamed answer. */
  readonly chunkDelayMs?: number;
  /** Fail the call with this HTTP status, in the provider's own error shape. */
  readonly error?: FakeFailure;
}

/** A chat request as the fake model sees it, whatever the wire format. */
export interface FakeChatRequest {
  readonly provider: FakeProviderName;
  readonly model: string;
  /** The request's messages in chatfold's neutral form (system instructions included). */
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  readonly stream: boolean;
  /** Tokens of the prompt, as the server counted them. */
  readonly promptTokens: number;
  readonly request: RecordedRequest;
}

/** A finished fake turn: what the route serialises in its provider's format. */
export type ChatTurn =
  | { readonly type: 'overflow'; readonly limit: number; readonly actual: number }
  | { readonly type: 'failure'; readonly failure: FakeFailure; readonly timing: FakeTiming }
  | {
      readonly type: 'answer';
      readonly timing: FakeTiming;
      readonly text: string;
      readonly toolCalls: readonly {
        readonly id: string;
        readonly name: string;
        readonly arguments: string;
      }[];
      readonly inputTokens: number;
      readonly outputTokens: number;
    };

/** The context limit that applies to a model, if any (`'*'` is the fallback key). */
export function contextLimitFor(limit: FakeContextLimit | undefined, model: string): number | undefined {
  if (limit === undefined || typeof limit === 'number') return limit;
  return limit[model] ?? limit['*'];
}

/** Tokens of a prompt: the configured counter, else chatfold's counter for the model. */
export function promptTokens(
  request: RecordedRequest,
  behaviour: FakeProviderBehaviour,
  prompt: {
    readonly model: string;
    readonly messages: readonly Message[];
    readonly tools: readonly ToolDefinition[];
  },
): number {
  if (behaviour.countTokens !== undefined) return behaviour.countTokens(request);
  return countTokens(prompt.messages, { model: prompt.model, tools: prompt.tools }).total;
}

let callCounter = 0;

/** A provider-style id (`call_fake0001`). */
export function fakeId(prefix: string): string {
  callCounter += 1;
  return `${prefix}fake${String(callCounter).padStart(8, '0')}`;
}

const timingOf = (answer: FakeAnswer): FakeTiming => ({
  ...(answer.delayMs === undefined ? {} : { delayMs: answer.delayMs }),
  ...(answer.chunkDelayMs === undefined ? {} : { chunkDelayMs: answer.chunkDelayMs }),
});

/**
 * Runs one chat turn shared by every wire format: count the prompt, refuse it over the
 * context limit, otherwise take the first matching rule of `behaviour.script` (else
 * `behaviour.respond`) and fill in ids and usage.
 */
export function runChatTurn(
  input: Omit<FakeChatRequest, 'promptTokens'>,
  behaviour: FakeProviderBehaviour,
  idPrefix: string,
): ChatTurn {
  const tokens = promptTokens(input.request, behaviour, input);
  const limit = contextLimitFor(behaviour.contextLimit, input.model);
  if (limit !== undefined && tokens > limit) return { type: 'overflow', limit, actual: tokens };
  const request = { ...input, promptTokens: tokens };
  const scripted = behaviour.script === undefined ? undefined : answerFromScript(behaviour.script, request);
  const answer =
    scripted === undefined
      ? behaviour.respond(request)
      : scripted.text === undefined && scripted.toolCalls === undefined && scripted.error === undefined
        ? { ...behaviour.respond(request), ...scripted }
        : scripted;
  const timing = timingOf(answer);
  if (answer.error !== undefined) return { type: 'failure', failure: answer.error, timing };
  const text = answer.text ?? '';
  const toolCalls = (answer.toolCalls ?? []).map((call) => ({
    id: call.id ?? fakeId(idPrefix),
    name: call.name,
    arguments: JSON.stringify(call.arguments ?? {}),
  }));
  const outputChars = text.length + toolCalls.reduce((sum, call) => sum + call.arguments.length, 0);
  return {
    type: 'answer',
    timing,
    text,
    toolCalls,
    inputTokens: answer.usage?.inputTokens ?? tokens,
    outputTokens: answer.usage?.outputTokens ?? Math.max(1, Math.ceil(outputChars / 4)),
  };
}

/**
 * The response of a scripted failure: the route's own error body for the status, with
 * `retry-after` when given, sent with the answer's timing.
 */
export function failureResponse(
  error: FakeRoute['error'],
  turn: Extract<ChatTurn, { type: 'failure' }>,
): FakeResponse {
  const { status, message = 'fake provider failure (scripted)', retryAfter } = turn.failure;
  const response = error(status, message);
  const headers =
    retryAfter === undefined ? response.headers : { ...response.headers, 'retry-after': String(retryAfter) };
  return { ...response, ...(headers === undefined ? {} : { headers }), timing: turn.timing };
}

/** Splits text into word-sized stream deltas that concatenate back to it. */
export function streamPieces(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

/** `value` as a plain object, or undefined. */
export const asObject = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** The fallback count: characters of the JSON body / 4 (TOK-7). */
export const quarterOfJson = (body: unknown): number => Math.ceil(JSON.stringify(body ?? '').length / 4);

/**
 * Tokens for a count endpoint: like {@link promptTokens}, or characters of the JSON body / 4
 * when the body does not convert (the route has already refused what the API refuses).
 */
export function countEndpointTokens(
  request: RecordedRequest,
  behaviour: FakeProviderBehaviour,
  prompt: {
    readonly model: string;
    readonly toMessages: () => Message[];
    readonly tools: readonly ToolDefinition[];
  },
): number {
  if (behaviour.countTokens !== undefined) return behaviour.countTokens(request);
  let messages: Message[];
  try {
    messages = prompt.toMessages();
  } catch {
    return quarterOfJson(request.body);
  }
  return promptTokens(request, behaviour, { model: prompt.model, messages, tools: prompt.tools });
}
