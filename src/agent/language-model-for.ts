import type { LanguageModel } from 'ai';
import { apiKeyFor, createLanguageModel, PROVIDER_KEYS } from './language-model.ts';
import type { AgentModelSpec } from './types.ts';
import type { PathEnvironment } from './xdg-paths.ts';

/** A model built from a frozen spec, with the API key it was built with. */
interface BuiltModel {
  readonly apiKey: string | undefined;
  readonly model: Promise<LanguageModel>;
}

/** Models built from frozen specs, weakly keyed by the spec: a frozen spec cannot change. */
const builtModels = new WeakMap<AgentModelSpec, BuiltModel>();

/**
 * {@link createLanguageModel}, built once per frozen spec (NFR-7.5): a server that builds an
 * agent for every chat it opens from one spec (the web app's agent pool freezes it) reuses the
 * AI SDK model instead of building the provider again (the OpenAI-compatible provider builds
 * its zod stream schemas per model, about a millisecond of the event loop). A spec that is not
 * frozen is built every time, as before; a frozen one is built again when the API key read from
 * the environment changed. A build that fails is not kept.
 *
 * @param spec Provider, model name, optional base URL and key.
 * @param env Where keys are read from. Default `process.env`.
 * @returns The model, the same object for the same frozen spec and key.
 */
export function languageModelFor(
  spec: AgentModelSpec,
  env: PathEnvironment = process.env,
): Promise<LanguageModel> {
  // An unknown provider is refused by createLanguageModel, with its message.
  if (!Object.isFrozen(spec) || !Object.hasOwn(PROVIDER_KEYS, spec.provider)) {
    return createLanguageModel(spec, env);
  }
  const apiKey = apiKeyFor(spec, env);
  const built = builtModels.get(spec);
  if (built !== undefined && built.apiKey === apiKey) return built.model;
  const model = createLanguageModel(spec, env);
  builtModels.set(spec, { apiKey, model });
  model.catch(() => {
    if (builtModels.get(spec)?.model === model) builtModels.delete(spec);
  });
  return model;
}
