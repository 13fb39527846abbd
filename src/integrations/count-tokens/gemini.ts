import { importPeer } from '../../errors/import-peer.ts';
import { toGemini } from '../../messages/gemini.ts';
import type { ToolDefinition } from '../../messages/types.ts';
import { counterFor } from '../../tokens/count-tokens.ts';
import type { ExactTokenCounter, TokenCounter } from '../../tokens/types.ts';
import { createProviderTokenCounter, type ProviderCounterOptions } from './provider-counter.ts';

/** The part of the official `@google/genai` client chatfold uses. */
export interface GeminiCountClient {
  /** `true` for a Vertex AI client, which accepts a system instruction and tools in countTokens. */
  readonly vertexai?: boolean;
  readonly models: {
    countTokens(params: {
      model: string;
      contents: unknown;
      config?: { abortSignal?: AbortSignal; systemInstruction?: unknown; tools?: unknown };
    }): Promise<{ totalTokens?: number }>;
  };
}

/** Options of {@link createGeminiTokenCounter}. */
export interface GeminiTokenCounterOptions extends Omit<ProviderCounterOptions, 'fallback'> {
  /** A `GoogleGenAI` client; or pass `apiKey` / `baseURL` and chatfold creates one. */
  readonly client?: GeminiCountClient;
  /** Default: the SDK reads `GEMINI_API_KEY` / `GOOGLE_API_KEY`. */
  readonly apiKey?: string;
  readonly baseURL?: string;
  /** Local counter when the API cannot answer. Default: the calibrated Gemini estimate. */
  readonly fallback?: TokenCounter;
}

const toFunctionDeclarations = (tools: readonly ToolDefinition[]) => [
  {
    functionDeclarations: tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parametersJsonSchema: tool.parameters,
    })),
  },
];

/**
 * A token counter for Gemini models whose `countExact` calls
 * `POST /v1beta/models/{model}:countTokens` through the official `@google/genai` SDK's
 * `models.countTokens` (TOK-4): messages converted with `toGemini`, cached by content hash,
 * bounded by `timeoutMs`, falling back to the calibrated local estimate with the reason
 * reported to `onFallback`. A Vertex AI client gets the system instruction and tools natively;
 * the Gemini Developer API accepts neither in countTokens, so there the system prompt is
 * counted as the leading user turn's first parts and tool definitions locally (documented
 * approximation). `@google/genai` is an optional peer dependency, imported only when no
 * `client` is given.
 *
 * @throws ChatfoldError `E_MISSING_DEPENDENCY` when neither a client nor the SDK is available.
 * @example
 * const counter = await createGeminiTokenCounter({ model: 'gemini-2.5-pro' });
 * const { total } = await counter.countExact!(messages);
 */
export async function createGeminiTokenCounter(
  options: GeminiTokenCounterOptions,
): Promise<ExactTokenCounter> {
  let client = options.client;
  if (client === undefined) {
    const { GoogleGenAI } = await importPeer(
      '@google/genai',
      () => import('@google/genai'),
      'createGeminiTokenCounter',
    );
    client = new GoogleGenAI({
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.baseURL === undefined ? {} : { httpOptions: { baseUrl: options.baseURL } }),
    }) as unknown as GeminiCountClient;
  }
  const sdk = client;
  const fallback = options.fallback ?? counterFor('google:gemini');
  return createProviderTokenCounter(
    'google:count_tokens',
    async (messages, tools, signal) => {
      const { systemInstruction, contents } = toGemini(messages);
      if (sdk.vertexai === true) {
        const response = await sdk.models.countTokens({
          model: options.model,
          contents,
          config: {
            abortSignal: signal,
            ...(systemInstruction === undefined ? {} : { systemInstruction }),
            ...(tools.length === 0 ? {} : { tools: toFunctionDeclarations(tools) }),
          },
        });
        return totalOf(response);
      }
      const systemParts =
        systemInstruction === undefined
          ? []
          : typeof systemInstruction === 'string'
            ? [{ text: systemInstruction }]
            : systemInstruction.parts;
      const [first, ...rest] = contents;
      const withSystem =
        systemParts.length === 0
          ? contents
          : first?.role === 'user'
            ? [{ role: 'user', parts: [...systemParts, ...first.parts] }, ...rest]
            : [{ role: 'user', parts: systemParts }, ...contents];
      const response = await sdk.models.countTokens({
        model: options.model,
        contents: withSystem,
        config: { abortSignal: signal },
      });
      return totalOf(response) + (tools.length === 0 ? 0 : fallback.count([], { tools }).tools);
    },
    { ...options, fallback },
  );
}

function totalOf(response: { totalTokens?: number }): number {
  if (typeof response.totalTokens !== 'number')
    throw new Error(`countTokens answered without totalTokens: ${JSON.stringify(response)}`);
  return response.totalTokens;
}
