import type { LanguageModel } from 'ai';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { importPeer } from '../errors/import-peer.ts';
import type { Provider } from '../messages/types.ts';
import { parseOptions } from '../options/parse-options.ts';
import { agentModelSpecSchema } from './agent-options-schema.ts';
import type { AgentModelSpec, AgentProvider } from './types.ts';
import type { PathEnvironment } from './xdg-paths.ts';

/** Providers `createLanguageModel` builds, with the environment variables their keys come from. */
export const PROVIDER_KEYS: Readonly<Record<AgentProvider, readonly string[]>> = {
  openai: ['OPENAI_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
  google: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  // Local servers usually need none; a hosted one (Groq, Together, OpenRouter…) takes this.
  'openai-compatible': ['OPENAI_COMPATIBLE_API_KEY'],
};

/** The message format chatfold must produce for a provider (MSG-3, SUM-7). */
export function chatfoldProviderOf(provider: AgentProvider): Provider {
  return provider === 'anthropic' ? 'anthropic' : provider === 'google' ? 'gemini' : 'openai';
}

/** Parses `provider:name` (`--model openai:gpt-4o`, `openai-compatible:qwen2.5:32b`). */
export function parseModelSpec(value: string): { provider: AgentProvider; name: string } {
  const at = value.indexOf(':');
  const provider = at < 0 ? '' : value.slice(0, at);
  const name = at < 0 ? '' : value.slice(at + 1);
  if (!(provider in PROVIDER_KEYS) || name === '') {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `model ${JSON.stringify(value)}: expected provider:name with provider one of ${Object.keys(PROVIDER_KEYS).join(', ')} (e.g. openai:gpt-4o, openai-compatible:qwen2.5:32b)`,
      { model: value },
    );
  }
  return { provider: provider as AgentProvider, name };
}

/** The key a spec's model uses: its own, else the first of its provider's variables that is set. */
export function apiKeyFor(spec: AgentModelSpec, env: PathEnvironment): string | undefined {
  if (spec.apiKey !== undefined) return spec.apiKey;
  for (const name of PROVIDER_KEYS[spec.provider]) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/**
 * Builds an AI SDK model from a spec (AG-1, AG-3): OpenAI and OpenAI-compatible servers
 * through their chat completions API, Anthropic's messages API, Google's Gemini API. Keys come
 * from the usual environment variables ({@link PROVIDER_KEYS}); the SDKs are optional peers.
 *
 * @param spec Provider, model name, optional base URL and key.
 * @param env Where keys are read from. Default `process.env`.
 * @returns The model, ready for `streamText`.
 * @throws ChatfoldError `E_MISSING_API_KEY` naming the variable to set; `E_INVALID_OPTIONS` for
 *   an unknown provider or an OpenAI-compatible model without a base URL;
 *   `E_MISSING_DEPENDENCY` when the provider's SDK is not installed.
 */
export async function createLanguageModel(
  spec: AgentModelSpec,
  env: PathEnvironment = process.env,
): Promise<LanguageModel> {
  if (!(spec.provider in PROVIDER_KEYS)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `unknown provider ${JSON.stringify(spec.provider)}; expected one of ${Object.keys(PROVIDER_KEYS).join(', ')}`,
      { provider: spec.provider },
    );
  }
  parseOptions(agentModelSpecSchema, spec, 'createLanguageModel');
  const apiKey = apiKeyFor(spec, env);
  const baseURL = spec.baseURL?.replace(/\/+$/, '');
  if (apiKey === undefined && spec.provider !== 'openai-compatible') {
    const names = PROVIDER_KEYS[spec.provider];
    throw new ChatfoldError(
      'E_MISSING_API_KEY',
      `no API key for ${spec.provider}: set ${names.join(' or ')}${spec.provider === 'openai' ? ' (or use openai-compatible:MODEL with --base-url for a local server)' : ''}`,
      { provider: spec.provider, variables: names },
    );
  }
  const key = apiKey === undefined ? {} : { apiKey };
  const url = baseURL === undefined ? {} : { baseURL };
  switch (spec.provider) {
    case 'openai': {
      const { createOpenAI } = await importPeer(
        '@ai-sdk/openai',
        () => import('@ai-sdk/openai'),
        'the openai provider',
      );
      return createOpenAI({ ...key, ...url }).chat(spec.name);
    }
    case 'anthropic': {
      const { createAnthropic } = await importPeer(
        '@ai-sdk/anthropic',
        () => import('@ai-sdk/anthropic'),
        'the anthropic provider',
      );
      return createAnthropic({ ...key, ...url })(spec.name);
    }
    case 'google': {
      const { createGoogleGenerativeAI } = await importPeer(
        '@ai-sdk/google',
        () => import('@ai-sdk/google'),
        'the google provider',
      );
      return createGoogleGenerativeAI({ ...key, ...url })(spec.name);
    }
    case 'openai-compatible': {
      if (baseURL === undefined) {
        throw new ChatfoldError(
          'E_INVALID_OPTIONS',
          'openai-compatible needs a base URL: pass --base-url (Ollama http://localhost:11434/v1, llama.cpp http://localhost:8080/v1, LM Studio http://localhost:1234/v1, vLLM http://localhost:8000/v1)',
          { provider: spec.provider },
        );
      }
      const { createOpenAICompatible } = await importPeer(
        '@ai-sdk/openai-compatible',
        () => import('@ai-sdk/openai-compatible'),
        'the openai-compatible provider',
      );
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL,
        includeUsage: true,
        ...key,
      }).chatModel(spec.name);
    }
  }
}
