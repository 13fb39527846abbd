/**
 * Recognises provider context-overflow errors (RT-3) from any SDK without importing one: the
 * openai and @anthropic-ai/sdk `APIError`s, @google/genai `ApiError`, the Vercel AI SDK's
 * `APICallError` and `RetryError`, LiteLLM and OpenAI-compatible local servers. Pure: it only
 * reads properties, walks `cause` chains and never throws.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { OVERFLOW_PATTERNS, type OverflowProvider } from './overflow-patterns.ts';

export type { OverflowProvider } from './overflow-patterns.ts';

/**
 * A provider's context-overflow error as chatfold reads it. `limit` and `actual` are the
 * window and the prompt size in tokens, when the error says them.
 */
export interface ContextOverflow {
  readonly provider: OverflowProvider;
  readonly limit?: number;
  readonly actual?: number;
  /** The provider's own wording. */
  readonly message: string;
}

/** Nodes visited at most (cause chains, retry errors, nested bodies); bounds odd or cyclic input. */
const MAX_NODES = 64;
/** Characters of one text matched at most; overflow wordings sit at the start of bodies. */
const MAX_TEXT = 20_000;
/** Keys that hold the next error or body to look into. */
const NESTED_KEYS = ['error', 'data', 'body', 'cause', 'lastError', 'errors', 'response'] as const;

