import type { z } from 'zod';
import { toOpenAI } from '../../messages/to-openai.ts';
import type { Message, ToolDefinition } from '../../messages/types.ts';
import { modelFamilyTokenizer } from '../../models/model-family-tokenizer.ts';
import { counterFor } from '../../tokens/count-tokens.ts';
import type { TokenCounter } from '../../tokens/types.ts';
import type { ProviderCounterOptions } from './provider-counter.ts';

/** Options shared by the local-server counters (llama.cpp, vLLM). */
export interface LocalServerCounterOptions extends Omit<ProviderCounterOptions, 'fallback' | 'model'> {
  /** The server's root URL, e.g. `http://127.0.0.1:8080` (a trailing `/v1` is ignored). */
  readonly baseURL: string;
  /**
   * The served model's id: vLLM checks it against what it serves, llama.cpp's router picks the
   * model by it, and it names the default fallback's tokenizer.
   */
  readonly model?: string;
  /** Sent as `Authorization: Bearer …` (`llama-server --api-key`, `vllm serve --api-key`). */
  readonly apiKey?: string;
  /**
   * Local counter for the synchronous methods and whenever the server cannot answer. Default:
   * the model family's counter (for `open:*` models the calibrated stand-in; pass the counter of
   * `createOpenModelTokenCounter` or `createHuggingFaceTokenCounter` for exact local counts).
   */
  readonly fallback?: TokenCounter;
  /** Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
}

/** The fallback a local-server counter uses when none is given. */
export const defaultLocalFallback = (model: string | undefined): TokenCounter =>
  counterFor(model === undefined ? 'chars/4' : modelFamilyTokenizer(model));

/** Tool definitions as OpenAI-compatible servers take them in `tools`. */
export const toOpenAITools = (tools: readonly ToolDefinition[]) =>
  tools.map((tool) => ({
    type: 'function' as const,
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters,
    },
  }));

/** The chat request body both servers read: `{ messages, tools? }` in the OpenAI Chat format. */
export const chatBody = (messages: readonly Message[], tools: readonly ToolDefinition[]) => ({
  messages: toOpenAI(messages),
  ...(tools.length === 0 ? {} : { tools: toOpenAITools(tools) }),
});

/**
 * POSTs JSON to a local server and returns its answer checked against `schema`. Throws with the
 * status and the server's body (`503 {"error":{"code":503,"message":"Loading model",…}}`), or
 * with what was wrong with a 200 answer, so the fallback event says why.
 */
export async function postToLocalServer<T>(
  options: Pick<LocalServerCounterOptions, 'baseURL' | 'apiKey' | 'fetch'>,
  path: string,
  body: unknown,
  schema: z.ZodType<T>,
  signal: AbortSignal,
): Promise<T> {
  const root = options.baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
  const response = await (options.fetch ?? fetch)(`${root}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
    },
    body: JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status} ${text.slice(0, 500)}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(
      `${path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`,
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `${path} answered an unexpected shape: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
    );
  }
  return parsed.data;
}
