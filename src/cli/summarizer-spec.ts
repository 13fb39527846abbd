import { ChatfoldError } from '../errors/chatfold-error.ts';
import { importPeer } from '../errors/import-peer.ts';
import type { Summarizer } from '../summarize/types.ts';

/** Providers `--summarizer provider:model` accepts. */
export const SUMMARIZER_PROVIDERS = ['openai', 'anthropic', 'google', 'openai-compatible'] as const;

/** Where API keys and base URLs come from (the environment, injectable for tests). */
export type Environment = Readonly<Record<string, string | undefined>>;

function invalid(message: string, spec: string): ChatfoldError {
  return new ChatfoldError('E_INVALID_OPTIONS', `--summarizer ${spec}: ${message}`, { summarizer: spec });
}

function need(env: Environment, names: readonly string[], spec: string): string {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  throw invalid(`set ${names.join(' or ')} (or use --summarizer extractive)`, spec);
}

/**
 * Builds the summarizer a CLI flag names (SUM-5): `extractive` (offline, the default) or
 * `provider:model` through the AI SDK — `openai:gpt-4o-mini`, `anthropic:claude-haiku-4-5`,
 * `google:gemini-2.5-flash`, or `openai-compatible:<model>` for any OpenAI-compatible server
 * (Ollama, llama.cpp, vLLM, LM Studio) at `baseURL`. Keys come from `OPENAI_API_KEY`,
 * `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`; `baseURL` also overrides the hosted providers' URLs.
 * The AI SDK packages are optional peer dependencies, loaded only here.
 *
 * @returns `undefined` for `extractive`.
 */
export async function summarizerFromSpec(
  spec: string,
  { baseURL, env = process.env }: { readonly baseURL?: string; readonly env?: Environment } = {},
): Promise<Summarizer | undefined> {
  if (spec === 'extractive') return undefined;
  const colon = spec.indexOf(':');
  const provider = colon < 0 ? spec : spec.slice(0, colon);
  const model = colon < 0 ? '' : spec.slice(colon + 1);
  if (!(SUMMARIZER_PROVIDERS as readonly string[]).includes(provider) || model === '') {
    throw invalid(
      `expected extractive or provider:model with provider one of ${SUMMARIZER_PROVIDERS.join(', ')}`,
      spec,
    );
  }
  const feature = `--summarizer ${provider}:…`;
  const { aiSdkSummarizer } = await importPeer(
    'ai',
    () => import('../integrations/ai-sdk/summarizer.ts'),
    feature,
  );
  const url = baseURL === undefined ? {} : { baseURL };
  switch (provider) {
    case 'openai': {
      const { createOpenAI } = await importPeer('@ai-sdk/openai', () => import('@ai-sdk/openai'), feature);
      const apiKey = need(env, ['OPENAI_API_KEY'], spec);
      // Chat Completions: what every OpenAI-compatible server speaks.
      return aiSdkSummarizer(createOpenAI({ apiKey, ...url }).chat(model));
    }
    case 'anthropic': {
      const { createAnthropic } = await importPeer(
        '@ai-sdk/anthropic',
        () => import('@ai-sdk/anthropic'),
        feature,
      );
      return aiSdkSummarizer(
        createAnthropic({ apiKey: need(env, ['ANTHROPIC_API_KEY'], spec), ...url })(model),
      );
    }
    case 'google': {
      const { createGoogleGenerativeAI } = await importPeer(
        '@ai-sdk/google',
        () => import('@ai-sdk/google'),
        feature,
      );
      const apiKey = need(env, ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'], spec);
      return aiSdkSummarizer(createGoogleGenerativeAI({ apiKey, ...url })(model));
    }
    default: {
      if (baseURL === undefined) throw invalid('openai-compatible needs --summarizer-base-url', spec);
      const { createOpenAICompatible } = await importPeer(
        '@ai-sdk/openai-compatible',
        () => import('@ai-sdk/openai-compatible'),
        feature,
      );
      const apiKey = env.OPENAI_API_KEY;
      return aiSdkSummarizer(
        createOpenAICompatible({
          name: 'summarizer',
          baseURL,
          ...(apiKey === undefined ? {} : { apiKey }),
        }).chatModel(model),
      );
    }
  }
}