/** Reads a property without letting a throwing getter or proxy escape. */
function read(value: unknown, key: string): unknown {
  try {
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/** JSON bodies sent as text (`responseBody`, Gemini's `message`) become objects to walk. */
function parseJson(text: string): unknown {
  const trimmed = text.trim();
  const start = trimmed.search(/[[{]/);
  if (start === -1 || start > 16) return undefined;
  try {
    return JSON.parse(trimmed.slice(start)) as unknown;
  } catch {
    return undefined;
  }
}

interface Evidence {
  /** Texts, innermost first: the provider's own message before the SDK's wrapper around it. */
  readonly texts: string[];
  statuses: number[];
  codes: string[];
  /** llama.cpp's `n_prompt_tokens` / `n_ctx`. */
  promptTokens: number | undefined;
  contextSize: number | undefined;
}

/** Breadth-first over the error, its causes and bodies, so inner messages are found too. */
function gather(error: unknown): Evidence {
  const evidence: Evidence = {
    texts: [],
    statuses: [],
    codes: [],
    promptTokens: undefined,
    contextSize: undefined,
  };
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  const outer: string[] = [];
  while (queue.length > 0 && seen.size < MAX_NODES) {
    const node = queue.shift();
    if (node === undefined || node === null || seen.has(node)) continue;
    seen.add(node);
    if (typeof node === 'string') {
      outer.push(node.slice(0, MAX_TEXT));
      const parsed = parseJson(node);
      if (parsed !== undefined) queue.push(parsed);
      continue;
    }
    if (typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      queue.push(...node.slice(0, 8));
      continue;
    }
    const message = read(node, 'message');
    if (typeof message === 'string') {
      // An Error's own message wraps the body ("400 {...}"); a plain object's is the body's.
      (node instanceof Error ? outer : evidence.texts).push(message.slice(0, MAX_TEXT));
      const parsed = parseJson(message);
      if (parsed !== undefined) queue.push(parsed);
    }
    for (const key of ['status', 'statusCode', 'code'] as const) {
      const value = read(node, key);
      if (typeof value === 'number' && value >= 100 && value < 600) evidence.statuses.push(value);
      if (typeof value === 'string') evidence.codes.push(value);
    }
    for (const key of ['type', 'name'] as const) {
      const value = read(node, key);
      if (typeof value === 'string') evidence.codes.push(value);
    }
    const nPrompt = read(node, 'n_prompt_tokens');
    const nCtx = read(node, 'n_ctx');
    if (typeof nPrompt === 'number') evidence.promptTokens ??= nPrompt;
    if (typeof nCtx === 'number') evidence.contextSize ??= nCtx;
    const responseBody = read(node, 'responseBody');
    if (typeof responseBody === 'string') queue.push(responseBody);
    for (const key of NESTED_KEYS) {
      const value = read(node, key);
      // `response` is only interesting as parsed data, never as a fetch Response.
      if (key === 'response' && typeof Response !== 'undefined' && value instanceof Response) continue;
      if (value !== undefined) queue.push(value);
    }
  }
  evidence.texts.push(...outer);
  return evidence;
}

/** Codes that mean "context overflow" with no need to read the wording. */
const OVERFLOW_CODES =
  /^(?:context_length_exceeded|model_context_window_exceeded|exceed_context_size_error|ContextWindowExceededError)$/;
/** Rate limits also speak of tokens ("Request too large … tokens per min"); they are not overflows. */
const RATE_LIMIT = /rate.?limit|tokens per min|\bTPM\b|per minute|quota/i;

/**
 * Reads a provider's context-overflow error (RT-3): which provider's wording it is, the
 * window and the prompt size when the error says them, and the provider's message.
 *
 * @param error Anything thrown by an SDK call: an SDK error, an AI SDK `APICallError` or
 *   `RetryError`, a LiteLLM error, a string, or a chain of causes. Never throws.
 * @returns The overflow, or `undefined` when the error is something else (including 429 rate
 *   limits that mention tokens).
 * @example
 * try { await openai.chat.completions.create(request); }
 * catch (error) {
 *   const overflow = parseContextOverflow(error);
 *   if (overflow) retryWithin(overflow.limit);
 * }
 */
export function parseContextOverflow(error: unknown): ContextOverflow | undefined {
  try {
    const evidence = gather(error);
    if (evidence.statuses.includes(429)) return undefined;
    for (const { provider, pattern, read: readNumbers } of OVERFLOW_PATTERNS) {
      for (const text of evidence.texts) {
        const match = pattern.exec(text);
        if (match === null || RATE_LIMIT.test(text)) continue;
        const numbers = readNumbers?.(match) ?? {};
        const limit = numbers.limit ?? evidence.contextSize;
        const actual = numbers.actual ?? evidence.promptTokens;
        return {
          provider,
          ...(limit === undefined ? {} : { limit }),
          ...(actual === undefined ? {} : { actual }),
          message: text.trim(),
        };
      }
    }
    if (evidence.codes.some((code) => OVERFLOW_CODES.test(code))) {
      const limit = evidence.contextSize;
      const actual = evidence.promptTokens;
      return {
        provider: evidence.codes.includes('context_length_exceeded') ? 'openai' : 'unknown',
        ...(limit === undefined ? {} : { limit }),
        ...(actual === undefined ? {} : { actual }),
        message: evidence.texts[0]?.trim() || 'context length exceeded',
      };
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `ChatfoldError` for an overflow chatfold could not recover from (RT-3), with `limit`,
 * `actual` and `provider` in `details` and the provider's error as `cause`.
 *
 * @param overflow What {@link parseContextOverflow} read.
 * @param options `cause`: the provider's error.
 * @returns A `ChatfoldError` with code `E_CONTEXT_OVERFLOW`.
 */
export function contextOverflowError(
  overflow: ContextOverflow,
  options: { readonly cause?: unknown } = {},
): ChatfoldError {
  const { provider, limit, actual, message } = overflow;
  const sizes =
    actual !== undefined && limit !== undefined
      ? `${actual.toLocaleString('en-US')} tokens > ${limit.toLocaleString('en-US')}`
      : limit !== undefined
        ? `the limit is ${limit.toLocaleString('en-US')} tokens`
        : 'no sizes given';
  return new ChatfoldError(
    'E_CONTEXT_OVERFLOW',
    `The prompt does not fit the model's context window (${provider}: ${sizes}): ${message}. Compact the conversation to a smaller target, or use a model with a larger window.`,
    { provider, limit, actual },
    options.cause === undefined ? {} : { cause: options.cause },
  );
}
